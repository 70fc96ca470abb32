"""The few English words the text gate forgives, and the words it names a change by.

Every list here is closed and short. A list that lets the gate forgive something (courtesy,
contractions, the words that open a movable clause) only ever narrows what is forgiven: a
word that is not in it is meaning. No list merges two words into one: synonyms, plurals,
spelling variants and misspellings all change the request, since each has a second sense
somewhere ("develop film"/"develop a movie", "shingles"/"a shingle", "deno"/"demo").
"""

from __future__ import annotations


def _phrases(*lines: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(p.split()) for line in lines for p in line.split(","))


LEADING_CLAUSES = _phrases(
    "hi,hello,hey,hiya,howdy,greetings,hi there,hello there,hey there",
    "hi team,hello team,hey team,hi all,hello all,hey all,hi everyone,hello everyone",
    "hey everyone,hi guys,hey guys,hi folks,hello folks,dear all,dear team",
    "good morning,good afternoon,good evening",
    "um,umm,uh,uhm,erm,hmm,ok,okay,alright,sorry,excuse me,please",
    "sorry to bother you,silly question,dumb question,just wondering,i was wondering",
    "just curious,out of curiosity",
)
"""A whole first clause that only greets or hesitates ("Hi team," "Um," "Sorry to bother
you,"), ended by any mark but a colon: "Hello: how do you say it in French?" asks about
"Hello". A lone "Morning" is one only as an exclamation (`EXCLAIMED`): "Evening, what should
I eat?" asks about the evening."""
INTRODUCTIONS = _phrases("quick question,quick one,one question,a quick question")
"""A first clause that only announces the question, ended by any mark ("Quick question:")."""
EXCLAIMED = _phrases("morning,afternoon,evening")

TRAILING_CLAUSES = _phrases(
    "thanks,thank you,thanks a lot,thanks so much,thank you so much,many thanks",
    "thanks in advance,thank you in advance,thanks very much,thank you very much",
    "cheers,thx,ty,ta,please,much appreciated,appreciated",
)
"""A whole last clause of thanks (", thanks!", "? Thank you in advance."); a colon is meaning,
so "Translate: thank you" keeps its words."""

PLEASE = "please"
"""Forgiven as a clause of its own at either end, as the first word before a small letter
("Please explain…", not "Please Please Me"), and after "can/could/would/will you"."""
ASKING = frozenset({"can", "could", "would", "will"})

CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "can't": ("can", "not"), "cannot": ("can", "not"), "won't": ("will", "not"),
    "shan't": ("shall", "not"), "i'm": ("i", "am"), "let's": ("let", "us"),
}
"""Whole-word contractions; the regular ones follow the rules below."""
NOT_STEMS = frozenset({"do", "does", "did", "is", "are", "was", "were", "have", "has", "had",
                       "could", "would", "should", "must", "might", "need"})
"""Words whose "n't" is "not" ("doesn't" = "does not")."""
UNMARKED = {f"{stem}nt": f"{stem}n't" for stem in (
    "do", "does", "did", "is", "are", "was", "were", "have", "has", "had", "could", "would",
    "should")} | {"whats": "what's", "thats": "that's"}
"""Contractions typed without the apostrophe that are no other word ("doesnt", "whats";
not "cant", "wont", "im", "its", "hes", "shes", which are words or names)."""
IS_STEMS = frozenset({"what", "where", "who", "how", "when", "why", "that", "there", "here",
                      "it", "he", "she"})
"""Words whose "'s" is "is" ("what's"); every other "'s" is a possessive and stays."""
SUFFIXES = {"'re": "are", "'ve": "have", "'ll": "will", "'d": "would"}

FRONTED = frozenset({"in", "on", "at", "for", "with", "using", "if", "when", "whenever",
                     "while", "before", "after", "during", "within", "without", "once",
                     "unless", "until", "to", "near", "from", "about", "around", "since",
                     "between"})
"""Words that open a clause which may stand first or last: "In Excel, how do I merge cells?"
asks what "How do I merge cells in Excel?" asks. A first clause opened by any other word
stays where it is ("Sort the list, remove duplicates" is not "Remove duplicates, sort the
list")."""

NEGATIONS = frozenset({"not", "no", "never", "without", "nor", "none", "nothing", "neither"})
DIRECTION_WORDS = frozenset({
    "to", "from", "into", "onto", "out", "of", "in", "off", "on", "than", "vs", "versus",
    "before", "after", "above", "below", "over", "under", "up", "down", "per", "by", "between",
})
"""Words the gate names a change by; they decide nothing."""
