"""Greetings, thanks and "please" that only frame a request, cut from its ends.

Three shapes and no others, all in English and outside quotes, each chosen because the words
in it cannot be what is asked about:

- a greeting at the start, as a sentence of its own ("Hi!", "Hello there.") or before a comma
  and a word that opens a request, in small letters (`lexicon.OPENERS`: "Hi there, how do
  I…"); not before a capital ("Hello, Dolly!", "Good morning, Vietnam"), nor before any other
  word or an opener that is itself listed ("Hi, bye, see you later: translate each", "Hi,
  how and why…"), where the greeting may be the list's first item;
- thanks at the end as a sentence of their own, after a sentence mark ("…? Thanks!"); not
  after a comma ("…see you tomorrow, thanks") and not as the last word of a sentence ("Tell me
  about the show Cheers.");
- "please" at the end as ", please" before the closing question mark ("…, please?").

A greeting or thanks in capitals is courtesy only in a request written in capitals: elsewhere
it is a name or a code ("HI, what is the state bird?" asks about Hawaii; "…certified? THX."
names the certification). A request that is nothing but courtesy keeps it: "Hi" is not
"Hello".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stepchat.core.textgate.lexicon import COORDINATORS, GREETINGS, OPENERS, PLEASE, THANKS
from stepchat.core.textgate.literal import literal_spans, target_start
from stepchat.core.textgate.scan import LINE_BREAKS, in_capitals

_GREETING_SENTENCE = re.compile(r"\s*([A-Za-z]+(?: +[A-Za-z]+)?) *([.!]+)(?=\s)[ \t]*(?=\s*\S)")
_GREETING_CLAUSE = re.compile(r"\s*([A-Za-z]+(?: +[A-Za-z]+)?) *,(?=\s)[ \t]*")
"""A greeting and the spaces after it on its line: never a line break or the next line's
indentation, which Markdown, YAML and Python read."""
_OPENING = re.compile(r"\s*(\w+(?:['’]\w+)?)[ \t]+(\S+)")
"""The first word of what follows a greeting's comma, and what follows it after spaces."""
_AROUND = "'\"‘’“”«»`*_([{"
"""Quotes, markup and brackets that may open the word after an opener ("define 'entropy'")."""
_CASED_WORD = re.compile(r"[^\W\d_]+")
_THANKS = re.compile(r"(?<=\S[.?!。？！])\s+([A-Za-z](?:[A-Za-z ]*[A-Za-z])?)(?:\.|!+)?$")
_PLEASE = re.compile(rf",\s*{PLEASE}\s*\?+$")


@dataclass(frozen=True)
class Framed:
    """The request without its courtesy, and whether its first word followed a greeting and a
    comma (then a small first letter may be the sentence's capital: "Hi, what is…")."""

    text: str
    resumed: bool = False


def cut_courtesy(text: str) -> Framed:
    """`text` without the courtesy at its ends that the module docstring lists."""
    text = text.rstrip()
    # Only in a request in capitals is courtesy in capitals merely shouted, and a capital
    # after a greeting's comma merely the request's.
    shouted = in_capitals(_CASED_WORD.findall(text))
    thanks = _thanks_start(text, shouted=shouted)
    if thanks is not None and thanks >= target_start(text):
        thanks = None
    text = _cut_end(text, thanks)
    while (please := _PLEASE.search(text)) and please.start() < target_start(text) and (
        cut := _cut_end(text, please.start())
    ) != text:
        text = cut
    sentence = _GREETING_SENTENCE.match(text)
    if sentence and _greeting(sentence.group(1), shouted=shouted) and not _line_of_text(
        text[sentence.end():]
    ):
        return Framed(text[sentence.end():])
    clause = _GREETING_CLAUSE.match(text)
    if clause and _greeting(clause.group(1), shouted=shouted) and _opens(
        rest := text[clause.end():], shouted=shouted
    ):
        return Framed(rest, resumed=True)
    return Framed(text)


def _thanks_start(text: str, *, shouted: bool) -> int | None:
    """Where thanks that close `text` as a sentence of their own start (`shouted`: the request
    is written in capitals, the only place thanks in capitals are courtesy: "THX" names a
    certification)."""
    found = _THANKS.search(text)
    if found is None:
        return None
    words = found.group(1).split()
    lower = [w.lower() for w in words]
    as_written = " ".join(words)
    plain = " ".join(lower)
    shapes = [plain, plain[:1].upper() + plain[1:]] + ([plain.upper()] if shouted else [])
    return found.start() if tuple(lower) in THANKS and as_written in shapes else None


def _cut_end(text: str, at: int | None) -> str:
    """`text` up to `at`, unless that is inside quotes or leaves no word."""
    if at is None or any(end > at for _, end in literal_spans(text)):
        return text
    kept = text[:at].rstrip()
    return kept if any(ch.isalnum() for ch in kept) else text


def _line_of_text(rest: str) -> bool:
    """Whether a greeting on a line of its own opens several more lines: then it is a line
    of the text asked about ("Hello.⏎World.⏎How many lines does this text have?")."""
    return rest[:1] in LINE_BREAKS and len(rest.strip().splitlines()) > 1


def _greeting(phrase: str, *, shouted: bool) -> bool:
    """Whether `phrase` is a greeting written as one: each word in small letters or with a
    capital first, or all in capitals in a request in capitals (`shouted`). "HI" in "HI, what
    is the state bird?" is Hawaii, "HELLO!" a magazine."""
    words = phrase.split()
    if tuple(w.lower() for w in words) not in GREETINGS:
        return False
    if all(w == w.lower() or w == w.capitalize() for w in words):
        return True
    return shouted and phrase == phrase.upper()


def _opens(rest: str, *, shouted: bool) -> bool:
    """Whether what follows a greeting's comma can be shown to open the request: a word of
    `lexicon.OPENERS` in small letters (any case in a request in capitals, `shouted`),
    followed by a space and a word or a number that is not a coordinator (a sign there,
    `+`, `|`, `->`, joins the opener to a next item as a coordinator does). Any other word
    may be the next item of a list the greeting is the first of ("Hi, bye, see you later:
    translate each", "hi, ta, te: which is Tamil?", "Hi, ciao and bye are…", "Hi, how and
    why…"); a word alone is a reply ("Hello, world! How do I print that?" greets no one)."""
    found = _OPENING.match(rest)
    if found is None:
        return False
    word, following = found.group(1).replace("’", "'"), found.group(2)
    written = word[:1].islower() or shouted
    bare = following.strip(_AROUND).rstrip(".,;:!?").replace("’", "'").strip("'").lower()
    listed = bool(set(bare.split("/")) & COORDINATORS) or not any(ch.isalnum() for ch in bare)
    return written and word.lower() in OPENERS and not listed
