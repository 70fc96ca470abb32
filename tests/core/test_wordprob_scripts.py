"""Word problems in scripts written without spaces (Chinese, Japanese, Thai) and with
combining marks (Thai, Devanagari): read atom by atom as every other script, claimed by
their letters, and declined where a number word or a threshold could change the answer."""

from __future__ import annotations

from fractions import Fraction

import pytest

from stepchat.core.tasks.wordprob.atoms import atoms, decimal_mark
from stepchat.core.tasks.wordprob.meaningwords import carries_meaning
from stepchat.core.tasks.wordprob.numwords import common_reading, readings, stated_values
from stepchat.core.tasks.wordprob.recompute import Declined
from stepchat.core.tasks.wordprob.request import NotSame, align, is_word_problem
from tests.wordprob_cases import recompute


def words(text: str) -> list[str]:
    return [a.text for a in atoms(text) if a.kind == "word"]


def numbers(text: str) -> list[str]:
    return [a.text for a in atoms(text) if a.kind == "num"]


def test_a_vowel_sign_stays_in_its_word() -> None:
    assert words("เบนนี่ เห็น ฉลาม") == ["เบนนี่", "เห็น", "ฉลาม"]
    assert words("राम के पास सेब हैं") == ["राम", "के", "पास", "सेब", "हैं"]


def test_each_han_character_and_kana_is_an_atom() -> None:
    assert words("小明有苹果") == ["小", "明", "有", "苹", "果"]
    assert words("ペンを買いました") == ["ペ", "ン", "を", "買", "い", "ま", "し", "た"]


def test_a_digit_joined_to_an_unspaced_letter_is_a_number() -> None:
    assert numbers("小明有5个苹果，他吃了2.5个。") == ["5", "2.5"]
    assert numbers("ペンを14本買いました") == ["14"]
    assert numbers("จำนวน10ชิ้น") == ["10"]
    # An identifier in a spaced script stays one: `A4`, `x2`.
    assert numbers("A4 paper x2") == []


@pytest.mark.parametrize(("text", "word"), [
    ("A40 paper", "A40"), ("buy x25 now", "x25"), ("H2O and", "H2O"),
    ("a x2.5 zoom", "x2.5"), ("Shona re300 mari", "re300"), ("Ab12 room", "Ab12"),
])
def test_digits_joined_to_a_latin_word_are_one_identifier(text: str, word: str) -> None:
    """Reading the first digit as a sign and the rest as a number made `x48` and `x408`
    state the same 8."""
    read = atoms(text)
    assert word in [a.text for a in read if a.kind == "word"]
    assert numbers(text) == []
    assert not any(a.is_title for a in read if a.text == word)


@pytest.mark.parametrize(("text", "number"), [
    ("يتلاعب بـ408 كرة", "408"), ("و48 كرة", "48"), ("የ900 ብር", "900"), ("ב5 תפוחים", "5"),
])
def test_a_digit_joined_to_a_one_letter_preposition_is_a_number(text: str, number: str) -> None:
    assert numbers(text) == [number]


def test_indian_grouping_is_one_number() -> None:
    read = [a for a in atoms("₹4,00,000 और 1,20,50,000.50 और 12,345") if a.kind == "num"]
    assert [a.value for a in read] == [400000, Fraction(24100001, 2), 12345]


@pytest.mark.parametrize(("old", "new"), [("1 000", "1 0000"), ("08", "8"), ("48", "048")])
def test_a_value_written_with_other_leading_zeros_is_no_repeat(old: str, new: str) -> None:
    """The tail of a longer number read alone keeps its value when zeros are added."""
    text = "He has {} apples and eats 5 of them each day for a week. How many are left?"
    with pytest.raises(NotSame, match="leading zeros"):
        align(text.format(old), text.format(new))


@pytest.mark.parametrize("prompt", [
    "小明有5个苹果，他吃了2个。他还剩几个苹果？",
    "あいは1本150円のペンを4本買いました。全部でいくら使いましたか？",
    "เบนนี่ เห็น ฉลาม ขนาด 10 ฟุต ที่มี 2 ตัว ความยาวรวมคิดเป็นกี่เปอร์เซ็นต์?",
    "राम के पास 5 सेब हैं और वह 2 सेब खाता है। अब उसके पास कितने सेब बचे हैं?",
])
def test_word_problems_in_these_scripts_are_claimed(prompt: str) -> None:
    assert is_word_problem(prompt)


@pytest.mark.parametrize("prompt", ["小明有5个苹果。", "2024年是闰年吗？", "What is 2+2?"])
def test_short_prompts_are_not(prompt: str) -> None:
    assert not is_word_problem(prompt)


def test_an_unchanged_han_numeral_states_its_value() -> None:
    assert [stated_values(c) for c in "三十两个"] == [{3}, {10}, {2}, set()]


SHOP = "あいは1本{price}円のペンを{count}本買いました。全部でいくら使いましたか？"


def test_a_stated_one_no_computation_uses_declines() -> None:
    """"1本150円" is the one of a rate, "超过1公斤" a threshold in another unit: nothing
    written tells them apart, so both decline."""
    solution = "あいはペンに 4 * 150 = 600 円使いました。\n#### 600"
    with pytest.raises(Declined, match="1 is stated and no computation uses it"):
        recompute(SHOP.format(price=150, count=4), solution, SHOP.format(price=120, count=7))


def test_a_changed_han_numeral_is_no_slot() -> None:
    """十二 to 十五 changes one of two atoms: 12 to 15 is no change of either alone."""
    cached = "小明每天读书十二页，读了5天。他一共读了多少页？"
    new = "小明每天读书十五页，读了5天。他一共读了多少页？"
    with pytest.raises(Exception, match="words changed"):
        recompute(cached, "12 * 5 = 60 页\n#### 60", new)


CLASS = ("वर्गात {teachers} शिक्षक आणि 66 विद्यार्थी आहेत. प्रत्येक विद्यार्थ्याला {word} "
         "पेन्सिली मिळतात. विद्यार्थ्यांना एकूण किती पेन्सिली मिळतात?")


def test_a_number_word_this_reader_does_not_read_is_no_slot_to_follow() -> None:
    """Marathi "दोन" (two; CLDR spells no Marathi) states the 2 of `66 * 2`; the digit 2
    beside it is the teachers. One instance cannot tell which the 2 follows, nor one whose
    "दोन" changed with the digit."""
    cached = CLASS.format(teachers=2, word="दोन")
    solution = "66 * 2 = 132 पेन्सिली.\n#### 132"
    new = CLASS.format(teachers=3, word="दोन")
    with pytest.raises(Declined, match=r"shows it following|fits two roles"):
        recompute(cached, solution, new)
    together = [(CLASS.format(teachers=4, word="चार"), "66 * 4 = 264 पेन्सिली.\n#### 264")]
    with pytest.raises(Declined, match=r"shows it following|fits two roles"):
        recompute(cached, solution, new, together)
    apart = [(CLASS.format(teachers=4, word="दोन"), "66 * 2 = 132 पेन्सिली.\n#### 132")]
    with pytest.raises(Declined):
        recompute(cached, solution, new, apart)


PENCILS = ("В классе {teachers} учителя и 12 учеников. Каждый ученик получает {word} "
           "карандаша. Сколько карандашей получают ученики?")


def test_a_number_word_of_another_script_is_read_in_its_language() -> None:
    """CLDR spells Russian "два" 2, "три" 3 and "четыре" 4: the word is a slot the
    solution follows (once an earlier instance shows it following), and unchanged
    beside a digit 2 it makes that 2 fit two roles."""
    solution = "12 * 2 = 24 карандаша.\n#### 24"
    pupils = ("В классе 12 учеников. Каждый ученик получает {word} карандаша. Сколько "
              "карандашей получают ученики?")
    earlier = [(pupils.format(word="четыре"), "12 * 4 = 48 карандаша.\n#### 48")]
    steps = recompute(pupils.format(word="два"), solution, pupils.format(word="три"), earlier)
    assert steps[-1] == "#### 36"
    with pytest.raises(Declined, match="two roles"):
        recompute(PENCILS.format(teachers=2, word="два"), solution,
                  PENCILS.format(teachers=3, word="два"))


@pytest.mark.parametrize(("word", "value"), [
    ("तीन", 3), ("पाँच", 5), ("पांच", 5), ("трёх", 3), ("трех", 3), ("τρία", 3), ("пять", 5),
])
def test_spelled_cardinals_of_other_scripts_state_their_value(word: str, value: int) -> None:
    """Hindi's nasal written with either dot and Russian ё written as е are one word."""
    assert stated_values(word) == {value}


@pytest.mark.parametrize("word", ["hat", "sex", "lima", "Lima", "二"])
def test_a_latin_word_or_a_han_numeral_states_no_cldr_value(word: str) -> None:
    """German "hat" is Hungarian 6, English "sex" Swedish 6: alone a Latin word is as
    often a word of the text's own language; a Han numeral is an atom of a longer
    numeral (its value is Unicode's, read elsewhere)."""
    assert not readings(word)


def test_a_capitalised_number_word_reads_and_is_never_renamed_as_a_name() -> None:
    """"Четыре" starts a sentence and names a café: renamed as a name, the count it
    states would stay with the digits."""
    assert readings("Три") == readings("три")
    cafe = ("{word} ученика пошли в кафе «{word} медведя», где {halls} зала. Каждый "
            "ученик заплатил 50 рублей. Сколько рублей заплатили ученики?")
    with pytest.raises(NotSame, match="number word"):
        recompute(cafe.format(word="Четыре", halls=3), "4 * 50 = 200\n#### 200",
                  cafe.format(word="Маша", halls=5))


def test_a_changed_word_is_a_number_only_where_it_states_one_unchanged() -> None:
    """An instance that changed a word shows a number changed only where the cached word
    states that number too: otherwise a digit beside it takes its place."""
    assert common_reading("три", "пять") == (3, 5)
    assert common_reading("hat", "hét") is None  # Hungarian 6 and 7: Latin
    assert common_reading("hat", "sex") is None


POLISH = ("{word} uczniów przyszło do klasy, w której są {windows} okna. Każdy uczeń przynosi "
          "{sheets} kartek. Ile kartek przynieśli uczniowie razem?")


def test_a_capitalised_word_where_instances_varied_is_renamed_only_as_a_name() -> None:
    """A capitalised word at a sentence's start that an earlier instance had otherwise
    ("Czterech" beside "Trzech") may be an unread number word (Polish cardinals are not
    read): renamed to "Pięciu", it is a word like any other, never a name, and the count
    it states would stay with the digits."""
    cached = POLISH.format(word="Czterech", windows=4, sheets=30)
    earlier = [(POLISH.format(word="Trzech", windows=3, sheets=30), "3 * 30 = 90\n#### 90")]
    for new in (POLISH.format(word="Pięciu", windows=4, sheets=30),
                POLISH.format(word="Pięciu", windows=3, sheets=20)):
        with pytest.raises((Declined, NotSame)):
            recompute(cached, "4 * 30 = 120\n#### 120", new, earlier)


def test_a_name_written_mid_sentence_where_instances_varied_is_renamed_as_a_name() -> None:
    template = ("Every week {name} reads {a} books and her friend reads {b} books. How many "
                "books do {name} and her friend read in {w} weeks?")

    def solution(a: int, b: int, w: int) -> str:
        total = (a + b) * w
        return f"{a} + {b} = {a + b} books a week.\n{a + b} * {w} = {total}\n#### {total}"

    cached = template.format(name="Ana", a=3, b=4, w=5)
    earlier = [(template.format(name="Maria", a=2, b=7, w=3), solution(2, 7, 3))]
    served = recompute(cached, solution(3, 4, 5), template.format(name="Sofia", a=3, b=5, w=6),
                       earlier)
    assert served[-1] == "#### 48"


@pytest.mark.parametrize("word", ["Sabtu", "Senin", "Февраль", "Perú", "Japon", "ドイツ",
                                  "Europe", "Sat", "Feb", "Montag", "Summer", "Venus", "Leo",
                                  "Rajab", "Ramazan", "Kofi", "Candelaria", "Virginia"])
def test_weekdays_months_and_countries_of_every_language_carry_meaning(word: str) -> None:
    assert carries_meaning(word)


@pytest.mark.parametrize("word", ["Ana", "Ben", "Tom", "Sam", "Mia", "Lena", "Priya"])
def test_common_given_names_carry_no_meaning(word: str) -> None:
    """CLDR's abbreviations are left out: across its locales they include these names.
    Given names that are also seasons, planets or signs (Summer, Venus, Leo) do carry it."""
    assert not carries_meaning(word)


@pytest.mark.parametrize(("cached", "new"), [("2", "1,899"), ("1250", "1,250"), ("1250", "1.250")])
def test_a_three_digit_group_no_number_decides_declines(cached: str, new: str) -> None:
    """`1,899` is 1899 in English and 1.899 in French: where no other number shows the
    convention, a request that writes its number so, and the cached one otherwise, differ."""
    text = "A litre costs {} euros and she buys 3 litres on Monday. How much does she pay?"
    with pytest.raises(NotSame, match="three-digit group"):
        align(text.format(cached), text.format(new))


def test_three_digit_groups_written_alike_read_in_one_convention() -> None:
    text = "The house cost ${} and the garage $15,000 more. How much did both cost?"
    slots = align(text.format("360,000"), text.format("340,000")).slots
    assert slots[0].new.value == 340000


@pytest.mark.parametrize("other", ["2.5 kg", "at 14.30", "on 15.03.2024", "in square (2,5)"])
def test_no_other_number_decides_the_convention(other: str) -> None:
    """A time, a date or a grid square looks like a decimal; only the number itself could
    say which it is."""
    text = "A parcel weighs {} kg, a box " + other + ", and she sends 8 parcels. How many kg?"
    with pytest.raises(NotSame, match=r"three-digit group|disagree on the decimal mark"):
        align(text.format("1250"), text.format("1,250"))


@pytest.mark.parametrize(("text", "value"), [
    ("un loyer de 1\u202f250,500 dinars", Fraction(2501, 2)),
    ("ein Preis von 1.250,50 €", Fraction(2501, 2)),
    ("a price of 1,250.50 dollars", Fraction(2501, 2)),
    ("le 15.03.2024 il paie 2,5 €", Fraction(5, 2)),
])
def test_a_number_grouped_one_way_and_marked_the_other_shows_its_mark(
    text: str, value: Fraction
) -> None:
    assert value in [a.value for a in atoms(text, decimal_mark(text) or ".") if a.kind == "num"]


def test_a_group_sign_changing_inside_a_number_is_no_grouping() -> None:
    """`1 250,500` read with "." as the decimal mark is no 1250500."""
    assert 1250500 not in [a.value for a in atoms("1\u202f250,500 dinars", ".")]


def test_a_slot_grouped_twice_shows_how_its_other_side_reads() -> None:
    """`1.600.000` groups by points, so `800.000` in the same place is 800000; `2.05`
    shows nothing of how `1,899` reads."""
    text = "Er verkaufte das Haus für {} Euro und zahlte 5 % an den Makler. Wie viel bleibt?"
    assert align(text.format("1.600.000"), text.format("800.000")).slots[0].new.value == 800000
    with pytest.raises(NotSame, match="three-digit group"):
        align(text.format("2.05"), text.format("1,899"))
