"""Writing a recomputed value the way the cached solution wrote the number it replaces."""

from __future__ import annotations

import re
from fractions import Fraction

from stepchat.core.tasks.wordprob.atoms import Atom

MAX_DECIMALS = 6
_CORE = re.compile(r"\d[\d.,\u00a0\u202f]*\d|\d")


def decimals_needed(value: Fraction) -> int | None:
    """Digits after the mark that write `value` exactly, or None (1/3 has no such form)."""
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives) if den == 1 else None


def render_number(atom: Atom, value: Fraction, sign: str, grouped_doc: bool, mark: str = ".") -> (
    str | None
):
    """`value` in `atom`'s written form (currency sign `sign`, percent, decimals, grouping);
    None when no exact decimal writes it."""
    needed = decimals_needed(value)
    if needed is None or needed > MAX_DECIMALS:
        return None
    decimals = max(needed, atom.decimals)
    if atom.currency and 0 < decimals < 2:
        decimals = 2  # money is written in cents: 7.50, not 7.5
    whole, frac = decimal_digits(value, decimals)
    group = "," if mark == "." else "."
    if "\u00a0" in atom.text or "\u202f" in atom.text:
        group = "\u202f" if "\u202f" in atom.text else "\u00a0"
    if atom.grouped or (grouped_doc and len(whole) > 4):
        whole = _grouped(whole, group)
    core = ("-" if value < 0 else "") + whole + (mark + frac if frac else "")
    found = _CORE.search(atom.text)
    if found is None:
        return None
    prefix, suffix = atom.text[:found.start()], atom.text[found.end():]
    if atom.currency and sign != atom.currency:
        prefix = prefix.replace(atom.currency, sign)
        suffix = suffix.replace(atom.currency, sign)
    return prefix + core + suffix


def decimal_digits(value: Fraction, places: int) -> tuple[str, str]:
    """The digits of `abs(value)` before and after the mark, to `places` decimals
    (truncated: `value` is written exactly there, or was rounded to it)."""
    digits = str(int(abs(value) * 10 ** places)).rjust(places + 1, "0")
    return (digits[:-places], digits[-places:]) if places else (digits, "")


def _grouped(whole: str, group: str) -> str:
    head = len(whole) % 3 or 3
    parts = [whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)]
    return group.join(parts)
