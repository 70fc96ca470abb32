"""Word lists behind the text gate: what may be dropped or merged, and what always matters.

Each list is small and general. A word belongs in a "drop" or "merge" list only when no
answer can depend on it (courtesy, hesitation, spelling variants, one-meaning synonyms); a
word that flips or narrows an answer belongs in the lists the gate uses to explain a change.
"""

from __future__ import annotations

ARTICLES = frozenset({"a", "an", "the"})

FILLER_ANYWHERE = frozenset({"please", "pls", "plz", "kindly", "um", "umm", "uh", "er", "erm",
                             "hmm", "uhm"})
"""Hesitation and courtesy that never change what is asked, wherever they stand."""

_LEADING = [
    "hi", "hello", "hey", "hiya", "howdy", "greetings", "dear", "yo",
    "hi there", "hello there", "hey there", "hi team", "hello team", "hey team", "hi all",
    "hello all", "hi everyone", "hello everyone", "hi guys", "hey guys", "hi folks",
    "good morning", "good afternoon", "good evening",
    "ok", "okay", "so", "yeah", "alright", "oh",
    "quick question", "quick one", "quick q", "silly question", "dumb question",
    "sorry if this is a dumb question but", "sorry if this is a silly question but",
    "sorry if this is obvious but", "this might be a silly question but",
    "this may be a dumb question but",
    "just wondering", "i was wondering", "i am wondering", "i wonder",
    "sorry", "sorry to bother you", "sorry to bother you but", "but", "excuse me",
    "could you tell me", "can you tell me", "would you tell me", "please tell me",
    "could you let me know", "can you let me know", "let me know",
    "do you know", "does anyone know", "anyone know",
    "i would like to know", "i want to know", "i need to know", "i would love to know",
    "help me", "can you help me", "could you help me",
]
LEADING_FILLER: tuple[tuple[str, ...], ...] = tuple(
    sorted((tuple(p.split()) for p in _LEADING), key=len, reverse=True)
)
"""Removed from the start of a request, repeatedly ("hi team so um how do I ...")."""

CLAUSE_FILLER = frozenset({("morning",), ("afternoon",), ("evening",), ("cheers",),
                           ("thanks",), ("thank", "you"), ("ta",)})
"""Words that are filler only when they make a whole clause ("Morning! How do I ...")."""

_TRAILING = [
    "thanks", "thank you", "many thanks", "thanks a lot", "thanks so much", "thank you so much",
    "thanks in advance", "thank you in advance", "cheers", "ta", "thx", "ty",
    "if you can", "if possible", "if you could", "if you know",
    "i have always wondered", "just curious", "out of curiosity", "asking for a friend",
]
TRAILING_FILLER: tuple[tuple[str, ...], ...] = tuple(
    sorted((tuple(p.split()) for p in _TRAILING), key=len, reverse=True)
)

CONTRACTION_IS = "what|where|who|how|when|why|that|there|here|it|he|she|this"
"""Words whose "'s" means "is" ("what's"), also written without the apostrophe ("whats")."""

WH_WORDS = frozenset({"how", "where", "who", "whom"})
WH_AUXILIARIES = frozenset({"do", "can", "should", "could", "would", "might", "may", "shall"})
"""After "how/where/who" + "I", these ask for the same thing: "how can I" = "how do I"."""

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "hundred": "100", "thousand": "1000",
}

_VARIANTS = [
    # British and American spellings
    ("centre", "center"), ("centres", "centers"), ("theatre", "theater"), ("metre", "meter"),
    ("metres", "meters"), ("litre", "liter"), ("litres", "liters"), ("fibre", "fiber"),
    ("colour", "color"), ("colours", "colors"), ("favourite", "favorite"), ("favour", "favor"),
    ("honour", "honor"), ("labour", "labor"), ("neighbour", "neighbor"),
    ("neighbours", "neighbors"), ("behaviour", "behavior"), ("flavour", "flavor"),
    ("humour", "humor"), ("harbour", "harbor"), ("rumour", "rumor"), ("catalogue", "catalog"),
    ("dialogue", "dialog"), ("programme", "program"), ("cheque", "check"), ("tyre", "tire"),
    ("tyres", "tires"), ("aluminium", "aluminum"), ("grey", "gray"), ("travelling", "traveling"),
    ("travelled", "traveled"), ("cancelled", "canceled"), ("cancelling", "canceling"),
    ("jewellery", "jewelry"), ("mum", "mom"), ("enrol", "enroll"), ("licence", "license"),
    ("defence", "defense"), ("offence", "offense"), ("practise", "practice"),
    ("ageing", "aging"), ("instal", "install"), ("instals", "installs"),
    ("artefact", "artifact"), ("plough", "plow"), ("pyjamas", "pajamas"),
    # one thing, two spellings
    ("e-mail", "email"), ("e-mails", "emails"), ("wifi", "wi-fi"),
    ("ok", "okay"), ("log-in", "login"), ("sign-in", "signin"),
    ("on-line", "online"), ("web-site", "website"),
    ("u", "you"), ("ur", "your"), ("r", "are"), ("thru", "through"), ("tho", "though"),
    # one meaning, two words
    ("quickest", "fastest"), ("quick", "fast"), ("quicker", "faster"), ("quickly", "fast"),
    ("shop", "store"), ("shops", "stores"), ("quotation", "quote"), ("quotations", "quotes"),
    ("purchase", "buy"), ("automobile", "car"), ("telephone", "phone"),
    ("cellphone", "phone"), ("film", "movie"), ("films", "movies"),
    ("commence", "start"), ("begin", "start"),
    ("photograph", "photo"), ("photographs", "photos"),
]
SPELLING = dict(_VARIANTS)
"""Variant -> the one form the gate compares."""

PLURAL_KEEP = frozenset({
    "glasses", "goods", "customs", "means", "arms", "minutes", "news", "series", "species",
    "physics", "mathematics", "economics", "politics", "ethics", "this", "his", "has", "was",
    "does", "is", "yes", "us", "plus", "bus", "gas", "always", "perhaps", "whereas", "unless",
    "across", "savings", "earnings", "lens", "headquarters", "premises", "clothes", "jeans",
    "trousers", "scissors", "pants", "shorts", "odds", "ours", "yours", "its", "less",
    "process", "address", "access", "success", "business", "express", "status", "bonus",
    "campus", "virus", "census", "canvas", "atlas", "alias", "bias", "christmas", "texas",
    "paris", "athens", "wales", "brussels", "netherlands", "philippines", "mars", "venus",
    "windows", "kubernetes", "jenkins", "postgres", "redis", "ios", "macos", "aws", "dns",
})
"""Words ending in s that are not plurals, or whose singular means something else."""

PHRASES: tuple[tuple[str, str], ...] = (
    (r"have you got", "do you have"),
    (r"have you any", "do you have any"),
    (r"is it possible to", "can i"),
    (r"is it possible for me to", "can i"),
    (r"am i able to", "can i"),
    (r"am i allowed to", "can i"),
    (r"what is best way to", "how do i"),
    (r"what is way to", "how do i"),
    (r"how would i go about", "how do i"),
    (r"how do i go about", "how do i"),
    (r"how to", "how do i"),
    (r"how i", "how do i"),
    (r"how do i do i", "how do i"),
    (r"waiting time", "wait time"),
)
"""Whole phrases rewritten to one form, applied in order to the joined tokens."""
