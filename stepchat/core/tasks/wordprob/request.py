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
other proper noun that stays (`_check_names`).
Any other word may change only in a place where earlier solved instances of the cached
problem show a different word (`varying`): the recomputation then asks those instances
whether the solution's constants depend on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache

from stepchat.core.tasks.wordprob.atoms import (
    Atom,
    ambiguous_group,
    atoms,
    decimal_mark,
    figures,
    group_sign,
)
from stepchat.core.tasks.wordprob.givennames import (
    broken_by_renaming,
    is_given_name,
    is_ordinary_word,
    languages_of,
    may_be_form,
    same_gender,
)
from stepchat.core.tasks.wordprob.meaningwords import carries_meaning
from stepchat.core.tasks.wordprob.multwords import FactorWord, factor_words
from stepchat.core.tasks.wordprob.numwords import common_reading, readings, stated_values
from stepchat.core.tasks.wordprob.scripts import is_caseless, unspaced, word_count
from stepchat.core.tasks.wordprob.slot import Slot
from stepchat.core.textgate.normalize import reduce_text

MIN_NUMBERS = 1
MIN_NUMBER_WORDS = 2
"""Different number words of one language that claim a prompt with no digit ("A plague
infects ten people; each infects six others")."""
MIN_WORDS = 10
MAX_TOKENS = 800
NOUN_CAPITALS = 0.2
"""Share of capitalised words in mid-sentence above which capitals do not mark names."""
_SENTENCE_END = frozenset(".!?:;\n…。？！")
_FULL_STOPS = frozenset(".!?\n。？！")
ABBREVIATION = 2
"""The longest word whose full stop ends no sentence: "e.g.", "p. ej.", "Mr."."""


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
    marks_names = max(_capital_share(old_atoms), _capital_share(new_atoms)) <= NOUN_CAPITALS
    read = _NameReading(old_atoms, new_atoms, evidence, marks_names)
    named = frozenset(
        i for i in varying if i < len(old_atoms) and marks_names
        and _named_there(old_atoms, new_atoms, i, read)
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
                _check_meaning_words(a, b)
                _consistent(renames, a.text, b.text, "word")
                words.add(a.text)
                word_at.append(index)
            elif a.is_title and b.is_title:
                _check_name_place(a, b, old_atoms, index)
                _consistent(renames, a.text, b.text, "name")
                names.add(a.text)
            else:
                raise NotSame(f"the words changed: {a.text!r} -> {b.text!r}")
            renamed_at.append((index, b.text))
    names -= words
    stated = frozenset(i for i, a in enumerate(old_atoms) if a.kind == "word" and (
        stated_values(a.text) or a.text in renames))
    factors = tuple(set(factor_words(old_atoms, stated)) & set(factor_words(new_atoms, stated)))
    _check_renames({a: renames[a] for a in names | words}, old_atoms, new_atoms)
    _check_names({a: renames[a] for a in names}, read)
    return Alignment(mark, tuple(slots), renames, currency, tuple(sorted(names)),
                     tuple(sorted(words)), tuple(renamed_at), tuple(word_at),
                     tuple(sorted(factors, key=lambda f: f.position)))


def _named_there(old: Sequence[Atom], new: Sequence[Atom], index: int, read: _NameReading) -> bool:
    """Whether a capitalised word renamed where earlier instances varied passes every test
    a name must pass. One that does not is a word like any other there, never renamed
    against the instance recomputed from (`guards.check_renamed`): "Trzech" to "Pięciu" at
    a sentence's start, where an instance had "Czterech", may be a count; nothing shows it
    is a name."""
    a, b = old[index], new[index]
    if not (a.kind == b.kind == "word" and a.text != b.text and a.is_title and b.is_title):
        return False
    try:
        _check_name_place(a, b, old, index)
        _check_names({a.text: b.text}, read)
    except NotSame:
        return False
    return True


def _check_name_place(a: Atom, b: Atom, old: Sequence[Atom], index: int) -> None:
    """Only a word used as a name may be renamed: two given names of one gender
    (`givennames`), not a word of the closed list that carries meaning (North, Monday,
    French, Summer), and not a word that starts a sentence and is
    followed by a number, which is how an instruction starts ("Add 5 apples"), never a
    sentence about a name ("Ana has 5"), nor a number word ("Четыре ученика пошли в кафе
    «Четыре медведя»": renamed, the count it states would stay with the digits)."""
    _check_meaning_words(a, b)
    for word in (a.text, b.text):
        if readings(word):
            raise NotSame(f"{a.text!r} -> {b.text!r}: {word!r} is a number word")
        if not is_given_name(word):
            raise NotSame(f"{a.text!r} -> {b.text!r}: {word!r} is no given name this reader "
                          "knows, and a place, a holiday or a sign can turn a choice")
    if not same_gender(a.text, b.text):
        raise NotSame(f"{a.text!r} -> {b.text!r}: not names of one gender, so a gendered "
                      "word ('the girl', 'she') could point at another person")
    if not _mid_sentence(old, index) and index + 1 < len(old) and old[index + 1].kind == "num":
        raise NotSame(f"{a.text!r} -> {b.text!r}: a sentence that starts with a word and "
                      "a number gives an instruction, not a name")


def _check_meaning_words(a: Atom, b: Atom) -> None:
    """Words of the closed list (compass points, weekdays, months, nationalities) change
    the problem whatever earlier instances show: never renamed."""
    for word in (a.text, b.text):
        if carries_meaning(word):
            raise NotSame(f"{a.text!r} -> {b.text!r}: {word!r} carries meaning")


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


def _check_names(renames: dict[str, str], read: _NameReading) -> None:
    """Renames are names: consistent both ways, capitals mark names in this text, the
    renamed names stand to each other as before (`givennames.broken_by_renaming`), and no
    word that may name a person stays, in any place or case: a given name (another
    person's, or a listed form of a renamed one: Petra beside Petr; in any case, "liz"
    and "BILL" too, except a common word of the text's language written in lower case:
    "the bill"), a word that begins as a renamed name does (Petrovi, "jack"), a lone
    capital (an initial: "K." for Catherine), or a word of a script without capitals.
    Common words are those of the text's own language (`givennames.languages_of`):
    Italian "di" is no English word, and Di is Diana. Given `evidence` (the cached
    solution; without it these tests wait for the solution):
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
        return
    if not read.capitals_mark_names:
        raise NotSame("capitals do not mark names in this text: "
                      f"{next(iter(renames))!r} changed")
    if (broken := broken_by_renaming(renames)) is not None:
        raise NotSame(broken)
    renamed = frozenset((*renames, *renames.values()))
    languages, stays, form = _staying_words(read.words, renamed)
    if stays is not None:
        raise NotSame(f"{next(iter(renames))!r} changed beside {stays!r}, a given name "
                      "that stays: it may be one person's other form (Daniel and Daniela, "
                      "William and Bill, 'liz'), and the rename would move what happens to "
                      "them")
    if form is not None:
        raise NotSame(f"{next(iter(renames))!r} changed beside {form!r}, which may be a "
                      "form of a renamed name (Petrovi for Petr, an initial, a word of a "
                      "script without capitals) that stays with the old person")
    if read.solution is None:
        return
    for a in renames:
        if a not in read.after_word:
            raise NotSame(f"{a!r} changed and is never written with its capital right after "
                          "another word: at a sentence's start, or after a dash or a "
                          "bracket, a number word ('Trzech', 'Två') is capitalised as a "
                          "name is")
        if a not in read.in_solution and read.in_request[a] < 2:
            raise NotSame(f"{a!r} changed and is written neither in the solution nor twice "
                          "in the request: a word written once may be a place or a time "
                          "('from France', 'on Mon') that the solution's choice depends on")
    unshown = sorted(w for w in read.capitalised - renamed
                     if not is_ordinary_word(w, languages))
    if unshown:
        raise NotSame(f"{next(iter(renames))!r} changed beside {unshown[0]!r}, which stays "
                      "and is no common word: it may be a name (a nickname, Vova for "
                      "Vladimir) of a person the rename leaves behind")
    kept = sorted((read.proper_in_request - set(renames)) | (read.proper_in_solution - renamed))
    if kept:
        raise NotSame(f"{next(iter(renames))!r} changed beside {kept[0]!r}, a proper noun that "
                      "stays: what the solution chose may depend on how they relate "
                      "(France and Europe, Mon and weekdays)")


class _NameReading:
    """What the name tests read of two requests and the cached solution (None before it
    is in hand), read once per alignment: every place a name may vary is tested alone."""

    def __init__(self, old: Sequence[Atom], new: Sequence[Atom],
                 solution: list[list[Atom]] | None, capitals_mark_names: bool) -> None:
        self.old, self.new, self.solution = old, new, solution
        self.capitals_mark_names = capitals_mark_names
        """Few enough words mid-sentence are capitalised in either request
        (`NOUN_CAPITALS`)."""

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
                         and _mid_sentence(text, i))


@lru_cache(maxsize=1024)
def _staying_words(
    words: frozenset[str], renamed: frozenset[str]
) -> tuple[frozenset[str], str | None, str | None]:
    """Of the requests' words that a rename leaves (`words` less `renamed`): the text's
    language, the first given name among them, and the first that may be a renamed name's
    form. Remembered: a request is aligned with every instance of its problem, each place
    a name may vary tried on its own, and the answer depends on the words alone."""
    staying = words - renamed
    languages = languages_of(w for w in staying if w.islower())
    stays = sorted(w for w in staying if is_given_name(w)
                   and not (w.islower() and is_ordinary_word(w, languages)))
    forms = sorted(w for w in staying if _initial(w) or is_caseless(w)
                   or any(may_be_form(w, name) for name in renamed))
    return languages, next(iter(stays), None), next(iter(forms), None)


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


def _mid_sentence(items: Sequence[Atom], i: int) -> bool:
    if i == 0:
        return False
    before = items[i - 1]
    return not (before.kind == "mark" and (
        before.text in _SENTENCE_END or before.text in "\"“”«»'‘’"))


def _capital_share(items: Sequence[Atom]) -> float:
    words = [a for i, a in enumerate(items) if a.kind == "word" and _mid_sentence(items, i)
             and a.text[:1].isalpha() and (a.text[:1].isupper() or a.text[:1].islower())]
    if not words:
        return 0.0
    return sum(1 for a in words if a.text[:1].isupper()) / len(words)


def _first_difference(old: Sequence[Atom], new: Sequence[Atom]) -> str:
    for a, b in zip(old, new, strict=False):
        if a.kind == "num" and b.kind == "num":
            continue
        if a.text != b.text:
            return f"the words changed: {a.text!r} -> {b.text!r}"
    return "the requests differ in length"
