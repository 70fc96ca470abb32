"""The request flows of the engine, on the fakes: paths, statuses, calls and storage."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.conversation import FOLLOW_UP_NOTE, WAITING_NOTE
from stepchat.core.events import DoneEvent, PipelineEvent, RouteEvent, StepEvent
from stepchat.core.pipeline import PromptError, StepCache
from stepchat.core.prompt import LONG_NOTE
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.json_task import NOT_ALONE
from stepchat.core.types import CachePath, ChatMessage, Step, StepStatus
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore

BASE = "Solve for x: 3x + 5 = 20. Show each step."
GOOD_STEPS = "3x + 5 = 20\n3x = 15\nx = 5"
PERSON = (
    "Return a JSON object with keys name, age and city for a person whose name is {name}, "
    "age is {age} and city is {city}."
)


def make(replies: Sequence[str] = (GOOD_STEPS,), **settings: Any) -> StepCache:
    backend = ScriptedBackend(list(replies))
    return StepCache(
        backend, HashedEmbedder(), MemoryStore(), settings=replace(PipelineSettings(), **settings)
    )


def final_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_miss_then_constant_change_then_paraphrase_then_rename() -> None:
    cache = make()
    first = cache.answer(BASE)
    assert first.path == CachePath.SOLVER and final_line(first.text) == "x = 5"
    assert not first.hit
    assert first.stored_entry is not None

    changed = cache.answer("Solve for x: 3x + 7 = 20. Show each step.")
    # No cached line holds for the new constant: the solver rewrote them all.
    assert changed.path == CachePath.SOLVER and not changed.hit
    assert final_line(changed.text) == "x = 13/3"
    assert changed.verified is True

    paraphrase = cache.answer("Please solve this equation for x, showing each step: 3x + 5 = 20")
    assert paraphrase.path == CachePath.REUSE_ONLY
    assert all(s.status == StepStatus.REUSED for s in paraphrase.steps)
    assert paraphrase.text == first.text

    calls = len(cache.backend.calls)  # type: ignore[attr-defined]
    renamed = cache.answer("Solve for y: 3y + 5 = 20. Show each step.")
    assert len(cache.backend.calls) == calls  # type: ignore[attr-defined]
    assert renamed.patch_method == "substitution"
    assert final_line(renamed.text) == "y = 5"
    # The cached steps were the solver's, so reusing them saves no model tokens.
    assert renamed.hit and renamed.tokens.generated == 0 and renamed.tokens.saved == 0


def test_solver_first_answers_equations_without_the_model() -> None:
    cache = make(["x = 10"])
    answer = cache.answer(BASE)
    assert final_line(answer.text) == "x = 5"
    assert cache.backend.calls == []  # type: ignore[attr-defined]
    assert {s.status for s in answer.steps} == {StepStatus.FALLBACK}
    assert answer.tokens.generated == 0


def test_wrong_model_answer_is_repaired_by_the_solver() -> None:
    cache = make(["3x + 5 = 20\n3x = 25\nx = 10"], linear_strategy="model-first", repair_tries=0)
    answer = cache.answer(BASE)
    assert final_line(answer.text) == "x = 5"
    assert "x = 10" not in answer.text and "3x = 25" not in answer.text
    assert answer.steps[0].status == StepStatus.REGENERATED
    assert answer.steps[-1].status == StepStatus.FALLBACK
    assert answer.verified is True


def test_model_first_repairs_with_the_model_within_bounded_tries() -> None:
    cache = make(
        ["3x + 5 = 20\n3x = 25\nx = 10", "3x = 16", "3x = 15\nx = 5"],
        linear_strategy="model-first",
        repair_tries=2,
    )
    answer = cache.answer(BASE)
    assert final_line(answer.text) == "x = 5"
    assert len(cache.backend.calls) == 3  # type: ignore[attr-defined]
    assert all(s.status == StepStatus.REGENERATED for s in answer.steps)


def test_model_first_falls_back_after_its_tries() -> None:
    cache = make(["x = 10"], linear_strategy="model-first", repair_tries=2)
    answer = cache.answer(BASE)
    assert final_line(answer.text) == "x = 5"
    assert len(cache.backend.calls) == 3  # type: ignore[attr-defined]
    assert answer.steps[-1].status == StepStatus.FALLBACK


def test_degenerate_and_both_sides_are_skipped_with_a_reason() -> None:
    cache = make()
    cache.answer(BASE)
    both = cache.answer("Solve for x: 3x + 5 = 2x + 20. Show each step.")
    assert both.path == CachePath.SKIP_REUSE
    assert both.skip_reason and "both sides" in both.skip_reason
    assert final_line(both.text) == "x = 15"
    none = cache.answer("Solve for x: 3x + 5 = 3x + 20. Show each step.")
    assert final_line(none.text) == "no solution"
    every = cache.answer("Solve for x: 2(x + 1) = 2x + 2. Show each step.")
    assert final_line(every.text) == "all real numbers"


@pytest.mark.parametrize(
    "other",
    ["Check whether x = 5 solves 3x + 5 = 20.", "Simplify 3x + 5 = 20.",
     "Verify that 3x + 5 = 20 holds for x = 5."],
)
def test_a_cached_solve_is_never_served_for_another_operation(other: str) -> None:
    """Checking or simplifying an equation is not solving it: such a request is open text,
    so it never meets the cached solve of the same equation (no linear skip rule needed)."""
    cache = make(["A reply written by the model."])
    cache.answer(BASE)
    answer = cache.answer(other)
    assert answer.task == "text"
    assert not answer.hit and answer.text == "A reply written by the model."


def test_json_entity_change_and_added_key() -> None:
    # Alice's and Bob's values are all stated, so only the email goes to the model.
    cache = make(['{"email": "bob@example.com"}'])
    first = cache.answer(PERSON.format(name="Alice", age=30, city="Paris"))
    assert json.loads(first.text) == {"name": "Alice", "age": 30, "city": "Paris"}

    other = cache.answer(PERSON.format(name="Bob", age=41, city="Rome"))
    assert json.loads(other.text) == {"name": "Bob", "age": 41, "city": "Rome"}
    # Every value is stated: the prompt wrote the answer, not the cache.
    assert other.path == CachePath.SOLVER and not other.hit
    assert other.stored_entry is None and cache.store.count() == 1
    assert {s.key: s.status for s in other.steps} == {
        "name": StepStatus.FALLBACK, "age": StepStatus.FALLBACK, "city": StepStatus.FALLBACK
    }

    added = cache.answer(
        "Return a JSON object with keys name, age, city and email for a person whose name is "
        "Bob, age is 41 and city is Rome."
    )
    obj = json.loads(added.text)
    assert list(obj) == ["name", "age", "city", "email"]
    assert obj["email"] == "bob@example.com"
    statuses = {s.key: s.status for s in added.steps}
    # The new key is the model's; the stated members are filled from the prompt. Nothing
    # came from the cache, so this is not a hit.
    assert statuses["email"] == StepStatus.REGENERATED
    assert statuses["name"] == StepStatus.FALLBACK
    assert not added.hit and added.path == CachePath.MISS
    # Nothing in the prompt states the email: the model's value is only type-checked, so
    # the answer is served with that member marked, not called verified, and not cached.
    checks = {s.key: s.check for s in added.steps}
    assert checks == {"name": "stated", "age": "stated", "city": "stated", "email": "typed"}
    assert added.verified is False and added.stored_entry is None
    schema = cache.backend.schemas[-1]  # type: ignore[attr-defined]
    assert schema is not None and schema["required"] == ["email"]


def test_json_key_set_mostly_new_is_skipped() -> None:
    """The cached person is found (any similarity is close enough here), and the policy,
    not the embedding, turns it down: one key in five shared."""
    replies = ['{"name": "Alice", "age": 30, "city": "Paris"}', '{"title": "T", "pages": 3}']
    cache = make(replies, min_similarity=-1.0)
    first = cache.answer(PERSON.format(name="Alice", age=30, city="Paris"))
    assert first.stored_entry is not None
    other = cache.answer(
        "Return a JSON object with keys title, pages, city for a book whose city is Paris."
    )
    assert other.path == CachePath.SKIP_REUSE and other.matched_entry is None
    assert other.skip_reason == "key set mostly new (20% overlap)"


def test_tampered_entry_is_caught_and_the_answer_stays_right() -> None:
    cache = make()
    first = cache.answer(BASE)
    store = cache.store
    entry = store.get(first.stored_entry or "")
    assert entry is not None
    entry.steps = [Step("3x + 5 = 20", "equation"), Step("3x = 30", "equation"),
                   Step("x = 10", "final")]
    store.add(entry)
    again = cache.answer(BASE)
    assert final_line(again.text) == "x = 5"
    assert "x = 10" not in again.text
    assert again.path == CachePath.PATCHED


def test_an_answer_that_fails_verification_is_never_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stepchat.core.tasks.linear_task import LinearHandler

    cache = make()
    monkeypatch.setattr(LinearHandler, "integrity", lambda self, task, text: False)
    answer = cache.answer(BASE)
    assert answer.verified is False
    assert answer.stored_entry is None and cache.store.count() == 0


def test_no_store_and_no_reuse() -> None:
    cache = make()
    cache.answer(BASE, write_cache=False)
    assert cache.store.count() == 0
    cache.answer(BASE)
    again = cache.answer(BASE, read_cache=False, write_cache=False)
    assert again.path == CachePath.SOLVER and cache.store.count() == 1



def test_an_answer_asked_for_with_reuse_off_replaces_the_prompts_entry() -> None:
    """With reuse off and storing on (serve's `x-stepchat-reuse: off`, the app's palette),
    each ask stored a copy of the prompt, and evicting one left the others serving."""
    text = "Name three fruits."
    cache = make(["Apple, pear, plum.", "Fig, kiwi, lime.", "Grape, date, lemon."])
    first = cache.answer(text)
    second = cache.answer(text, read_cache=False)
    assert second.path == CachePath.MISS and second.stored_entry not in (None, first.stored_entry)
    assert [e.id for e in cache.store.entries()] == [second.stored_entry]
    other_scope = StepCache(cache.backend, cache.embedder, cache.store,
                            settings=replace(cache.settings, system_prompt="Be brief."))
    kept = other_scope.answer(text).stored_entry
    third = cache.answer(text, read_cache=False)
    assert {e.id for e in cache.store.entries()} == {third.stored_entry, kept}
    again = cache.answer(text)
    assert again.hit and again.text == "Grape, date, lemon."

ADDED_KEY = (
    "Return a JSON object with keys name, age, city and email for a person whose name is "
    "Alice, age is 30 and city is Paris."
)
ALICE = PERSON.format(name="Alice", age=30, city="Paris")
ALICE_REPLIES = ('{"name": "Alice", "age": 30, "city": "Paris"}', '{"email": "a@b.c"}')


@pytest.mark.parametrize(
    ("replies", "prompts", "path"),
    [
        ((GOOD_STEPS,), (BASE,), CachePath.SOLVER),
        ((GOOD_STEPS,), (BASE, BASE), CachePath.REUSE_ONLY),
        ((GOOD_STEPS,), ("Solve for x: 3x + 5 = 20. Do not show each step.", BASE),
         CachePath.SKIP_REUSE),
        (ALICE_REPLIES, (ALICE, ADDED_KEY), CachePath.PATCHED),
    ],
)
def test_each_request_announces_one_route_each_step_once_then_done(
    replies: tuple[str, ...], prompts: tuple[str, ...], path: CachePath
) -> None:
    """One route decision, each served step as one event in order, one done event last: a
    view that paints events draws every step exactly once."""
    cache = make(replies)
    for prompt in prompts[:-1]:
        cache.answer(prompt)
    events: list[PipelineEvent] = []
    answer = cache.answer(prompts[-1], on_event=events.append)
    assert answer.path == path
    assert len([e for e in events if isinstance(e, RouteEvent)]) == 1
    steps = [e for e in events if isinstance(e, StepEvent)]
    assert [e.index for e in steps] == list(range(len(answer.steps)))
    assert [e.step for e in steps] == answer.steps
    assert isinstance(events[-1], DoneEvent) and events[-1].answer is answer
    assert [e for e in events if isinstance(e, DoneEvent)] == [events[-1]]


@pytest.mark.parametrize("bad", ["", "   \n\t", b"\xff\xfe\x00binary", "a\x00b"])
def test_bad_prompts_are_one_line_errors(bad: str | bytes) -> None:
    cache = make()
    with pytest.raises(PromptError) as info:
        cache.answer(bad)
    assert "\n" not in str(info.value)


def test_a_long_prompt_is_sent_whole_and_a_huge_one_refused_in_one_line() -> None:
    cache = make(["ok"])
    answer = cache.answer("word " * 30_000)
    assert answer.notes == [LONG_NOTE]
    prompt_sent: list[ChatMessage] = cache.backend.calls[-1]  # type: ignore[attr-defined]
    assert prompt_sent[-1].content == ("word " * 30_000).strip()
    with pytest.raises(PromptError, match="the most one may have is 1,000,000"):
        cache.answer("word " * 300_000)


def test_scopes_do_not_mix_models() -> None:
    store = MemoryStore()
    emb = HashedEmbedder()
    a = StepCache(ScriptedBackend([GOOD_STEPS], model_id="a"), emb, store)
    b = StepCache(ScriptedBackend([GOOD_STEPS], model_id="b"), emb, store)
    a.answer(BASE)
    assert b.answer(BASE).matched_entry is None


def test_json_values_listed_without_their_keys_are_not_served_stale() -> None:
    cache = make(['{"name": "Bob", "age": 40}', '{"name": "Alice", "age": 99}'])
    first = cache.answer("Return only a JSON object with keys name and age for Bob, 40.")
    assert json.loads(first.text) == {"name": "Bob", "age": 40}
    second = cache.answer("Return only a JSON object with keys name and age for Alice, 31.")
    assert json.loads(second.text) == {"name": "Alice", "age": 31}
    assert second.path == CachePath.SOLVER


def test_where_no_cached_member_holds_the_answer_is_a_fresh_miss() -> None:
    """Nothing comes from the cache: the model is asked as with no cache (a request with an
    empty "already known" beside it had the bundled model leave the name blank), and the
    answer is no hit."""
    backend = ScriptedBackend(['{"name": "Bruno", "age": 45, "city": "Lisbon"}'])
    cache = StepCache(backend, HashedEmbedder(), MemoryStore())
    cache.answer("Return a JSON object with keys name, age and city for Bruno, 40, from Lisbon.")
    asked = ("Return a JSON object with keys name, age and city for Bruno, 40, from Lisbon. "
             "Add 5 to the age.")
    answer = cache.answer(asked)
    assert answer.path == CachePath.MISS and not answer.hit
    assert {s.status for s in answer.steps} == {StepStatus.REGENERATED}
    assert [m.content for m in backend.calls[-1] if m.role == "user"] == [asked]


def test_a_member_carrying_an_old_constant_fails_even_when_no_key_states_it() -> None:
    cache = make(['{"title": "Notes on Rome", "pages": 10}', '{"title": "Notes on Oslo"}'])
    cache.answer("Return a JSON object with keys title and pages for a guide about Rome.")
    other = cache.answer("Return a JSON object with keys title and pages for a guide about Oslo.")
    title = next(s for s in other.steps if s.key == "title")
    assert title.status != StepStatus.REUSED
    assert "Rome" not in other.text


def test_key_overlap_threshold_is_a_setting() -> None:
    replies = ['{"name": "Alice", "age": 30, "city": "Paris"}', '{"email": "a@b.c"}']
    added = (
        "Return a JSON object with keys name, age, city and email for a person whose name is "
        "Alice, age is 30 and city is Paris."
    )
    strict = make(replies, json_min_key_overlap=0.9)
    strict.answer(PERSON.format(name="Alice", age=30, city="Paris"))
    assert strict.answer(added).path == CachePath.SKIP_REUSE
    lenient = make(replies, json_min_key_overlap=0.5)
    lenient.answer(PERSON.format(name="Alice", age=30, city="Paris"))
    assert lenient.answer(added).path == CachePath.PATCHED


def test_the_pause_point_runs_after_a_model_answer_and_never_after_a_served_one() -> None:
    calls: list[str] = []
    backend = ScriptedBackend(["Paris is the capital of France."])
    cache = StepCache(backend, HashedEmbedder(), MemoryStore(),
                      after_model_call=lambda: calls.append("pause"))
    first = cache.answer("What is the capital of France? Answer in one sentence.")
    assert not first.hit and calls == ["pause"]
    again = cache.answer("What is the capital of France? Answer in one sentence.")
    assert again.hit and calls == ["pause"]


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "not-strict"])
def test_json_value_the_model_never_gives_is_null_not_a_made_up_one(strict: bool) -> None:
    # A reply with no object, its repair and the ask for the missing keys all fail: the
    # object says null (no value), not "" or 0, which read as data, and is not stored,
    # even where `strict_json` is off. The model was asked: no solver wrote it.
    refusal = "Sorry, I cannot help with that."
    cache = make([refusal] * 4, strict_json=strict)
    answer = cache.answer("Give me JSON with keys title and year for a famous film.")
    assert json.loads(answer.text) == {"title": None, "year": None}
    assert answer.stored_entry is None and cache.store.count() == 0
    assert "no valid value for 'year' from the model: left null" in answer.notes
    assert answer.path == CachePath.MISS
    if strict:
        assert {s.check for s in answer.steps} == {"unchecked"}


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "not-strict"])
def test_a_number_json_does_not_have_is_no_value(number: str, strict: bool) -> None:
    # Python's reader takes NaN and Infinity and reads 1e999 as infinity; a client's JSON
    # parser takes none of them. A review got `"price": NaN` served, and stored.
    reply = '{"name": "Widget", "price": ' + number + '}'
    cache = make([reply] * 4, strict_json=strict)
    answer = cache.answer("Return a JSON object with keys name and price for a lamp.")
    assert json.loads(answer.text)["price"] is None
    assert answer.stored_entry is None and cache.store.count() == 0


def test_an_empty_object_is_never_stored() -> None:
    cache = make(["I don't know."] * 3, strict_json=False)
    answer = cache.answer("Return a JSON object describing a famous bridge.")
    assert answer.stored_entry is None and cache.store.count() == 0


@pytest.mark.parametrize(
    ("reply", "stored"),
    [
        ('{"name": "Bo", "bio": "Bo likes tea."}', True),
        ('```json\n{"name": "Bo", "bio": "Bo likes tea."}\n```', True),
        ('Sure! {"name": "Bo", "bio": "Bo likes tea."}', False),
        ("{'name': 'Bo', 'bio': 'Bo likes tea.'}", False),
        ('{"name": "Bo", "bio": "Bo likes tea.",}', False),
    ],
)
def test_only_a_reply_that_is_one_object_alone_is_cached(reply: str, stored: bool) -> None:
    """Anything else is read by choices (which object, what a near-miss means): shown
    with its members unchecked, never cached (a review had an example object's "..."
    stored as the answer)."""
    cache = make([reply])
    answer = cache.answer("Return JSON with keys name and bio for Bo; the bio is a short sentence.")
    assert json.loads(answer.text) == {"name": "Bo", "bio": "Bo likes tea."}
    assert (answer.stored_entry is not None) is stored
    assert (answer.verified is not False) is stored


@pytest.mark.parametrize("bio", [" ", "\u200b", "...", "string", "<bio>", "—"])
def test_a_placeholder_for_an_open_value_is_no_answer(bio: str) -> None:
    """A value that stands for one: a review had `"bio": "..."` cached as verified."""
    reply = json.dumps({"name": "Bo", "bio": bio})
    cache = make([reply] * 4)
    answer = cache.answer("Return JSON with keys name and bio for Bo; the bio is a short sentence.")
    assert answer.stored_entry is None and answer.verified is False


def test_a_whole_number_written_as_a_float_is_written_as_the_integer_asked_for() -> None:
    cache = make(['{"name": "Bo", "age": 3e1, "bio": "Bo bakes."}'])
    answer = cache.answer(
        "Return JSON with keys name, age and bio for Bo, aged 30; the bio is a short sentence.")
    assert '"age": 30' in answer.text and "30.0" not in answer.text


def test_a_loose_reply_whose_members_are_all_dropped_is_not_said_to_be_read() -> None:
    # Its one member contradicts the stated name and is dropped; the model's second,
    # sole reply gives the bio: the answer is cached, and no note says otherwise.
    cache = make(['Sure: {"name": "Al"}', '{"bio": "Bo bakes bread."}'])
    answer = cache.answer("Return JSON with keys name and bio for Bo; the bio is a short sentence.")
    assert answer.stored_entry is not None
    assert NOT_ALONE not in answer.notes
    loose = make(['Sure: {"name": "Bo", "bio": "Bo bakes bread."}'])
    shown = loose.answer("Return JSON with keys name and bio for Bo; the bio is a short sentence.")
    assert shown.stored_entry is None and NOT_ALONE in shown.notes


def test_a_request_after_an_unanswered_question_says_so_not_follow_up() -> None:
    cache = make()
    waiting = cache.answer(BASE, history=[ChatMessage("user", "Why is grass green?")])
    answered = cache.answer(BASE, history=[ChatMessage("user", "Hi"),
                                           ChatMessage("assistant", "Hello!")])
    assert WAITING_NOTE in waiting.notes and FOLLOW_UP_NOTE not in waiting.notes
    assert FOLLOW_UP_NOTE in answered.notes and WAITING_NOTE not in answered.notes
    assert cache.store.count() == 0


def test_only_an_answer_served_from_the_cache_counts_a_hit() -> None:
    """An answer the solver wrote whole after routing through an entry was counted a hit
    of it: `cache list` showed hits `ask --json` called none, and `--older-than` kept it."""
    cache = make()
    first = cache.answer(BASE)
    changed = cache.answer("Solve for x: 3x + 7 = 20. Show each step.")
    assert not changed.hit
    entry = cache.store.get(first.stored_entry or "")
    assert entry is not None and entry.hits == 0
    again = cache.answer(BASE)
    assert again.hit
    entry = cache.store.get(first.stored_entry or "")
    assert entry is not None and entry.hits == 1
