"""Word problems: a stated percent used as the share after a change by it ("50% more" as
150%, "25% off" as 0.75) is recomputed from the new percent, and only once an earlier
instance shows the number following it."""

from __future__ import annotations

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def gnomes(pounds: int, more: int, count: int) -> str:
    return (f"A gnome mines {pounds} pounds of ore a day by hand. With a steel pickaxe he "
            f"mines {more}% more. How many pounds do {count} gnomes with steel pickaxes "
            "mine in a day?")


def gnomes_solution(pounds: int, more: int, count: int) -> str:
    each = pounds * (100 + more) // 100
    return (f"With a steel pickaxe a gnome mines {pounds} * {100 + more}% = {each} pounds "
            f"a day.\n{count} gnomes mine {count} * {each} = {count * each} pounds.\n"
            f"#### {count * each}")


def coats(price: int, off: int, count: int) -> str:
    return (f"A coat costs {price} dollars. It is on sale at {off}% off. Mia buys {count} "
            "coats. How many dollars does she pay?")


def coats_solution(price: int, off: int, count: int) -> str:
    share = f"{(100 - off) / 100:g}"
    each = price * (100 - off) // 100
    return (f"Each coat costs {price} * {share} = {each} dollars.\n"
            f"{count} coats cost {count} * {each} = {count * each} dollars.\n"
            f"#### {count * each}")


def engine(*solutions: str) -> tuple[StepCache, ScriptedBackend]:
    backend = ScriptedBackend([*solutions, "not asked"])
    return StepCache(backend, HashedEmbedder(), MemoryStore()), backend


def test_a_percent_more_is_recomputed_as_the_share_after_the_change() -> None:
    cache, backend = engine(gnomes_solution(12, 50, 4), gnomes_solution(10, 30, 5))
    assert cache.answer(gnomes(12, 50, 4)).stored_entry is not None
    first_variant = cache.answer(gnomes(10, 30, 5))
    assert not first_variant.hit  # no instance shows yet what 150% follows
    served = cache.answer(gnomes(20, 40, 3))
    assert served.hit and len(backend.calls) == 2
    assert "20 * 140% = 28" in served.text and served.text.rstrip().endswith("84")


def test_a_percent_off_is_recomputed_as_the_share_paid() -> None:
    cache, backend = engine(coats_solution(80, 25, 2), coats_solution(60, 10, 3))
    cache.answer(coats(80, 25, 2))
    cache.answer(coats(60, 10, 3))
    served = cache.answer(coats(100, 20, 4))
    assert served.hit and len(backend.calls) == 2
    assert "100 * 0.8 = 80" in served.text and served.text.rstrip().endswith("320")


def test_a_share_that_did_not_follow_the_percent_in_an_instance_is_not_recomputed() -> None:
    """The first 1.5 is an hour and a half the words state, equal to 100% + 50% by chance:
    the instance with 30% still writes 1.5 there, so it is no change by the percent (and,
    a constant no stated value gives, it declines); the second 1.5 follows the percent."""
    def walk(speed: int, more: int) -> str:
        return (f"Ana walks {speed} km an hour for an hour and a half, then runs {more}% "
                "farther than she walked. How many km did she walk and run?")

    def walk_solution(speed: int, more: int) -> str:
        walked = speed * 3 / 2
        ran = walked * (100 + more) / 100
        return (f"She walked {speed} * 1.5 = {walked:g} km.\n"
                f"She ran {walked:g} * {(100 + more) / 100:g} = {ran:g} km.\n"
                f"In all {walked:g} + {ran:g} = {walked + ran:g} km.\n#### {walked + ran:g}")

    cache, _ = engine(walk_solution(4, 50), walk_solution(6, 30))
    cache.answer(walk(4, 50))
    cache.answer(walk(6, 30))
    served = cache.answer(walk(8, 20))
    assert not served.hit
    assert "1.5 is a constant" in served.notes[0]
