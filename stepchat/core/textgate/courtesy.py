"""Greetings, thanks and "please" that only frame a request, cut from its ends.

Three shapes and no others, all in English and outside quotes, each chosen because the words
in it cannot be what is asked about:

- a greeting at the start, as a sentence of its own ("Hi!", "Hello there.") or before a comma
  and a small letter ("Hi there, how do I…"); not before a capital ("Hello, Dolly!", "Good
  morning, Vietnam"), not before another greeting ("Hi, hello, hey: which is most formal?");
- thanks at the end as a sentence of their own, after a sentence mark ("…? Thanks!"); not
  after a comma ("…see you tomorrow, thanks") and not as the last word of a sentence ("Tell me
  about the show Cheers.");
- "please" at the end as ", please" before the closing question mark ("…, please?").

A request that is nothing but courtesy keeps it: "Hi" is not "Hello".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stepchat.core.textgate.lexicon import GREETING_WORDS, GREETINGS, PLEASE, THANKS
from stepchat.core.textgate.literal import literal_spans, target_start
from stepchat.core.textgate.scan import LINE_BREAKS

_GREETING_SENTENCE = re.compile(r"\s*([A-Za-z]+(?: +[A-Za-z]+)?) *([.!]+)(?=\s)[ \t]*(?=\s*\S)")
_GREETING_CLAUSE = re.compile(r"\s*([A-Za-z]+(?: +[A-Za-z]+)?) *,(?=\s)[ \t]*(?=\s*(\w+))")
"""A greeting and the spaces after it on its line: never a line break or the next line's
indentation, which Markdown, YAML and Python read."""
_FIRST_SENTENCE = re.compile(r"\s*([^.!?]*)")
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
    thanks = _thanks_start(text)
    if thanks is not None and thanks >= target_start(text):
        thanks = None
    text = _cut_end(text, thanks)
    while (please := _PLEASE.search(text)) and please.start() < target_start(text) and (
        cut := _cut_end(text, please.start())
    ) != text:
        text = cut
    sentence = _GREETING_SENTENCE.match(text)
    if sentence and _greeting(sentence.group(1)) and not _line_of_text(text[sentence.end():]):
        return Framed(text[sentence.end():])
    clause = _GREETING_CLAUSE.match(text)
    if clause and _greeting(clause.group(1)) and _continues(
        clause.group(2), text[clause.end():], shouted=text == text.upper()
    ):
        return Framed(text[clause.end():], resumed=True)
    return Framed(text)


def _thanks_start(text: str) -> int | None:
    found = _THANKS.search(text)
    if found is None:
        return None
    words = found.group(1).split()
    lower = [w.lower() for w in words]
    as_written = " ".join(words)
    plain = " ".join(lower)
    shapes = (plain, plain[:1].upper() + plain[1:], plain.upper())
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


def _greeting(phrase: str) -> bool:
    return tuple(phrase.lower().split()) in GREETINGS


def _continues(word: str, rest: str, *, shouted: bool) -> bool:
    """A greeting's comma is followed by the request: a small letter (any letter in a request
    in capitals, where case says nothing), not another greeting, and a sentence of more than
    one word ("Hello, world! How do I print that?" greets no one)."""
    first = _FIRST_SENTENCE.match(rest)
    several = first is not None and len(first.group(1).split()) > 1
    return (word[:1].islower() or shouted) and word.lower() not in GREETING_WORDS and several
