"""Accounting for every word of a JSON request before any value is called stated.

A reader that places values where it can, and accepts what it cannot refute, is fooled by
every sentence it was not written for: "Bruno whose daughter is 12" gives `age: 12`, and a
later "He moved away." takes a city back in words no list of negations holds. So the reading
is inverted, and it is the whole prompt that must be accounted for, not a sentence. Each
construction the reader accepts (`aged 40`, `from Lisbon`, `city: Lisbon`, `(1995)`, `not an
admin`, the request and its key list, an output instruction such as `JSON only`) accounts
for the words it was read from; a short, closed list of words that cannot change a value
(`a`, `the`, `and`, `is`, `who`, prepositions, `he`, `it`) is accounted for anywhere. Then:

- any token left over, wherever it stands and whatever it is (a word, a name, a number, a
  sign, a `?`), declines every stated value: nothing says what it does to them;
- a sentence outside the request in which no construction was read ("It is.") declines
  every stated value too: a sentence that says nothing the reader understands may still
  take a value back.

A declined key is not stated: the model writes it, the member says `unchecked`, and the
answer is neither verified nor cached. The constructions are listed in docs/checks.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from stepchat.core.tasks.json_assign import key_classes
from stepchat.core.tasks.json_words import (
    CASELESS,
    NOT_DESCRIBING,
    PLAIN_COMPOUNDS,
    RELATION_NOUNS,
    UNDERMINING,
    UPPER,
    word_set,
)

NUM, NAME, WORD, FREE = "number", "name", "word", "free"
_OPERATORS = set("+~<>≈±^*×÷=?")
"""Signs that change a value (`20+`, `~20`, `>20`, `2×3`) or question it (`40?`): never
punctuation to pass over."""
"""Kinds of token: what a leftover token of that kind could be the value of."""

FILLERS = word_set(
    """a an the and is are who which that where he she at in on with of
    for from to by as has have currently now please do"""
)
"""Words accounted for anywhere: none of them can change what a value means. Not here, on
purpose: negations, past and future forms (was, used, will), comparisons (than, over,
under, about), possessives (his, her, their, whose), `or`, `but`, quantities, `am` (the
speaker is not the subject), `use` (`Use USD.` asks for another form of a value), `it`,
`this`, `they` (`It is 40.` for Bruno: a pronoun that may be something else than the subject).
Two of them never stand for nothing: see `CONNECTORS` and `DETERMINERS`."""
CONNECTORS = word_set("has have with and as to at by")
_PREPOSITIONS = word_set("in on of for from at to by with as")
_POINTERS = word_set("that this it them these those")
"""`aged 40 in this`, `from Lisbon as of that`: a pronoun after a preposition scopes the
value to something the prompt does not name."""
DETERMINERS = word_set("a an the one it this that them these those another some")
"""`who has a 12-year-old`, `with one aged 40`, `and the one from Lisbon`, `who has it from
Lisbon`: a connector followed by a determiner brings in a second person or thing, whose values
the words after it are. Such a determiner is accounted for only by a construction that reads
it (`with a garden`, `with the email e`), never as a filler."""
COURTESY = word_set("please thanks thank you")
"""A sentence of these alone (`Thank you.`) says nothing about any value."""

REQUEST_WORDS = word_set(
    """return returns give me make produce output create generate provide write fill reply
    respond answer send build emit print show need want i i'd i'm we can could would you
    your please kindly just only valid strict plain compact pure single json object objects
    record document payload response containing having including listing contains into
    using use keys key fields field properties property attributes attribute members
    entries columns format formatted following represent convert turn describing describe
    structured data one it this them"""
)
"""Words of the request itself, accounted for in the sentence that asks for JSON."""

NUMBER_WORDS = word_set(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred thousand million billion dozen dozens half twice double triple
    first second third fourth fifth sixth seventh eighth ninth tenth"""
)
"""A number in words is a number: a leftover one declines the numeric keys."""

_OUTPUT_INSTRUCTIONS = tuple(
    re.compile(p, re.I)
    for p in (
        r"\bjson\s+only\b|\bonly\s+(?:valid\s+)?json\b|\bvalid\s+json\b",
        r"\b(?:in|as)\s+(?:valid\s+|plain\s+|strict\s+)?json(?:\s+format)?\b",
        r"\(\s*not\s+(?:yaml|xml|csv|markdown|html|toml)\s*\)",
        r"\b(?:no|without)\s+(?:code\s+(?:blocks?|fences?)|markdown|backticks|prose"
        r"|explanations?|comments?|extra\s+text|other\s+text)\b",
        r"\bnothing\s+else\b",
        r"\b(?:reply|respond|answer)\s+in\s+(?:under|fewer\s+than|less\s+than|at\s+most)"
        r"\s+\d{1,4}\s+words\b",
        r"\b(?:in|on)\s+(?:1|one|a\s+single)\s+line\b",
        r"\buse\s+\d\s+spaces(?:\s+(?:of|for)\s+indentation)?\b",
        r"\bindent(?:ed)?\s+(?:with|by)\s+\d\s+spaces\b",
        r"\bright\s+now\b|\bat\s+the\s+moment\b|\bthank\s+you\b|\bthanks\b",
        r"\b(?:i'd|i\s+would|we'd|we\s+would)\s+like\b|^\s*(?:hi|hello|hey)\b",
        # an example of the object's form: its braces are the key list, read as such
        r"\b(?:for\s+)?(?:example|e\.g\.?|sample)\s*:?\s*(?=\{)",
    )
)
"""How the answer should look, never what it says: accounted for wherever they stand."""
_IN_ENGLISH = re.compile(r"\bin\s+English\b", re.I)
_KEY_COUNT = re.compile(r"\b(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+"
                        r"(?:keys|fields|properties)\b", re.I)
_DONT_INCLUDE = re.compile(r"\b(?:don't|do\s+not)\s+include\s+(?:the\s+|a\s+)?"
                           r"(?:(?:key|field)\s+)?(?P<k>[a-z_]+)\b", re.I)
_SMALL_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                  "eight": 8, "nine": 9, "ten": 10}

_POSSESSIVES = word_set("his her their whose its my our your")
PRONOUNS = word_set("he she they him her his hers their them its")
"""Pronouns for someone or something already named; `my`, `our` and `your` are the
speaker's and the listener's, never a third person's."""
_COMPARING = word_set(
    """than over under above below between except besides instead unlike versus vs per plus
    minus times all some each every both either few many most several more less fewer
    only"""
)
SCOPELESS = (NOT_DESCRIBING - _POSSESSIVES - _COMPARING) | UNDERMINING
"""(Also words that undermine a value's truth: `maybe`, `allegedly`, `just kidding`, `a
pseudonym`, `fake`.)"""
_TIME_NOUNS = word_set(
    """summer winter spring autumn fall season seasons holiday holidays weekend weekends
    week weeks day days night nights month months year years moment time times while
    morning evening afternoon"""
)
_NOT_A_DESCRIPTION = word_set("such like as similar resembling")
"""With a word ending in `-ing` (`the actor playing`, `the firm acquiring`), words that make
the thing described someone or something else than the name after them."""
_OWN = {"my", "our", "your"}
"""A relative is what the request is about only as `my father`, `our neighbour`: `the
brother, 40, of Bruno` is about someone else than Bruno."""
_CONTAINERS = word_set("account profile record entry page details data info information "
                       "file card")
"""Nouns that hold what they are `of` (`the account of Mo` is Mo's account): the subject's
values are theirs. Any other noun before `of` or `to` (`the sequel to Heat`, `a remake of
Jaws`, `the father of Ana`) is a different thing, so its description is not accounted for."""
_SLOT_WORDS = r"(?P<slot>(?:[a-z][a-z\-]*[ \t]+){0,2}[a-z][a-z\-]*)"
_SUBJECT_SLOT = re.compile(
    r"(?:\b(?:for|describing)\s+(?P<det>(?:a|an|the|my|our|this|your)\s+)?"
    r"|(?:^|(?<=[.;!?:])\s+)(?P<cap>(?:A|An|The|My|Our|This)\s+))"
    rf"(?:\d{{1,3}}-year-old\s+)?{_SLOT_WORDS}"
    rf"(?=[ \t]+[a-z]|[ \t]+[\"“'‘@{UPPER}{CASELESS}\d$€£]|\s*[,.;:(]|\s*$)"
    r"|(?:^|,\s*)(?P<adet>a|an|the)\s+(?:\d{1,3}-year-old\s+)?"
    r"(?P<apposed>(?:[a-z][a-z\-]*[ \t]+){0,2}[a-z][a-z\-]*)"
    r"(?=[ \t]+(?:named|called|titled|entitled|nicknamed)\b)"
)
"""`for a read-only guest account named Carol`, `for a mug priced at 8.5`, `A kettle costs
...`, `for my dog, a labrador named Bella`: up to three words that describe the thing a
request is about. They cannot change what is said of it; a word from `NOT_DESCRIBING`, a
number, a key's name or a flag's word among them leaves them all unaccounted for."""
_DENIAL = re.compile(rf",\s*not\s+[{UPPER}][\w\-]*(?:[ \t]+[{UPPER}][\w\-]*){{0,2}}\s*(?=,)")
"""`for Bruno, not Ana, aged 40`: a name set aside beside the subject's, between commas."""
_UNKNOWN = r"\s+(?:is\s+)?(?:unknown|unspecified|not\s+given|not\s+known|n/a)\b"


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: str
    kind: str


_TOKEN = re.compile(
    r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"  # an email
    r"|[~<>≈±$€£]?[-+−‐‑‒–—―﹣－]?\d[\w.,:/%°'’\-]*[\w%°+]"  # with its unit or format: 1.000,50
    r"|[$€£]?[-+−‐‑‒–—―﹣－]?\d"  # a sign or dash before a digit is part of the number
    r"|\.?[\w'’@#&/\-]*\w[\w'’@#&/.+\-]*?[+#]*(?=[^\w'’@#&/.+\-]|[.+\-](?![\w+#])|$)"
    r"|\S",
)
_CAPITAL = re.compile(rf"[{UPPER}{CASELESS}]|[.@#]|\w*[+#]")


@lru_cache(maxsize=4096)
def _kind(text: str) -> str:
    low = text.lower()
    if not any(ch.isalnum() for ch in text):
        return WORD if any(ch in _OPERATORS for ch in text) else FREE
    if "@" in text:
        return NAME
    if any(ch.isdigit() for ch in text) or any(p in NUMBER_WORDS for p in low.split("-")):
        return NUM
    if low in FILLERS:
        return FREE
    if low in NOT_DESCRIBING or low in REQUEST_WORDS or low in SCOPELESS:
        return WORD
    return NAME if _CAPITAL.match(text) else WORD


def tokens(text: str) -> list[Token]:
    """The prompt as tokens read whole: `C++`, `Next.js`, `1.000,50`, `ana@x.org`, `40-year-old`."""
    return [Token(m.start(), m.end(), m.group(0), _kind(m.group(0)))
            for m in _TOKEN.finditer(text)]


class Ledger:
    """Which characters of the prompt some accepted construction accounts for."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.mask = bytearray(len(text))

    def cover(self, span: tuple[int, int]) -> None:
        start, end = max(0, span[0]), min(len(self.text), span[1])
        if start < end:
            self.mask[start:end] = b"\x01" * (end - start)

    def uncover(self, span: tuple[int, int]) -> None:
        """A value no reading placed stays unexplained, whatever construction spans it."""
        start, end = max(0, span[0]), min(len(self.text), span[1])
        if start < end:
            self.mask[start:end] = b"\x00" * (end - start)

    def covered(self, token: Token) -> bool:
        return all(self.mask[token.start : token.end])

    def leftovers(self, request: list[tuple[int, int]], *, crowded: bool = False,
                  phrases: list[tuple[int, int]] | None = None) -> list[Token]:
        """Tokens nothing accounts for: not covered, not a filler, not a request word in the
        request's own phrase (`phrases`: from the start of its sentence to the end of its key
        list or of the word JSON; after it, `record`, `one`, `having`, `containing` speak of
        something else), not the `?` of a request put as a question (`Can you
        return JSON ...?`). In a `crowded` prompt, one that speaks of someone else too, a
        pronoun (`She is 40`, `her age`) could point to either, so it is never accounted for."""
        out = []
        phrases = request if phrases is None else phrases
        previous: Token | None = None
        for token in tokens(self.text):
            before, previous = previous, token
            if self.covered(token):
                continue
            in_phrase = any(a <= token.start and token.end <= b for a, b in phrases)
            after = before.text.lower() if before is not None else ""
            if not in_phrase and ((after in CONNECTORS and token.text.lower() in DETERMINERS)
                                  or (after in _PREPOSITIONS and token.text.lower() in _POINTERS)):
                out.append(Token(token.start, token.end, token.text, WORD))
                continue
            if crowded and token.text.lower() in PRONOUNS:
                out.append(Token(token.start, token.end, token.text, WORD))
                continue
            if token.text.lower() in _RELATIVES and _opens_sentence(self.text, token.start):
                out.append(Token(token.start, token.end, token.text, WORD))  # `That is 40.`
                continue
            if token.kind == FREE and (any(ch.isalnum() for ch in token.text)
                                       or set(token.text) <= _PUNCTUATION):
                continue
            in_request = any(a <= token.start and token.end <= b for a, b in request)
            if in_phrase and token.text.lower() in REQUEST_WORDS:
                continue
            if token.text == "?" and in_request and _POLITE.match(self.text, _start_of(
                    self.text, token.start)) and re.match(r"\s*(?:$|\s[A-Z])",
                                                          self.text[token.end : token.end + 3]):
                continue
            out.append(token)
        return out


_PUNCTUATION = frozenset(".,;:!()\"'“”‘’{}-–—/&*")
"""The marks passed over: a closed list. An ellipsis (`…`, `[...]`) or another mark may
stand for words cut out, so it is left over; so are brackets left open (see `_unbalanced`)."""


def _unbalanced(text: str) -> bool:
    depth = {"(": 0, "{": 0}
    for ch in text:
        if ch in "({":
            depth[ch] += 1
        elif ch in ")}":
            opener = "(" if ch == ")" else "{"
            depth[opener] -= 1
            if depth[opener] < 0:
                return True
    return any(depth.values()) or "..." in re.sub(r"\{[^{}]*\}", "", text)  # `{"a": ...}` is a form


_RELATIVES = word_set("that which who where")
"""Fillers only inside a sentence (`a lamp that is in stock`); opening one (`That is 40.`),
they point at something the reader cannot tell is the subject."""


def _opens_sentence(text: str, pos: int) -> bool:
    before = text[:pos].rstrip()
    return not before or before[-1] in ".!?;"


_POLITE = re.compile(r"\s*(?:please\s+)?(?:can|could|would|will)\s+(?:you|i|we)\b", re.I)


def _start_of(text: str, pos: int) -> int:
    return max(text.rfind(c, 0, pos) for c in ".!?;") + 1


def request_sentences(text: str, anchors: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sentences that hold the request (the word JSON or the key list)."""
    spans = []
    for a, b in anchors:
        head = max(text.rfind(c, 0, a) for c in ".!?;")
        tail = [i for i in (text.find(c, b) for c in ".!?;") if i >= 0]
        spans.append((head + 1, min(tail) + 1 if tail else len(text)))
    return spans


def request_phrases(text: str, anchors: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The request itself in each sentence that holds it: from the sentence's start to the
    end of the last anchor (the word JSON, the key list) in it."""
    spans: dict[int, int] = {}
    for a, b in anchors:
        head = max(text.rfind(c, 0, a) for c in ".!?;") + 1
        joined = _JOINED_REQUEST_WORD.match(text, b)  # `keys a and b describing a flight`
        end = joined.end() if joined else b
        spans[head] = max(spans.get(head, end), end)
    return sorted(spans.items())


_JOINED_REQUEST_WORD = re.compile(r"\s+(?:describing|containing|listing|having|using)\b", re.I)


def output_instructions(text: str, keys: list[str], language_key: bool,
                        texts_stated: bool = False) -> list[tuple[int, int]]:
    """Spans of instructions about the answer's form (`JSON only`, `in 1 line`, `3 keys`).
    `in English` is one only while no text value is read (`from München, in English` asks
    for the value in another form)."""
    spans = [m.span() for pattern in _OUTPUT_INSTRUCTIONS for m in pattern.finditer(text)]
    if not language_key and not texts_stated:
        spans += [m.span() for m in _IN_ENGLISH.finditer(text)]
    for m in _KEY_COUNT.finditer(text):
        said = m.group("n").lower()
        if _SMALL_NUMBERS.get(said, int(said) if said.isdigit() else -1) == len(keys):
            spans.append(m.span())
    spans += [m.span() for m in _DONT_INCLUDE.finditer(text) if _another_key(m.group("k"), keys)]
    for key in keys:
        spans += [m.span() for m in _unknown(text, key)]
    return spans


def _another_key(word: str, keys: list[str]) -> bool:
    """`Don't include city` leaves out a key the request does not name: only a word the
    key kinds know (`city`, `email`), of no kind a requested key has. `Don't include the
    surname`, `the domain`, `Silva` ask for a value cut short: left over."""
    kinds = key_classes(word)
    return word.islower() and bool(kinds) and not any(kinds & key_classes(k) for k in keys)


def _unknown(text: str, key: str) -> list[re.Match[str]]:
    spoken = re.escape(key).replace("_", "[ _]")
    return list(re.finditer(rf"\b{spoken}{_UNKNOWN}", text, re.I))


def unknown_keys(text: str, keys: list[str]) -> set[str]:
    """Keys the prompt says it does not know (`age unknown`): never stated, whatever else
    the prompt holds that might fit them."""
    return {k for k in keys if _unknown(text, k)}


def subject_descriptions(text: str, taboo: set[str], named_at: int | None = None
                         ) -> list[tuple[int, int]]:
    """Spans of the words describing what the request is about (see `_SUBJECT_SLOT`), and
    of names set aside beside it (`_DENIAL`). A sentence opening on a description (`The car
    is 12.`, `The other Bruno is 40.`) describes the subject only when nothing before it
    named or described one (`named_at`: where the first subject's name is read): after
    `for Bruno` or `for the dog`, it is a second thing, and its words are left over. So is
    a `for` description after the subject's name (`for Bruno; for the dog, age 4`, `for
    Bruno, age 40 for the dog`): the subject is named already, so the words describe
    another thing, whose values they lead or follow, whatever the noun."""
    spans = [m.span() for m in _DENIAL.finditer(text)]
    slots = list(_SUBJECT_SLOT.finditer(text))
    described = any(not m.group("cap") for m in slots)  # `for a person`, `describing a lamp`
    for m in slots:
        if m.group("cap") and (described or (named_at is not None and (
                named_at < m.start("cap") or re.search(r"[.!?;]", text[m.start():named_at])))):
            continue  # `The car is 16. ... for a person.`: a second thing
        if m.group("slot") is not None and not m.group("cap") and named_at is not None \
                and named_at < m.start():
            continue  # `for Bruno; for the dog, age 4`: the subject is Bruno, the dog another
        group = "slot" if m.group("slot") is not None else "apposed"
        end = m.start(group)
        last = ""
        modifies = False
        for word in re.finditer(r"\S+", m.group(group)):
            # the description is the words before the first that does not describe
            w = word.group(0)
            if w in NOT_DESCRIBING or w in taboo or w in FILLERS or w in _TIME_NOUNS \
                    or w in SCOPELESS or w in _NOT_A_DESCRIPTION or w.endswith("ing") \
                    or _kind(w) == NUM or (
                        w in RELATION_NOUNS and (m.group("det") or "").strip() not in _OWN):
                modifies = _kind(w) == NUM  # `an alleged 20-year-old`: the words hedge it
                break
            if "-" in w and w not in PLAIN_COMPOUNDS:
                modifies = True  # `a would-be`, `a one-time`, `a self-proclaimed` resident
                break
            end = m.start(group) + word.end()
            last = w
        # `an alleged 20-year-old`: words before an age hedge it
        modifies = modifies or re.match(r"[ \t]+\d{1,3}[- ]years?[- ]old", text[end:]) is not None
        if modifies or end == m.start(group) or (group == "apposed" and end != m.end(group)):
            continue
        if re.match(r"\s+(?:of|to)\b", text[end : end + 5]) and last not in _CONTAINERS:
            continue
        det = next((g for g in ("det", "cap", "adet") if m.group(g)), group)
        spans.append((m.start(det), end))
    return spans


_ABBREVIATION = re.compile(r"(?:^|[\s(])(?:[A-Za-z]|ca|approx|e\.g|i\.e|mr|mrs|ms|dr|prof|st|jr|sr"
                           r"|vs|etc|no|vol|pp|cf|incl|excl|est|min|max)\.\Z", re.I)


def sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of the prompt lies (a `;` ends one too). A point after an
    abbreviation (`c. 2009`, `Mr. Brown`) or inside brackets ends none: a value's sentence
    is never cut short."""
    out, start, depth, last = [], 0, 0, 0
    for m in re.finditer(r"(?<=[.!?;])\s+", text):
        depth += text.count("(", last, m.start()) - text.count(")", last, m.start())
        last = m.start()
        if depth > 0 or _ABBREVIATION.search(text, max(0, m.start() - 8), m.start()):
            continue
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def unaccounted(leftovers: list[Token], ledger: Ledger,
                request: list[tuple[int, int]]) -> str | None:
    """The word that leaves the prompt not accounted for whole (see the module docstring),
    or None when every word is. A word (`moved`) is named before a number or a name."""
    if leftovers:
        return min(leftovers, key=lambda t: t.kind != WORD).text
    if _unbalanced(ledger.text):
        return "(" if "(" in ledger.text or "{" in ledger.text else "..."
    for start, end in sentences(ledger.text):
        if any(a < end and start < b for a, b in request):
            continue
        said = [Token(start + t.start, start + t.end, t.text, t.kind)
                for t in tokens(ledger.text[start:end])
                if any(ch.isalnum() for ch in t.text) and t.text.lower() not in COURTESY]
        if said and not any(ledger.covered(t) for t in said):
            return said[0].text
    return None
