"""Build stepchat/core/tasks/wordprob/calendar_and_places.txt: names that carry meaning in
every language CLDR describes, so a change of one is never the rename of a person's name.

Source: the Unicode CLDR, as shipped in the `babel` package (BSD-3-Clause): for every
locale, the names of the weekdays and the months in full (as written in a date and standing
alone: `Saturday`, `Sabtu`, `Senin`, `Февраль`) and of the territories (countries and
regions: `France`, `Japan`, `Europe`, `Perú`), lower-cased, each written as one word.
Abbreviations are left out: across CLDR's locales they include common given names (Akan's
`Ben`, French `sam.`, Sesotho's `Leo`); meaningwords.py lists English ones. Saturday to
Monday changes a count of days, February to March the days of a month, France to Peru a sum
of European stamps.

Run once, by hand, when the list should change (babel is no dependency):

    pip install babel==2.18.0
    python scripts/build_meaning_words.py
"""

from __future__ import annotations

from pathlib import Path

OUT = (Path(__file__).resolve().parents[1] / "stepchat" / "core" / "tasks" / "wordprob"
       / "calendar_and_places.txt")


def names() -> set[str]:
    from babel import Locale, UnknownLocaleError, localedata

    found: set[str] = set()
    for identifier in localedata.locale_identifiers():
        try:
            locale = Locale.parse(identifier)
        except (UnknownLocaleError, ValueError):
            continue
        for table in (locale.days, locale.months):
            for context in ("format", "stand-alone"):
                found.update(table.get(context, {}).get("wide", {}).values())
        found.update(locale.territories.values())
    words = {name.casefold().rstrip(".") for name in found}
    return {w for w in words if w and not any(c.isspace() for c in w)}


def main() -> None:
    OUT.write_text("\n".join(sorted(names())) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
