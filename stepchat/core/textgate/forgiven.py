"""The closed list of edits the text gate forgives, each with the requests it gets wrong.

Everything not on this list is meaning. Each entry names the `GateOptions` switch that turns
it off (None: always on), an edit it forgives, and its known failure classes with an example
each: two requests that need different answers and that the gate, because of this entry,
takes for one. Each rule was narrowed until what is left of its failures is what the surface
edits a person makes cannot be told from (tests/core/test_textgate_surface.py). The tests
check every example both ways (tests/core/test_textgate.py), so the list, the docs that
print it (docs/open-text.md) and the gate cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Failure:
    """A class of requests that need different answers and read the same, with an instance
    the gate passes, wrongly."""

    what: str
    example: tuple[str, str]


@dataclass(frozen=True)
class Forgiven:
    name: str
    option: str | None
    what: str
    same: tuple[str, str]
    """Two requests the entry makes one (the gate without it tells them apart)."""
    failures: tuple[Failure, ...]


FORGIVEN: tuple[Forgiven, ...] = (
    Forgiven(
        "canonical equivalence", None,
        "Unicode canonical equivalents (NFC) outside quotes and code: an accented letter typed "
        "as one character or as a letter and a combining accent; not a character Unicode maps "
        "to one other character (the ohm sign `\u2126`, the kelvin sign `\u212a`, CJK "
        "compatibility ideographs such as `\uf90a` U+F90A), and no compatibility form (`³`, "
        "`½`, `ﬁ`, `１２`)",
        ("Qu'est-ce que le café ?", "Qu'est-ce que le cafe\u0301 ?"),
        (Failure("a request about the encoding itself, outside quotes",
                 ("How many code points are in é?", "How many code points are in e\u0301?")),),
    ),
    Forgiven(
        "typographic apostrophe", None,
        "the right single quotation mark `’` inside a word (`don’t`, `O’Brien`) as the "
        "apostrophe `'`, outside quotes and code; inside quotes each is the quoted text's own "
        "character (`\"it’s\"` is not `\"it's\"`: other bytes, another code point, and "
        "`'don’t'` is a whole Python string where `'don't'` is not)",
        ("Why doesn't my Mac start?", "Why doesn’t my Mac start?"),
        (Failure("a request about the apostrophe character itself, outside quotes",
                 ("What is the code point of the apostrophe in don’t?",
                  "What is the code point of the apostrophe in don't?")),
         Failure("a command written without backticks, where `'` opens a string",
                 ("What does echo it’s print?", "What does echo it's print?"))),
    ),
    Forgiven(
        "whitespace", None,
        "how many plain spaces (U+0020) separate two tokens on one line, outside quotes and "
        "code; whitespace at the end, blank lines before the first line, and spaces around a "
        "request of one line; not whether there is any (`12×4` is not `12 × 4`), not a tab or "
        "another kind of space, not a line break or the spaces before and after it, not the "
        "indentation of a first line that others follow, not inside the text a colon "
        "introduces (`Decode this Morse code: .-   -`)",
        ("How do I   undo a commit?", "  How do I undo a commit?"),
        (Failure("spacing that is the subject, outside quotes, code and colon-introduced text",
                 ("cd ~/My  Documents", "cd ~/My Documents")),
         Failure("the indentation of a request of one line",
                 ("    # Title", "# Title"))),
    ),
    Forgiven(
        "case", "case",
        "letter case against a request written in one case (two or more words with case, all "
        "in capitals, or all in small letters but for short symbols): small letters stand for "
        "a capital first letter and for an acronym of three or more capitals, capitals for "
        "any case; and the first word after a greeting's comma may lose its capital (\"Hi, "
        "what is…\"). Never the case of a short symbol inside a sentence (two letters or "
        "fewer with a capital: `Co`, `Mm`, `IT`, `MW`, `pH`, `C`), never that of a short "
        "mixed-case symbol anywhere (three or four letters with a capital past the first and "
        "a small letter: `mPa`, `MWh`, `GHz`, `MBps`, `NaN`; not an acronym's plural, `IDs`), "
        "never that of a word with a digit and a capital anywhere (a formula, a part number, "
        "a code: `COCl2` is not `cocl2` nor `CoCl2`, `IPv4`, `Jet2`; `7pm` has no capital to "
        "lose, so `7PM` in a request in capitals stands for it), "
        "never the case of a unit next to a number: glued to a numeral of any kind (`5Mm`, "
        "`10mA`, `½MWh`, `五MWh`, `Mm²`) or with nothing but whitespace of any kind, symbols "
        "or marks between the number and it (`5 Mib`, `5-MWh`, `$50/MWh`, `5 (MPa)`, a "
        "tab or a no-break, thin or zero-width space), the number in any form (`1e3`, `2k`, "
        "`٥`, `five`, `fünf`, `пять`, `a dozen`, `a billion`), never inside quotes or after "
        "a colon of any form, glued or spaced (`：`, `∶`, `꞉`, `᠄`, the Greek `·`), but a "
        "clock time's and one after a single word of letters with case (`Count the capitals "
        "in:Hello` is not `count the capitals in:hello`; `Python: read a CSV` is `python: "
        "read a csv`)",
        ("What is the capital of France?", "what is the capital of france"),
        (
            Failure("a word that means something else with a capital, against a request "
                    "typed in small letters",
                    ("How do I say hello in Polish?", "how do i say hello in polish")),
            Failure("an acronym or a name with inner capitals, three letters or more, that "
                    "is also a word, against small letters (WHO/who, LaTeX/latex)",
                    ("When was the WHO founded?", "when was the who founded")),
            Failure("a word whose capitals make another word, against a request typed in "
                    "capitals", ("What is it?", "WHAT IS IT?")),
            Failure("a short symbol that opens a sentence, against small letters or "
                    "capitals (its first capital may be the sentence's; a mixed-case one "
                    "keeps its case there too: `MWh to J:`)",
                    ("Mg to g: how many grams is that?", "mg to g: how many grams is that?")),
            Failure("Turkish dotted and dotless i: capitals are folded with the English pair "
                    "I/i, so KIL (kıl, hair) reads as kil (clay)",
                    ("KIL NE DEMEK", "kil ne demek")),
            Failure("a name that is also a word opening a request, as the first word after "
                    "a greeting's comma",
                    ("May is the fifth month, right?", "Hi, may is the fifth month, right?")),
            Failure("the text the request works on (to reverse, hash, encode or count the "
                    "capitals of), without quotes or a colon after more than one word to show "
                    "where it starts (`Reverse: Hello` reads as a topic, `Python: …`, also once "
                    "a greeting sentence before it is cut: `Hi! Reverse: Hello`), against "
                    "small letters or capitals",
                    ("Reverse the string Hello", "reverse the string hello")),
            Failure("a unit's symbol that is neither a short symbol nor a short mixed-case "
                    "one (`Gib`, `MWH`, `mmH₂O`) with no number right before it (none, a word "
                    "between: `a Gib`, `5 more Gib`, or a number word the reader does not "
                    "read: `hundert Cal`, `tusen MW`), or with only its first capital and "
                    "four letters or more even there (`100 Mbps`), against small letters or "
                    "capitals",
                    ("How many bits are in a Gib?", "how many bits are in a gib")),
        ),
    ),
    Forgiven(
        "sentence punctuation", "punctuation",
        "`. ! ? ;` attached to a word and followed by whitespace or the end, outside quotes, "
        "brackets and code: at the end of a request against the same kind of mark or none, "
        "inside it only against the same kind of mark at the same place, never none (`to "
        "Anna. Maria Lopez will` is not `to Anna Maria. Lopez will`, `Who sang No. One?` is "
        "not `Who sang No One?`): `?` asks, `.` states, `!` exclaims, in any script or width "
        "(`?` is `??` and `？`, `.` is `。`), and a mark is never forgiven for a mark of "
        "another kind (`Translate to Spanish, you are coming?` is not `…coming.`, `Hello!` is "
        "not `Hello.`); a comma between two words of two or more letters, left out, never "
        "moved (only the request with more commas, of any script counted together, skips "
        "any: `to Anna, Maria Lopez` is not `to Anna Maria, Lopez`, nor `to Anna， Maria "
        "Lopez`); other scripts' sentence marks (`。？` `؟` `।`) at the "
        "end or where the other request has a mark too, and their commas (`，` `،`) between "
        "words and the Spanish opening marks (`¿` `¡`) where they open the request, or a "
        "sentence (after `. ? !`, before a capital), each left out, "
        "never moved or swapped (only the request with more of them skips any: `¿Juan dice "
        "que vienes?` is not `Juan dice ¿que vienes?`, `¡Vienes?` is not `¿Vienes?`; inside "
        "a sentence one starts an embedded question: `Juan dice ¿que vienes?` is not `Juan "
        "dice que vienes?`). "
        "Kept: every mark in "
        "the text a colon of any form introduces, glued or spaced, but a clock time's and "
        "a one-word topic's (`Translate into French:you are coming?`, `翻译成英文："
        "你去。`), a mark after a space (`git add .`), an ellipsis (`...`, `…`), `? . !` after "
        "a single letter, after a bracket (`if (x);`, `(ab)?`) and after a dotted, scoped or "
        "joined name (`[1, 2].uniq!`, `0.zero?`, `mail.example.com.`), a final `!` absent on "
        "the other side but after a sentence of one word (`save!`, `vec!`; `Hello!` is "
        "`Hello`), `!` after a digit in any width (`5!`, `5！`) or after a capitalised word "
        "inside a sentence (`Oklahoma!`), a `.` after a number inside the text (`1. Apples`), "
        "a mark before a line break that more lines follow (`Zebra.⏎Apple`), `;` but after a "
        "Greek word (its question mark), a comma beside a digit, an operator or a one-letter "
        "name in any script (`x = a, b`, `5, -3`, `sin x，cos x`), and `:` always",
        ("What is the capital of France?", "What is the capital of France"),
        (
            Failure("a comma between two words whose place is the meaning",
                    ("Let's eat, grandma", "Let's eat grandma")),
            Failure("a final `?` or `.` that belongs to the text asked about, without a colon "
                    "after several words to show it (text to translate or to classify), "
                    "against no mark: dropping the closing mark is the commonest retyping "
                    "there is, and nothing else in the request tells the two apart",
                    ("Translate to Spanish, you are coming?",
                     "Translate to Spanish, you are coming")),
            Failure("a request about its own last character, against no mark",
                    ("Does this message end with a question mark?",
                     "Does this message end with a question mark")),
            Failure("a name ending in `?` as the last word, after a plain word (Clojure "
                    "`every?`, the regex `colou?`)",
                    ("In Clojure, what does every?", "In Clojure, what does every")),
        ),
    ),
    Forgiven(
        "courtesy at either end", "courtesy",
        "a greeting at the start as a sentence of its own (\"Hi!\", \"Hello there.\") or "
        "before a comma and, in small letters, a word of a closed English list that opens a "
        "question or an instruction (`lexicon.OPENERS`: \"Hi there, how…\", \"Hey, can "
        "you…\", \"Hello, in Excel, how…\") followed by a space and a word or number that "
        "is no coordinator of a closed list (English's, `vs.`, and the and/or of other "
        "languages; a sign there, `+`, `->`, is one too); not before a capital, any other "
        "word, an opener that is listed (\"Hi, "
        "bye, see you later: …\", \"hi, ta, te: …\", \"Hi, ciao and bye are…\", \"Hi, how "
        "and why…\") or a sentence of one word (\"Hello, world!\"); a greeting or thanks in "
        "capitals only in a request in capitals (\"HI, what is the state bird?\" asks about "
        "Hawaii, \"…certified? THX.\" names a certification); never one that tells "
        "the time of day (\"Good morning\", \"Evening!\"), never with the line break or the "
        "indentation after it, nor before several lines of text; thanks at the end as a "
        "sentence of their own after a sentence mark (\"…? Thanks!\"); \", please\" before "
        "the closing question mark (\"…, please?\"); all in English, outside quotes and "
        "outside the text a colon introduces",
        ("How do I reset my router?", "Hi team, how do I reset my router? Thanks!"),
        (
            Failure("a greeting sentence that is itself the subject",
                    ("Hello! Who sang it?", "Who sang it?")),
            Failure("a greeting before a comma that is part of the text asked about, or the "
                    "first item of a list whose next item opens with a word that opens "
                    "requests, without a colon before it",
                    ("Hi, how are you, bye: translate each into Spanish.",
                     "How are you, bye: translate each into Spanish.")),
            Failure("thanks that are the subject, without a colon",
                    ("Is it rude to end an email like this? Thanks in advance.",
                     "Is it rude to end an email like this?")),
            Failure("\"please\" as the last item of a list, asked as a question without a "
                    "colon", ("Translate into Spanish yes, no, please?",
                              "Translate into Spanish yes, no?")),
        ),
    ),
    Forgiven(
        "contractions", "contractions",
        "English contractions written with an apostrophe, outside quotes, as the words they "
        "stand for: `n't` (\"doesn't\" = \"does not\"), `'re`, `'ve`, `'ll`, \"I'm\", \"can't\" "
        "= \"cannot\", \"won't\", and `'s` = \"is\" after what, who, how, it, that, there… "
        "unless a participle follows (\"What's happened?\"); never `'d` (would, had or did) "
        "or \"let's\", and never one typed without its apostrophe (\"dont\" is French, "
        "\"cant\" and \"wont\" are words)",
        ("What's the capital of France?", "What is the capital of France?"),
        (Failure("a request about the written words themselves",
                 ("How do you spell don't?", "How do you spell do not?")),
         Failure("a contraction in the text a colon introduces",
                 ("How many words are in: I'm here", "How many words are in: I am here")),
         Failure("a title or a name written with a contraction, outside quotes: songs, "
                 "films and books are named both ways",
                 ("who sang you're not alone", "who sang you are not alone")),
         Failure("a command written without backticks, where `'` opens a string",
                 ("What does echo it's print?", "What does echo it is print?"))),
    ),
)
