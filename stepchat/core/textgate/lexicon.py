"""The few English words the text gate forgives, and the words it names a change by.

Every list here is closed and short. A list that lets the gate forgive something (greetings,
thanks, contractions) only ever narrows what is forgiven: a word that is not in it is meaning.
No list merges two words into one: synonyms, plurals, spelling variants and misspellings all
change the request, since each has a second sense somewhere ("develop film"/"develop a
movie", "shingles"/"a shingle", "deno"/"demo").
"""

from __future__ import annotations


def _phrases(*lines: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(p.split()) for line in lines for p in line.split(","))


GREETINGS = _phrases(
    "hi,hello,hey,hiya,howdy,greetings",
    "hi there,hello there,hey there,hi team,hello team,hey team,hi all,hello all,hey all",
    "hi everyone,hello everyone,hey everyone,hi guys,hey guys,hi folks,hello folks",
    "dear all,dear team",
)
"""Greetings that may open a request: as a sentence of their own ("Hi!", "Hello there.") or
before a comma and a small letter ("Hi there, how do I…"). Not "okay", "sorry", "um" or "one
question", which can be what is asked about ("Okay, where does the word come from?"), and no
greeting that tells the time of day ("Good morning! What should I eat now?" is not "Good
evening! …")."""
TIME_GREETINGS = _phrases(
    "good morning,good afternoon,good evening,good night,good day,morning,afternoon,evening"
)
"""Greetings that say when the request is made: meaning, never forgiven."""
OPENERS = frozenset({
    # the words that open a question
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "what's", "who's", "where's", "when's", "how's", "whats",
    "is", "are", "am", "was", "were", "do", "does", "did", "have", "has", "had",
    "can", "could", "will", "would", "shall", "should", "may", "might", "must",
    "isn't", "aren't", "don't", "doesn't", "didn't", "can't", "couldn't", "won't",
    "wouldn't", "shouldn't",
    # the asker, and what opens a statement of the problem or a fronted phrase
    "i", "i'm", "i've", "i'd", "i'll", "we", "we're", "my", "our", "a", "an", "the",
    "this", "in", "for", "on", "using", "with", "if", "so", "ok", "okay", "sorry", "quick",
    "just", "need",
    # the verbs that open an instruction
    "please", "tell", "explain", "describe", "write", "give", "show", "list", "name",
    "translate", "convert", "define", "summarise", "summarize", "compare", "calculate",
    "find", "help", "recommend", "suggest", "make", "create", "book", "cancel", "send",
    "track", "copy", "move", "merge", "replace", "revert", "rename", "remove", "delete",
    "add", "subtract", "divide", "multiply", "round", "sort", "split", "turn", "read",
    "spell", "remind", "transfer", "check", "set", "get", "install", "update", "run", "fix",
    "solve", "simplify", "count", "search", "grep", "draft", "plan", "build", "generate",
})
"""The first words a greeting's comma may be followed by: a request opens there ("Hi, how
do I…", "Hey, can you…", "Hello, please explain…", "Hi, in Excel, how…"). No greeting and no
word that opens a farewell or a courtesy phrase ("see you", "good night", "take care").
Anything else may be the next item of a list the greeting opens ("Hi, bye, see you later:
translate each", "hi, ta, te: which code is Tamil?", "Hi, ciao and bye are…"), so the
greeting stays."""
COORDINATORS = frozenset({
    "and", "or", "nor", "n", "plus", "vs", "v", "x", "versus",  # English; `and/or` part by part
    "y", "e", "o", "ni", "et", "ou", "und", "oder", "og", "eller", "och",
    "ja", "tai", "ve", "veya", "nebo", "és", "vagy", "și", "sau", "oraz", "lub",
    "ili", "dan", "atau", "và", "hoặc", "и", "или", "або", "та", "και", "ή", "או", "و", "أو",
    "और", "या", "和", "或", "と", "或者", "및", "또는",
})
"""After an opener, one of these makes the opener a listed word ("Hi, how and why…", "Hi,
can vs. may", "Hi, what y which"): English's and the coordinators other languages write
between listed words, but for those that are also English words after an opener ("which
of", "can u", "is a"). A sign there (`+`, `|`, `->`) makes it one as well (`courtesy`)."""

THANKS = _phrases(
    "thanks,thank you,thanks a lot,thanks so much,thank you so much,many thanks,thx",
    "thanks in advance,thank you in advance,thanks very much,thank you very much",
    "thanks so much in advance,thank you so much in advance,much appreciated",
)
"""Thanks that may close a request as a sentence of their own ("…? Thanks!"). Not "cheers",
"ta" or "please", which are also names (the sitcom, tantalum, the song)."""

PLEASE = "please"
"""Forgiven only as ", please" before the closing question mark ("…, please?")."""

CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "can't": ("cannot",), "won't": ("will", "not"), "shan't": ("shall", "not"),
    "i'm": ("i", "am"),
}
"""Whole-word contractions; the regular ones follow the rules below. "can't" is "cannot",
not "can not" ("Can not voting be a protest?" asks about abstaining); "let's" is not "let
us" ("let us go" also asks to be released); "'d" is never expanded (would, had or did)."""
NOT_STEMS = frozenset({"do", "does", "did", "is", "are", "was", "were", "have", "has", "had",
                       "could", "would", "should", "must", "might", "need"})
"""Words whose "n't" is "not" ("doesn't" = "does not")."""
IS_STEMS = frozenset({"what", "where", "who", "how", "when", "why", "that", "there", "here",
                      "it", "he", "she"})
"""Words whose "'s" is "is" ("what's"); every other "'s" is a possessive and stays."""
HAS_PARTICIPLES = frozenset({
    "been", "got", "gotten", "gone", "done", "had", "made", "said", "seen", "known", "shown",
    "taken", "given", "written", "put", "set", "let", "cut", "hit", "run", "come", "become",
    "begun", "brought", "bought", "caught", "taught", "thought", "found", "left", "lost",
    "kept", "sent", "spent", "built", "told", "sold", "held", "felt", "heard", "paid", "met",
    "read", "won", "sung", "drunk", "eaten", "fallen", "forgotten", "hidden", "broken",
    "chosen", "spoken", "stolen", "worn", "torn", "grown", "thrown", "flown", "drawn",
    # ... and every other irregular past participle not in -ed or -en
    "borne", "born", "bent", "bet", "bid", "blown", "broadcast", "burnt", "burst", "cast",
    "clung", "cost", "crept", "dealt", "dug", "dreamt", "dwelt", "fought", "flung",
    "forecast", "foregone", "ground", "hung", "hurt", "knelt", "knit", "laid", "leant",
    "leapt", "learnt", "lent", "lain", "lit", "meant", "mown", "overcome", "overthrown",
    "quit", "rid", "rung", "sawn", "sought", "sewn", "shone", "shod", "shot", "shrunk",
    "shut", "sunk", "sat", "slain", "slept", "slid", "slung", "slit", "smelt", "sown",
    "spelt", "spilt", "spun", "spat", "split", "spoilt", "spread", "sprung", "stood",
    "stuck", "stung", "stunk", "strewn", "struck", "strung", "sworn", "swept", "swum",
    "swung", "thrust", "understood", "upset", "wept", "wet", "wound", "withdrawn",
    "withheld", "withstood", "wrung", "bound", "clad", "slunk", "hewn", "shorn", "wrought",
    "besought", "fit", "beat", "forgot", "abode", "awoke", "input",
})
"""Where one of these stands within reach of "'s" (or a word in -ed or -en right after it),
the "'s" can be "has" ("What's happened?", "Who's called?", "What's he sat on?"), so it is
not expanded (`normalize._contraction`). English's irregular past
participles are a closed class; with a prefix of `VERB_PREFIXES` they are too
("overpaid", "misunderstood", "rebuilt")."""
VERB_PREFIXES = ("", "re", "un", "over", "out", "mis", "fore", "up", "under", "with", "be",
                 "off", "type")
"""Prefixes that make verbs of verbs, an irregular participle's forms with them included."""
SUFFIXES = {"'re": "are", "'ve": "have", "'ll": "will"}

NEGATIONS = frozenset({"not", "no", "never", "without", "nor", "none", "nothing", "neither",
                       "cannot"})
DIRECTION_WORDS = frozenset({
    "to", "from", "into", "onto", "out", "of", "in", "off", "on", "than", "vs", "versus",
    "before", "after", "above", "below", "over", "under", "up", "down", "per", "by", "between",
})
"""Words the gate names a change by; they decide nothing."""
