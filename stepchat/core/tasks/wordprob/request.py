"""The request side of a word problem: what claims a prompt, and whether two are the same.

Two requests are the same problem when their atoms match one to one and every difference
is a slot: a number (in any written form the atoms read, keeping percent and money as
they were; a currency sign never changes: "2 dollars" in words would not follow it), or a
proper name renamed the same way everywhere. Every other character is meaning: "more" for
"fewer", "twice" for "three times", "each" for "in total" all decline, in any language,
without a word list.

A proper name is a word written with a capital and then lower case, in a text that does
not capitalise its common nouns (German does: there a capital tells nothing and names
are never renamed), written in the cached solution or twice in the request, beside no
other proper noun that stays (`names.why_not_names`).
Any other word may change only in a place where earlier solved instances of the cached
problem show a different word (`varying`): the recomputation then asks those instances
whether the solution's constants depend on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import pairwise

from stepchat.core.tasks.wordprob.atoms import (
    Atom,
    ambiguous_group,
    atoms,
    decimal_mark,
    figures,
    group_sign,
)
from stepchat.core.tasks.wordprob.multwords import FactorWord, factor_words
from stepchat.core.tasks.wordprob.names import (
    NOUN_CAPITALS,
    NameReading,
    capital_share,
    meaning_change,
    named_there,
    why_not_a_name_here,
    why_not_names,
)
from stepchat.core.tasks.wordprob.numwords import common_reading, readings, stated_values
from stepchat.core.tasks.wordprob.scripts import unspaced, word_count
from stepchat.core.tasks.wordprob.slot import Slot
from stepchat.core.textgate.normalize import reduce_text

MIN_NUMBERS = 1
MIN_NUMBER_WORDS = 2
"""Different number words of one language that claim a prompt with no digit ("A plague
infects ten people; each infects six others")."""
MIN_WORDS = 10
MAX_TOKENS = 800


def read_atoms(prompt: str, mark: str | None = None) -> list[Atom]:
    return atoms(prompt, mark or decimal_mark(prompt) or ".")


def is_word_problem(prompt: str) -> bool:
    """Numbers the prompt states, in digits or number words, and prose around them.

    Read from the text gate's reduction of the prompt, so that two prompts the gate takes
    for the same request (a "please", a question mark, a contraction apart) are claimed
    alike: an answer without arithmetic is open text, reused as the text kind would, and a
    near repeat must reach it under the same kind. Words are counted as `word_count` does:
    a Thai word with its vowel signs is a word, a Chinese sentence is several."""
    if "```" in prompt:
        return False
    tokens = reduce_text(prompt).tokens
    if len(tokens) > MAX_TOKENS:
        return False
    numbers = sum(1 for t in tokens if any(c.isdigit() for c in t.text))
    words = sum(word_count(t.text) for t in tokens if t.kind == "word")
    if words < MIN_WORDS:
        return False
    return numbers >= MIN_NUMBERS or _counts_in_one_language(
        t.text for t in tokens if t.kind == "word"
    )


def _counts_in_one_language(words: Iterable[str]) -> bool:
    """Whether `MIN_NUMBER_WORDS` different words read as cardinals of at least 2 in one
    language. One word alone, or said twice, is as often a word of another language
    (English "to" is Danish 2, "once" Spanish 11) or an article ("one", "un") as a count."""
    found: dict[str, set[str]] = {}
    for word in words:
        for language, value in readings(word):
            if value >= 2:
                found.setdefault(language, set()).add(word.lower())
    return any(len(counted) >= MIN_NUMBER_WORDS for counted in found.values())


def signature(prompt: str) -> str:
    """The request with numbers, number words and capitalised words masked: variants
    share it, so the newest entry of a problem (with its earlier instances) is found
    without an embedding."""
    parts = []
    for atom in read_atoms(prompt):
        if atom.kind == "num":
            parts.append("#%" if atom.percent else ("#$" if atom.currency else "#"))
        elif atom.is_title:
            parts.append("N")
        elif atom.kind == "word" and readings(atom.text):
            parts.append("#w")
        else:
            parts.append(atom.text)
    return "wordprob|" + " ".join(parts)


@dataclass(frozen=True)
class Alignment:
    """How a new request maps onto a cached one: slots, renames and the decimal mark."""

    mark: str
    slots: tuple[Slot, ...]
    renames: dict[str, str]
    currency: dict[str, str]
    names: tuple[str, ...] = ()
    """The renamed words that are names (the others in `renames` are number words)."""
    words: tuple[str, ...] = ()
    """Renamed words in places earlier instances showed to vary (objects, units, names)."""
    renamed_at: tuple[tuple[int, str], ...] = ()
    """Where names and words were renamed (atom positions in the cached request), and the
    new word there."""
    word_at: tuple[int, ...] = ()
    """Where `words` were renamed."""
    factors: tuple[FactorWord, ...] = ()
    """Multiplier and fraction words ("twice", "two thirds") written alike in both
    requests: what constants of the solution they may account for is `wordfactors`."""

    @property
    def changes(self) -> int:
        return sum(s.changed for s in self.slots) + len(self.renames) + len(self.currency)


class NotSame(ValueError):
    """The requests differ in more than slots; the text says where."""


def align(
    cached: str, new: str, *extra: str, varying: frozenset[int] = frozenset()
) -> Alignment:
    """The alignment of `new` on `cached`, or NotSame with the first difference found.

    `extra` are texts read in the same decimal convention (the cached solution); `varying`
    are the atom positions of `cached` where a word may be renamed whatever it is."""
    mark = decimal_mark(cached, new, *extra)
    if mark is None:
        raise NotSame("the texts disagree on the decimal mark")
    old_atoms, new_atoms = atoms(cached, mark), atoms(new, mark)
    if len(old_atoms) != len(new_atoms):
        raise NotSame(_first_difference(old_atoms, new_atoms))
    slots: list[Slot] = []
    renames: dict[str, str] = {}
    names: set[str] = set()
    words: set[str] = set()
    renamed_at: list[tuple[int, str]] = []
    word_at: list[int] = []
    currency: dict[str, str] = {}
    evidence = [atoms(text, mark) for text in extra] if extra else None
    marks_names = max(capital_share(old_atoms), capital_share(new_atoms)) <= NOUN_CAPITALS
    read = NameReading(old_atoms, new_atoms, evidence, marks_names)
    named = frozenset(
        i for i in varying if i < len(old_atoms) and marks_names
        and named_there(old_atoms, new_atoms, i, read)
    )
    for index, (a, b) in enumerate(zip(old_atoms, new_atoms, strict=True)):
        if a.kind == "num" and b.kind == "num":
            if a.form() != b.form():
                raise NotSame(f"{a.text} became {b.text}: another kind of number")
            if ambiguous_group(a) != ambiguous_group(b) and not _grouped_alike(a, b):
                # Written alike, both requests read in one convention, whichever it is.
                # No other number decides it: a time (14.30) or a grid square (2,5)
                # looks like a decimal, and an earlier asker may write 2.05 € where
                # this one writes 1,899 €.
                raise NotSame(f"{a.text} became {b.text}: a three-digit group is thousands "
                              "or decimals as the language writes, and only the number "
                              "itself could say which")
            if a.value == b.value and a.text != b.text and (_zero_led(a) or _zero_led(b)):
                raise NotSame(f"{a.text} became {b.text}: the same value written with "
                              "leading zeros, as the tail of a longer number would be")
            if a.currency != b.currency:
                raise NotSame(f"{a.text} became {b.text}: a currency sign changed, and an "
                              "amount named in words ('2 dollars') would not change with it")
            # Decided with the solution in hand (`evidence`), as names are.
            if evidence is not None and _digits(a) != _digits(b) and (
                _joined_to_unspaced(old_atoms, index) and _scaled(a, evidence)
            ):
                raise NotSame(f"{a.text} became {b.text}: joined to a Chinese or Japanese "
                              "word, a number's digits can set its scale (9折 is 90%, 85折 "
                              "85%)")
            over = index >= 2 and old_atoms[index - 1].text == "/" and (
                old_atoms[index - 2].kind == "num"
                and old_atoms[index - 2].end == old_atoms[index - 1].start
                and old_atoms[index - 1].end == a.start)
            slots.append(Slot(a, b, over))
        elif a.kind == "word" and b.kind == "word" and a.text == b.text:
            # An unchanged number word still states a value the solution may use.
            slots.extend(Slot(_as_number(a, v), _as_number(b, v))
                         for v in sorted(stated_values(a.text)))
        elif a.kind == "word" and b.kind == "word" and (
            pair := common_reading(a.text, b.text)
        ) is not None:
            slots.append(Slot(_as_number(a, pair[0]), _as_number(b, pair[1])))
            _consistent(renames, a.text, b.text, "number word")
        elif a.kind != b.kind or a.text != b.text:
            if a.kind == b.kind == "word" and index in varying and index not in named:
                if (meaning := meaning_change(a, b)) is not None:
                    raise NotSame(meaning)
                _consistent(renames, a.text, b.text, "word")
                words.add(a.text)
                word_at.append(index)
            elif a.is_title and b.is_title:
                if (why := why_not_a_name_here(a, b, old_atoms, index)) is not None:
                    raise NotSame(why)
                _consistent(renames, a.text, b.text, "name")
                names.add(a.text)
            else:
                raise NotSame(f"the words changed: {a.text!r} -> {b.text!r}")
            renamed_at.append((index, b.text))
    if any(slot.changed for slot in slots) and (
        compound := compound_numeral(new, new_atoms)
    ) is not None:
        raise NotSame(f"{compound} is a number written in several words, each read as a "
                      "number of its own: its whole value is compared with no value that "
                      "changed (a threshold: more than two hundred fifty)")
    names -= words
    stated = frozenset(i for i, a in enumerate(old_atoms) if a.kind == "word" and (
        stated_values(a.text) or a.text in renames))
    factors = tuple(set(factor_words(old_atoms, stated)) & set(factor_words(new_atoms, stated)))
    _check_renames({a: renames[a] for a in names | words}, old_atoms, new_atoms)
    if (why := why_not_names({a: renames[a] for a in names}, read)) is not None:
        raise NotSame(why)
    return Alignment(mark, tuple(slots), renames, currency, tuple(sorted(names)),
                     tuple(sorted(words)), tuple(renamed_at), tuple(word_at),
                     tuple(sorted(factors, key=lambda f: f.position)))


def compound_numeral(text: str, items: Sequence[Atom]) -> str | None:
    """The first two number words of one language written as one numeral ("two hundred",
    "quatre-vingt", "twenty-five"): nothing but whitespace, dashes, joiners or markup
    between them (no letter, digit, or a mark that ends a clause or lists: `two  hundred`,
    `deux‑cent`, `to\u00adhundrede`, `two/hundred`). Each is read as its own value, so a
    condition on the numeral's whole value (more than two hundred fifty notebooks) is
    compared with nothing, and a count that crosses it kept the cached branch; two words of
    two languages ("to one": Danish 2, English 1) are no numeral."""
    words = [(i, a) for i, a in enumerate(items) if a.kind == "word"]
    for (i, a), (j, b) in pairwise(words):
        between = text[a.end:b.start]
        joined = all(a2.kind not in ("word", "num") for a2 in items[i + 1:j]) and not any(
            ch.isalnum() or ch in _SEPARATES for ch in between)
        if joined and {lang for lang, _ in readings(a.text)} & {
                lang for lang, _ in readings(b.text)}:
            return f"{a.text}{between}{b.text}"
    return None


_SEPARATES = frozenset(",;:.!?()[]{}\"'«»、，；：。！？")
"""Marks between two number words that end a clause or list them ("two, three"): no
numeral is written across them."""


def _as_number(word: Atom, value: int) -> Atom:
    return replace(word, kind="num", value=Fraction(value))


def _consistent(mapping: dict[str, str], old: str, new: str, what: str) -> None:
    if mapping.get(old, new) != new:
        raise NotSame(f"{old!r} became two different {what}s")
    mapping[old] = new


def _check_renames(renames: dict[str, str], old: Sequence[Atom], new: Sequence[Atom]) -> None:
    """A rename is one to one, and neither word is also written unchanged."""
    if len(set(renames.values())) != len(renames):
        raise NotSame("two words became one")
    old_words = {a.text for a in old if a.kind == "word"}
    new_words = {a.text for a in new if a.kind == "word"}
    for a, b in renames.items():
        if b in old_words or a in new_words:
            raise NotSame(f"{a!r} -> {b!r} is not a rename: both are in the requests")


def _grouped_alike(a: Atom, b: Atom) -> bool:
    """Whether, of one number written as a three-digit group (`800.000`) and the other,
    the other shows that mark grouping thousands (`1.600.000`): the slot's own writing
    says how to read it."""
    ambiguous, other = (a, b) if ambiguous_group(a) else (b, a)
    sign = group_sign(other)
    return sign is not None and sign in ambiguous.text


def _zero_led(atom: Atom) -> bool:
    """Whether the number is written with a leading zero before other digits (`08`, `000`):
    how the digits after the first of `408` or `1 000` read alone."""
    written = figures(atom)
    return len(written) > 1 and written[0] == "0" and written[1].isdigit()


def _digits(atom: Atom) -> int:
    """How many digits the number's whole part is written with."""
    return len(str(abs(int(atom.value or 0))))


def _scaled(number: Atom, solution: list[list[Atom]]) -> bool:
    """Whether the solution writes a power of ten, the number over one (0.85 for 85) or
    the number as a percent (85%): how it reads the number's scale."""
    value = number.value or Fraction(0)
    for atom in (a for line in solution for a in line if a.kind == "num" and a.value):
        v = atom.value or Fraction(0)
        if (atom.percent and v == value) or any(
            v == Fraction(10) ** k or (value and v == value / Fraction(10) ** k)
            for k in range(1, 6)
        ):
            return True
    return False


def _joined_to_unspaced(items: Sequence[Atom], i: int) -> bool:
    """The number at `i` touches a letter of a script written without spaces."""
    return any(
        0 <= j < len(items) and items[j].kind == "word" and unspaced(items[j].text[0])
        and (items[j].end == items[i].start or items[i].end == items[j].start)
        for j in (i - 1, i + 1)
    )


def _first_difference(old: Sequence[Atom], new: Sequence[Atom]) -> str:
    for a, b in zip(old, new, strict=False):
        if a.kind == "num" and b.kind == "num":
            continue
        if a.text != b.text:
            return f"the words changed: {a.text!r} -> {b.text!r}"
    return "the requests differ in length"
