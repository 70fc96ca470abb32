"""Whether the words a new request renames are people's names, and whether anything that
may name one of them stays.

A rename moves what happens to a person onto a new name; it is safe only when the renamed
words are given names of one gender, used as names, and nothing else in the requests or
the cached solution may still name the old person (another form of the name, an initial,
a nickname) or relate to the name in words (a place, a weekday). Every test here gives
the reason it fails, or None; the alignment (`request.align`) turns a reason into
`NotSame`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cached_property, lru_cache

from stepchat.core.tasks.wordprob.atoms import Atom
from stepchat.core.tasks.wordprob.givennames import (
    broken_by_renaming,
    is_given_name,
    is_ordinary_word,
    languages_of,
    may_be_form,
    same_gender,
)
from stepchat.core.tasks.wordprob.meaningwords import carries_meaning
from stepchat.core.tasks.wordprob.numwords import readings
from stepchat.core.tasks.wordprob.scripts import is_caseless

NOUN_CAPITALS = 0.2
"""Share of capitalised words in mid-sentence above which capitals do not mark names."""
_SENTENCE_END = frozenset(".!?:;\n…。？！")
_FULL_STOPS = frozenset(".!?\n。？！")
_QUOTES = frozenset("\"“”«»„‚‘「」『』")
"""Quotation marks; not the apostrophe (`'`, `’`), which joins "l'école" and "Thomas's"."""
STRETCH_WORDS = 4
"""Distinct lower-case words a sentence or quotation needs before its own language counts
against the text's: fewer are too often read as another language ("week end elle a
résolu" as English)."""
ABBREVIATION = 2
"""The longest word whose full stop ends no sentence: "e.g.", "p. ej.", "Mr."."""


def named_there(old: Sequence[Atom], new: Sequence[Atom], index: int, read: NameReading) -> bool:
    """Whether a capitalised word renamed where earlier instances varied passes every test
    a name must pass. One that does not is a word like any other there, never renamed
    against the instance recomputed from (`guards.check_renamed`): "Trzech" to "Pięciu" at
    a sentence's start, where an instance had "Czterech", may be a count; nothing shows it
    is a name."""
    a, b = old[index], new[index]
    if not (a.kind == b.kind == "word" and a.text != b.text and a.is_title and b.is_title):
        return False
    return why_not_a_name_here(a, b, old, index) is None and (
        why_not_names({a.text: b.text}, read) is None)


def why_not_a_name_here(a: Atom, b: Atom, old: Sequence[Atom], index: int) -> str | None:
    """Why `a` renamed `b` at `index` of the cached request is no rename of a name, or
    None. Only a word used as a name may be renamed: two given names of one gender
    (`givennames`), not a word of the closed list that carries meaning (North, Monday,
    French, Summer), and not a word that starts a sentence and is
    followed by a number, which is how an instruction starts ("Add 5 apples"), never a
    sentence about a name ("Ana has 5"), nor a number word ("Четыре ученика пошли в кафе
    «Четыре медведя»": renamed, the count it states would stay with the digits)."""
    if (meaning := meaning_change(a, b)) is not None:
        return meaning
    for word in (a.text, b.text):
        if readings(word):
            return (f"{a.text!r} -> {b.text!r}: {word!r} is a number word")
        if not is_given_name(word):
            return (f"{a.text!r} -> {b.text!r}: {word!r} is no given name this reader "
                    "knows, and a place, a holiday or a sign can turn a choice")
    if not same_gender(a.text, b.text):
        return (f"{a.text!r} -> {b.text!r}: not names of one gender, so a gendered "
                "word ('the girl', 'she') could point at another person")
    if not mid_sentence(old, index) and index + 1 < len(old) and old[index + 1].kind == "num":
        return (f"{a.text!r} -> {b.text!r}: a sentence that starts with a word and "
                "a number gives an instruction, not a name")
    return None


def meaning_change(a: Atom, b: Atom) -> str | None:
    """Why changing `a` to `b` changes the problem, or None: words of the closed list
    (compass points, weekdays, months, nationalities) change it whatever earlier
    instances show, and are never renamed."""
    for word in (a.text, b.text):
        if carries_meaning(word):
            return f"{a.text!r} -> {b.text!r}: {word!r} carries meaning"
    return None


def why_not_names(renames: dict[str, str], read: NameReading) -> str | None:
    """Why the renames are not all names renamed, or None. Renames are names: capitals
    mark names in this text, the renamed names stand to each other as before
    (`givennames.broken_by_renaming`), and no word that may name a person stays, in any
    place or case: a given name (another person's, or a listed form of a renamed one:
    Petra beside Petr; in any case, "liz" and "BILL" too, except a common word of the
    text's language written in lower case: "the bill"), a word that begins as a renamed
    name does (Petrovi, "jack"), a lone capital (an initial: "K." for Catherine), or a
    word of a script without capitals. Common words are those of the text's own language
    (`givennames.languages_of`): Italian "di" is no English word, and Di is Diana. Given
    the cached solution (`NameReading.solution`; without it these tests wait for it):
    - each renamed word is written with its capital right after another word of the
      request (at a sentence's start, or after a dash or a bracket, a number word of a
      language this reader does not read, "Trzech", is capitalised as a name is), and in
      the solution (the reasoning carries it as an actor) or twice in the request: a
      word written once ("stamps from France", "on Mon", "Add another 5") may be a
      place, a time or an instruction;
    - every word of two letters or more that stays and has a capital anywhere ("KASIA",
      "wIN"), in the request or in the cached solution ("Peg is short for Margaret"
      beside a request's "peg"), is a common word of the text's language ("How",
      "Today"); any other may be a name a rename leaves with the old person (a nickname,
      Vova for Vladimir, at a sentence's start). The word written in lower case
      elsewhere shows nothing: "Peg" beside "a peg" is still Margaret;
    - a capitalised word that stays begins a sentence of the request (`_after_full_stop`:
      not after a colon, a quote or "e.g.") or of a line of the solution; anywhere else
      it is a proper noun, and a renamed word may relate to it ("from France" and
      "European stamps"), which only words decide.
    Forgiven, and listed: a short form that is a common word of the text's language, at
    a sentence's start ("Win" for Edwin) or in lower case ("bill"), and one written only
    in lower case that the solution never capitalises ("peg")."""
    if not renames:
        return None
    if not read.capitals_mark_names:
        return ("capitals do not mark names in this text: "
                f"{next(iter(renames))!r} changed")
    if (broken := broken_by_renaming(renames)) is not None:
        return broken
    renamed = frozenset((*renames, *renames.values()))
    languages = read.languages
    stays, form = _staying_words(read.words, renamed, languages, read.elsewhere)
    if stays is not None:
        return (f"{next(iter(renames))!r} changed beside {stays!r}, a given name "
                "that stays: it may be one person's other form (Daniel and Daniela, "
                "William and Bill, 'liz'), and the rename would move what happens to "
                "them")
    if form is not None:
        return (f"{next(iter(renames))!r} changed beside {form!r}, which may be a "
                "form of a renamed name (Petrovi for Petr, an initial, a word of a "
                "script without capitals) that stays with the old person")
    if read.solution is None:
        return None
    for a in renames:
        if a not in read.after_word:
            return (f"{a!r} changed and is never written with its capital right after "
                    "another word: at a sentence's start, or after a dash or a "
                    "bracket, a number word ('Trzech', 'Två') is capitalised as a "
                    "name is")
        if a not in read.in_solution and read.in_request[a] < 2:
            return (f"{a!r} changed and is written neither in the solution nor twice "
                    "in the request: a word written once may be a place or a time "
                    "('from France', 'on Mon') that the solution's choice depends on")
    unshown = sorted(w for w in read.capitalised - renamed
                     if w in read.elsewhere or not is_ordinary_word(w, languages))
    if unshown:
        return (f"{next(iter(renames))!r} changed beside {unshown[0]!r}, which stays "
                "and is no common word: it may be a name (a nickname, Vova for "
                "Vladimir) of a person the rename leaves behind")
    kept = sorted((read.proper_in_request - set(renames)) | (read.proper_in_solution - renamed))
    if kept:
        return (f"{next(iter(renames))!r} changed beside {kept[0]!r}, a proper noun that "
                "stays: what the solution chose may depend on how they relate "
                "(France and Europe, Mon and weekdays)")
    return None


class NameReading:
    """What the name tests read of two requests and the cached solution (None before it
    is in hand), read once per alignment: every place a name may vary is tested alone."""

    def __init__(self, old: Sequence[Atom], new: Sequence[Atom],
                 solution: list[list[Atom]] | None, capitals_mark_names: bool) -> None:
        self.old, self.new, self.solution = old, new, solution
        self.capitals_mark_names = capitals_mark_names
        """Few enough words mid-sentence are capitalised in either request
        (`NOUN_CAPITALS`)."""

    @cached_property
    def languages(self) -> frozenset[str]:
        """The text's language: that of the requests' lower-case words
        (`givennames.languages_of`); none where a sentence or quotation of the cached
        request with `STRETCH_WORDS` or more of its own has another. A quoted sentence
        in Czech beside a short English frame made Czech the text's language, and "Tam"
        (Thomas) at an English sentence's start passed as a Czech word."""
        whole = languages_of(w for w in self.words if w.islower())
        for stretch in _stretches(self.old) if whole else ():
            lower = {w for w in stretch if w.islower()}
            if len(lower) >= STRETCH_WORDS and languages_of(lower) not in (whole, frozenset()):
                return frozenset()
        return whole

    @cached_property
    def elsewhere(self) -> frozenset[str]:
        """Words written in a sentence or quotation (of either request or the solution)
        whose own words read as another language than the text's, however few: such a
        word is never forgiven as a common word of the text's language ("Tam gives 4
        away" after a long Czech quotation)."""
        texts = [self.old, self.new, *(self.solution or ())]
        found: set[str] = set()
        for stretch in (stretch for text in texts for stretch in _stretches(text)):
            own = languages_of(w for w in stretch if w.islower())
            if own and own != self.languages:
                found.update(stretch)
        return frozenset(found)

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(a.text for a in (*self.old, *self.new) if a.kind == "word")

    @cached_property
    def after_word(self) -> frozenset[str]:
        """Words of the cached request written with a capital right after another word."""
        old = self.old
        return frozenset(a.text for i, a in enumerate(old)
                         if a.is_title and i and old[i - 1].kind == "word")

    @cached_property
    def in_request(self) -> Counter[str]:
        return Counter(a.text for a in self.old)

    @cached_property
    def in_solution(self) -> frozenset[str]:
        return frozenset(a.text for text in self.solution or () for a in text)

    @cached_property
    def capitalised(self) -> frozenset[str]:
        """Words of two letters or more with a capital anywhere, in the requests or the
        solution."""
        solution_words = (a.text for text in self.solution or () for a in text
                          if a.kind == "word")
        return frozenset(w for w in (*self.words, *solution_words)
                         if len(w) > 1 and _has_capital(w))

    @cached_property
    def proper_in_request(self) -> frozenset[str]:
        """Capitalised words of the cached request that begin no sentence."""
        old = self.old
        return frozenset(a.text for i, a in enumerate(old) if a.kind == "word"
                         and len(a.text) > 1 and _has_capital(a.text)
                         and not _after_full_stop(old, i))

    @cached_property
    def proper_in_solution(self) -> frozenset[str]:
        """Capitalised words of the solution written mid-sentence."""
        return frozenset(a.text for text in self.solution or () for i, a in enumerate(text)
                         if a.kind == "word" and len(a.text) > 1 and _has_capital(a.text)
                         and mid_sentence(text, i))


@lru_cache(maxsize=1024)
def _staying_words(
    words: frozenset[str], renamed: frozenset[str], languages: frozenset[str],
    elsewhere: frozenset[str],
) -> tuple[str | None, str | None]:
    """Of the requests' words that a rename leaves (`words` less `renamed`): the first
    given name among them (a lower-case common word of `languages` apart, unless written
    `elsewhere`: in a stretch of another language), and the first
    that may be a renamed name's form. Remembered: a request is aligned with every
    instance of its problem, each place a name may vary tried on its own, and the answer
    depends on the words alone."""
    staying = words - renamed
    stays = sorted(w for w in staying if is_given_name(w)
                   and not (w.islower() and w not in elsewhere
                            and is_ordinary_word(w, languages)))
    forms = sorted(w for w in staying if _initial(w) or is_caseless(w)
                   or any(may_be_form(w, name) for name in renamed))
    return next(iter(stays), None), next(iter(forms), None)


def _stretches(items: Sequence[Atom]) -> list[list[str]]:
    """The words of each sentence or quotation of a text: split at every sentence end and
    every quotation mark."""
    found: list[list[str]] = [[]]
    for atom in items:
        if atom.kind == "mark" and (atom.text in _SENTENCE_END or atom.text in _QUOTES):
            found.append([])
        elif atom.kind == "word":
            found[-1].append(atom.text)
    return [words for words in found if words]


def _initial(word: str) -> bool:
    """Whether `word` is one capital letter: it may be an initial ("J." for John, "K." for
    Catherine), and the letter of a common word ("A", Spanish "Y") cannot show it is not
    one."""
    return len(word) == 1 and word.isupper()


def _has_capital(word: str) -> bool:
    """A capital anywhere ("Win", "WIN", "wIN") may mark a name."""
    return any(c.isupper() for c in word)


def _after_full_stop(items: Sequence[Atom], i: int) -> bool:
    """Whether the word at `i` begins the text or follows a full stop, a question or an
    exclamation: after a colon, a semicolon, a quote, a bracket or an ellipsis a capital
    may be a name's, as mid-sentence, and so after the full stop of an abbreviation, a
    word of one or two letters ("e.g.", "p. ej.", "Mr.")."""
    if i == 0:
        return True
    before = items[i - 1]
    if before.kind != "mark" or before.text not in _FULL_STOPS:
        return False
    return before.text != "." or i < 2 or not (
        items[i - 2].kind == "word" and len(items[i - 2].text) <= ABBREVIATION)


def mid_sentence(items: Sequence[Atom], i: int) -> bool:
    if i == 0:
        return False
    before = items[i - 1]
    return not (before.kind == "mark" and (
        before.text in _SENTENCE_END or before.text in "\"“”«»'‘’"))


def capital_share(items: Sequence[Atom]) -> float:
    words = [a for i, a in enumerate(items) if a.kind == "word" and mid_sentence(items, i)
             and a.text[:1].isalpha() and (a.text[:1].isupper() or a.text[:1].islower())]
    if not words:
        return 0.0
    return sum(1 for a in words if a.text[:1].isupper()) / len(words)
