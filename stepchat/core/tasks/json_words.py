"""The words a stated JSON value is made of: names, numbers, quoted text, lists, emails.

Each reader takes the prompt and a position and returns a `Value` (what was written, what it
means as JSON, where it lies) or None, so the cue readers can ask "is there a value right
here?" without re-implementing what a name or a number looks like.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

UPPER = "A-ZÀ-ÖØ-ÞĀ-ŽΑ-ΩЀ-Я"
CASELESS = "\u0590-\u06ff\u0900-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
"""Scripts without capitals (Hebrew, Arabic, Indic, Thai, kana, CJK, Hangul): a word in one
of them is a name wherever a capitalised word would be (`李雷`)."""
_WHOLE = r"(?![+#]|\.\w)"
"""A name ends its token: `C` is not read out of `C++`, nor `Next` out of `Next.js`."""
_CAP = (rf"(?:(?:[{UPPER}]\.){{1,4}}(?=[ \t]*[{UPPER}])|[{UPPER}{CASELESS}][\w'’\-]*+{_WHOLE})")
_PARTICLE = r"(?:de|da|do|dos|das|du|del|della|di|van|von|der|den|la|le|el|al|bin|ibn|y)"
PROPN = rf"{_CAP}(?:[ \t]+(?:{_PARTICLE}[ \t]+){{0,2}}{_CAP}){{0,5}}"
"""A name of up to six capitalised words, with particles between (`Daphne du Maurier`)."""
NUMBER = (r"(?<!\d)(?<!\d[.,])(?:[-−]?\d{1,3}(?:,\d{3}){2,6}+|[-−]?\d{1,18}+(?:\.\d{1,12}+)?+)"
          r"(?![\d,.]\d)")
"""A number a person would state; a longer run of digits is not read as one (nor converted).
Commas group thousands only in two or more groups (`2,700,000`); `1,000` could be one
thousand or one, and a grouped number with decimals (`1,000.50`, `1.000,50`) is written
differently in different countries, so neither is read (see `ambiguous_number`)."""

_PROPN = re.compile(PROPN)
DASHES = "‐‑‒–—―﹣－"
"""Dashes that are not a minus sign: before a digit they make the number unreadable (`–3`
may be -3 or a range's end), so it is never read. U+2212 (−) is a minus."""
_NUMBER = re.compile(rf"(?<![\w.\-/{DASHES}])(?:{NUMBER})(?![\w\-/]|[.,]\d)")
_QUOTED = re.compile(
    r"\"(?P<a>[^\"\n]{1,80})\"|(?<!\w)'(?P<b>[^'\n]{1,80})'(?!\w)|“(?P<c>[^”\n]{1,80})”"
    r"|‘(?P<d>[^’\n]{1,80})’"
)
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b"
    rf"|\b\d{{1,2}} {_MONTH} \d{{4}}\b"
)
_IDENT = re.compile(r"[A-Za-z][\w.\-]*[\d_\-][\w\-]*|[a-z]{2,}\d+|[a-z][\w\-]*(?:\.[\w\-]+)+")
"""Handles, codes, ids and hosts: `jdoe_1`, `bob42`, `acme-corp`, `AB-123`, `db.internal`."""
_SYMBOLIC = re.compile(r"\.?[A-Za-z][\w\-]*(?:\.[A-Za-z][\w\-]*)*(?:\+\+|\+|#)?(?![\w+#]|\.\w)")
"""Names written with symbols, read whole: `C++`, `C#`, `F#`, `.NET`, `Next.js`, `Node.js`."""
_WORD = re.compile(r"[a-z][a-z'\-]*")
_BOOL = re.compile(r"(?i:true|false|yes|no)\b")
_END = re.compile(
    r"\s*(?:[,;.:)!?]|$|\s(?:and|with|from|in|who|which|that|whose|for|to|but|or|as|by)\b)"
)
"""What may follow a bare value: punctuation, the end, or a word that starts a new phrase."""

_STRICT_END = re.compile(r"[ \t]*(?:[,;.)!?]|$|\band\b)")
"""What may follow a lone word stated for a key (`city: Lisbon.`): the clause ends there.
`city up to you` goes on, so `up` is not its value."""

def word_set(text: str) -> frozenset[str]:
    """A closed list of words written as one string."""
    return frozenset(text.split())


TRUE_WORDS = word_set("true yes y sí si oui ja sim да はい 是 evet tak igen kyllä jah ano")
FALSE_WORDS = word_set("false no n non nein não nao нет いいえ 否 hayır nie nem ei nej ne nee")
"""A boolean said in a word, in the languages people write requests in: a closed table."""

NONCOMMITTAL = word_set(
    """whatever anything anywhere anyone any dunno idk unknown blank empty none nothing null
    nil several various many multiple some tbd tba tbc n/a na optional random varies misc
    other same different whichever somewhere someone something nowhere everywhere everything
    everyone all either neither both up nope nah no zero nada nichts rien niente ninguno
    ninguna nenhum nenhuma keine kein aucun aucune"""
)
"""Words in a value's place that state no value (`city whatever`, `city several`)."""


NOT_VALUES = word_set(
    """return give make produce write output create generate provide please respond reply
    format fill use build emit send show list include add put set only just json yaml xml
    csv html api url the a an this that these those it its he she they we i you my her his
    their our your for from in on at with without and or but not no yes don't do does is are
    was be ignore note also then here now each all every any some if when what who how why
    where which can could would should true false null none keys key fields field values
    value object objects string number integer boolean array list answer reply thanks
    thank hello hi dear mr mrs ms dr output json-only unknown unspecified tbd n/a various
    varies example examples e.g. sample template schema input format now describe explain
    summarize summarise compare tell convert translate turn render represent serialize
    express rewrite encode need want get fetch print emit"""
)
"""Capitalised words that start sentences or name the format, never a stated value."""

NOT_DESCRIBING = word_set(
    """not no never neither nor without non un was were had did will would could should
    might may must shall been being used than over under above below before after since
    until till ago between except besides instead unlike versus vs per plus minus times
    all some each every both either few many most several more less fewer only about
    around roughly approximately nearly almost his her their whose its my our your or but
    if unless when whether former formerly previously ex late old new next last future
    past"""
)
"""Words that never merely describe the thing a request is about: they negate, place it in
time, compare, count, or point to someone else."""

UNDERMINING = word_set(
    """ignore ignored disregard forget actually correction corrected wrong incorrect mistake
    typo scratch cancel cancelled rather however although though update updated changed
    change anymore longer yet still then later earlier yesterday tomorrow soon today
    tonight ago maybe perhaps possibly probably likely unlikely allegedly supposedly
    reportedly apparently unsure uncertain unconfirmed unverified rumored rumoured guess
    guessed estimate estimated kidding joking joke lying lie lies pretend pretends
    pretending claims claimed claim says said thinks thought believes believed hopes
    pseudonym fake fictional fictitious imaginary hypothetical example examples sample
    e.g eg etc so"""
)
"""Words that revoke a value, hedge it or place it in time (`ignore`, `actually`, `anymore`,
`maybe`, `allegedly`, `just kidding`, `a pseudonym`, `an example`, `and so on`)."""

RELATION_NOUNS = word_set(
    """daughter son father mother brother sister wife husband niece nephew uncle aunt cousin
    friend boss neighbour neighbor colleague partner grandson granddaughter grandfather
    grandmother grandma grandpa child kid baby parent sibling spouse fiance fiancee fiancé
    fiancée girlfriend boyfriend roommate classmate stepson stepdaughter stepfather
    stepmother twin owner"""
)
"""Nouns for another person than the one a request is about."""

TIMES = word_set(
    """monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december christmas easter"""
)
"""Capitalised words that name a time, never a place (`in stock from Monday`)."""

LANGUAGES = word_set(
    """english french spanish german italian portuguese japanese chinese mandarin arabic
    russian dutch greek hindi korean swedish polish turkish python rust go java javascript
    typescript ruby kotlin swift haskell"""
)


@dataclass(frozen=True)
class Value:
    """A value as written (`raw`), as JSON (`value`), and its span in the prompt."""

    raw: str
    value: Any
    start: int
    end: int
    kind: str  # propn, number, quoted, email, date, ident, word, bool, list


def ambiguous_number(raw: str) -> bool:
    """`1.000` or `2.500`: a dot before exactly three digits groups thousands in much of
    the world and marks decimals in the rest, so the number is not guessed."""
    return re.fullmatch(r"[-−]?[1-9]\d{0,2}\.\d{3}", raw) is not None


def written_form_matters(raw: str) -> bool:
    """`3.10`, `1.20`: trailing decimal zeros a float would drop (3.10 is not 3.1 as a
    version); such a number stays text unless its key is typed as a number."""
    return re.fullmatch(r"[-−]?\d+\.\d*0", raw.replace(",", "")) is not None


def number_value(text: str) -> int | float:
    clean = text.replace(",", "").replace("−", "-")
    return float(clean) if "." in clean else int(clean)


_NEVER_FIRST = word_set(
    """not no never neither nor without unlike besides except instead maybe perhaps possibly
    probably likely allegedly supposedly reportedly apparently forget ignore disregard
    scratch cancel actually remember"""
)


def _strip_leading(words: list[str]) -> int:
    """How many leading words are instruction words (`For Carla` -> skip `For`)."""
    n = 0
    while n < len(words) - 1 and words[n].lower() in NOT_VALUES and words[n] not in ("The",):
        n += 1
    if n == len(words) - 1 and words[n].lower() in NOT_VALUES:
        n += 1
    return n


def propn_at(text: str, pos: int) -> Value | None:
    """A capitalised name at `pos` (`New York`, `Daphne du Maurier`), instruction words off."""
    m = _PROPN.match(text, pos)
    if not m:
        return None
    words = re.split(r"([ \t]+)", m.group(0))
    tokens = words[0::2]
    skip = _strip_leading(tokens)
    if skip >= len(tokens):
        return None
    first = tokens[skip].lower()
    if first in _NEVER_FIRST or first in TIMES or re.search(r"-[a-z]", tokens[skip]):
        # `Maybe Bruno`, `Forget Bruno`, `Monday`, `Lisbon-born`: no name starts so
        return None
    if len(tokens) - skip == 1 and tokens[skip] in ("The", "A", "An"):
        return None
    start = m.start() + sum(len(w) for w in words[: 2 * skip])
    end = m.end()
    kind = "propn"
    owner = re.search(r"['’]s?$", text[start:end])
    if owner:  # `Bruno's`: the name without its possessive ending
        end -= len(owner.group(0))
        kind = "possessive"
    raw = text[start:end]
    return Value(raw, raw, start, end, kind)


def number_at(text: str, pos: int) -> Value | None:
    m = _NUMBER.match(text, pos)
    if not m or ambiguous_number(m.group(0)):
        return None
    if re.match(r"-?0\d", m.group(0)):  # a code with leading zeros (`02139`) stays text
        return Value(m.group(0), m.group(0), m.start(), m.end(), "ident")
    return Value(m.group(0), number_value(m.group(0)), m.start(), m.end(), "number")


def quoted_at(text: str, pos: int) -> Value | None:
    m = _QUOTED.match(text, pos)
    if not m:
        return None
    inner = next(g for g in m.groups() if g is not None)
    return Value(inner, inner, m.start(), m.end(), "quoted")


def _simple_at(pattern: re.Pattern[str], kind: str, text: str, pos: int) -> Value | None:
    m = pattern.match(text, pos)
    if not m:
        return None
    return Value(m.group(0), m.group(0), m.start(), m.end(), kind)


def bool_word_at(text: str, pos: int) -> Value | None:
    """`true`, `no`, `sí`, `nein` as a whole clause (see `TRUE_WORDS`)."""
    m = re.compile(r"[^\W\d_]+", re.U).match(text, pos)
    if not m or not _STRICT_END.match(text, m.end()):
        return None
    word = m.group(0).lower()
    if word not in TRUE_WORDS and word not in FALSE_WORDS:
        return None
    return Value(m.group(0), word in TRUE_WORDS, m.start(), m.end(), "bool")


_NUMBER_WORDS = re.compile(r"[a-z]+(?:[- ][a-z]+){0,5}", re.I)


def number_words_at(text: str, pos: int) -> Value | None:
    """`thirty-one`, `one hundred and five`: a cardinal in English words, read by text2num,
    as a whole clause."""
    m = _NUMBER_WORDS.match(text, pos)
    if not m:
        return None
    words = m.group(0)
    while words:
        if _STRICT_END.match(text, pos + len(words)):
            try:
                from text_to_num import text2num

                value = int(text2num(words.lower(), "en"))
            except (ValueError, TypeError):
                value = None
            if value is not None:
                return Value(words, value, pos, pos + len(words), "number")
        words = re.sub(r"[- ]?[a-z]+$", "", words, flags=re.I)
    return None


def lone_word(text: str, value: Value) -> bool:
    """A lower-case word stated for a key that ends its clause and commits to a value."""
    return _STRICT_END.match(text, value.end) is not None and \
        value.raw.lower() not in NONCOMMITTAL


def ends_here(text: str, pos: int) -> bool:
    return _END.match(text, pos) is not None


def scalar_at(text: str, pos: int, *, words: bool = False, bools: bool = False) -> Value | None:
    """One value at `pos`: quoted, email, date, number, name, handle, or (if allowed) a
    lower-case word or true/false/yes/no. Bare words and handles must end a phrase."""
    for found in (
        quoted_at(text, pos),
        _simple_at(EMAIL, "email", text, pos),
        _simple_at(DATE, "date", text, pos),
    ):
        if found:
            return found
    if bools:
        m = _BOOL.match(text, pos)
        if m and ends_here(text, m.end()):
            said = m.group(0).lower() in ("true", "yes")
            return Value(m.group(0), said, m.start(), m.end(), "bool")
    num = number_at(text, pos)
    if num and ends_here(text, num.end):
        return num
    name = propn_at(text, pos)
    if name and name.start == pos and name.kind == "propn":
        return name
    symbolic = _simple_at(_SYMBOLIC, "ident", text, pos)
    if symbolic and re.search(r"[.+#]", symbolic.raw) and ends_here(text, symbolic.end):
        return symbolic
    ident = _simple_at(_IDENT, "ident", text, pos)
    if ident and ends_here(text, ident.end) and not _NUMBER.fullmatch(ident.raw):
        return ident
    if words:
        bare = _simple_at(_WORD, "word", text, pos)
        if bare and ends_here(text, bare.end) and bare.raw not in NOT_VALUES:
            return bare
    return None


_ITEM_SEP = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*")
_LIST_WORDS = re.compile(r"[a-z][\w\-]*(?:[ \t][a-z][\w\-]*)?")
EXTENDERS = word_set(
    """others other stuff things thing etc etcetera more so forth on too also as well
    including include includes like such ones one two three four five six seven eight nine
    ten several various many few lots sorted unsorted ordered reversed alphabetical similar
    cetera whatnot co alike suchlike alia beyond friends""")
"""Words that are no item of a list but say something of the list: that it goes on (`and
others`, `and stuff`, `etc`, `two others`, `too`), how many it holds (`three, including
news`), or how to write it (`sorted`). A list holding one declines (see `list_item`)."""
_ADVERB = re.compile(r"[a-z]{3,}ly")
"""`mainly`, `alphabetically`, `hardly`: an adverb says how the list is, never an item."""
_LY_NOUNS = word_set("family jelly belly assembly supply rally ally bully holly lily "
                     "butterfly italy july reply")
"""Items that end in `ly` and are nouns: the one closed exception to `_ADVERB` (a name
ending in `ly`, `Emily`, makes the list unread: declining is the safe reading)."""
QUALIFIERS = word_set(
    """maybe perhaps possibly probably only just mainly mostly partly barely hardly nearly
    almost somewhat kinda sorta now then today currently formerly previously once still
    yet already soon later never rarely sometimes little basic broken poor bad good some
    fluent native beginner intermediate advanced elementary rudimentary conversational
    limited passable decent perfect pidgin not without except excluding minus often
    someday earlier included excluded rusty halting learning former future fake forgotten
    ex zilch""")
"""Words that say how much or how well an item holds, or when (`Zero French`, `French
Mostly`, `English Only`, `Broken French`): written with a capital they read as part of a
name, so they are checked in any case; an item holding one is no plain item. The list is
closed: a capitalised word outside it beside or after names is read as a name or part of
one (docs/checks.md lists the class)."""


def list_item(words: str) -> bool:
    """Whether the words read as one item of a list can be an item: none is an extender,
    an adverb, a qualifier, or a word that states no value (`Hobbies: nothing`, `Tags:
    empty`, the same `NONCOMMITTAL` words a scalar value is checked against in
    `lone_word`), whatever its case."""
    for word in words.split():
        low = word.lower()
        if low in EXTENDERS or low in NONCOMMITTAL or low in QUALIFIERS or (
                _ADVERB.fullmatch(low) and low not in _LY_NOUNS):
            return False  # in any case: `French, Mostly`, `French Maybe`, `Zero French`
    return True


def list_at(text: str, pos: int) -> Value | None:
    """`crime and thriller`, `rust, cli and tooling`, `'sci-fi' and 'classic'`, `Ana and Ben`.

    Items are short (a name, a quoted string, or one or two lower-case words); the list
    must end a phrase, so `tagged news and product for ...` stops cleanly. A word that is
    no item (`list_item`: `and others`, `mainly`, `nothing`) makes it no list: nothing is
    read there, and its words are left over, so they decline every value.
    """
    items: list[str] = []
    cur = pos
    end = pos
    while True:
        item = quoted_at(text, cur) or propn_at(text, cur)
        if item is None or item.start != cur:
            m = _LIST_WORDS.match(text, cur)
            if not m or m.group(0).split()[0] in NOT_VALUES or any(
                    w in NOT_DESCRIBING or w in UNDERMINING for w in m.group(0).split()):
                break
            words = m.group(0)
            # Two lower-case words only when they end the list or the item.
            if " " in words and not ends_here(text, m.end()):
                words = words.split()[0]
            item = Value(words, words, cur, cur + len(words), "word")
        if not ends_here(text, item.end) and _ITEM_SEP.match(text, item.end) is None:
            break
        if not list_item(str(item.value)):
            return None  # `English and French, mainly`: the list is not read at all
        items.append(str(item.value))
        end = item.end
        sep = _ITEM_SEP.match(text, end)
        if not sep:
            break
        cur = sep.end()
    if not items or not ends_here(text, end) or _mixed(items):
        return None
    return Value(text[pos:end], items, pos, end, "list")


def _mixed(items: list[str]) -> bool:
    """`Kim, Lou and friends`, `Spanish, Italian and similar`: a lower-case word among
    names is not shown to be one more of them (it may say the list goes on, or be a word
    the extenders do not hold), so the list is not read."""
    lower = [i for i in items if i[:1].islower()]
    return bool(lower) and len(lower) < len(items) and any(i[:1].isupper() for i in items)


_CLAUSE_VOID = re.compile(
    r"\b(?:not|never|ignore|disregard|except|excluding|instead\s+of|rather\s+than|don't"
    r"|do\s+not|doesn't|does\s+not|isn't|aren't|wasn't|forget|unlike)\b[^,;.()]*",
    re.I,
)
_PHRASE_VOID = re.compile(
    r"\b(?:originally|formerly|previously|once|used\s+to\s+(?:live|be)|moved\s+from|ex-)"
    r"[^,;.()]*?(?=\s+(?:to|now|but)\b|[,;.()]|$)",
    re.I,
)


def void_spans(text: str) -> list[tuple[int, int]]:
    """Where a value is denied or historical (`not Ana`, `originally from Goa`): a name or
    number there is not the answer, so the readers skip it."""
    return [m.span() for m in _CLAUSE_VOID.finditer(text)] + [
        m.span() for m in _PHRASE_VOID.finditer(text)
    ]


PLAIN_COMPOUNDS = word_set("read-only e-mail t-shirt x-ray co-op well-known")
"""The hyphenated words a description may hold; any other (`would-be`, `one-time`,
`self-proclaimed`, `make-believe`) may take back what follows, so it is left over."""
COMPOUND = "(?:" + "|".join(sorted(PLAIN_COMPOUNDS)) + ")"


def quote_insides(text: str) -> list[tuple[int, int]]:
    """What each quotation holds (`"Bob, not an admin"`, `"In Stock Tee"`): a name or title
    said whole. Nothing is read from inside it but the quotation itself."""
    return [(m.start() + 1, m.end() - 1) for m in _QUOTED.finditer(text)]


LEAVES_OPEN = word_set(
    """whatever anything anyone any dunno idk unknown blank empty none nothing null nil tbd
    tba tbc n/a na optional random varies misc whichever somewhere someone something or see
    above here your same confirmed placeholder""")
"""Words that make a quoted value no value (`"up to you"`, `"Ana or Eva"`, `"see above"`,
`"your name here"`); so does a quotation without a letter or digit, or in angle brackets."""


def says_nothing(quoted: str) -> bool:
    words = re.findall(r"[\w/'’]+|[<>?]", quoted.lower())
    return not any(ch.isalnum() for ch in quoted) or " ".join(words[:2]) == "up to" or any(
        w in LEAVES_OPEN or w in "<>?" for w in words)


def inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)
