"""A conversation's earlier turns: trimmed to the context, and what the cache may reuse.

Both sides of the cache's conversation rule are here: a follow-up whose meaning lives in
earlier turns is never served an answer cached under another conversation, and a request
the cache can check on its own (an equation, a JSON object the prompt states) still is.
"""

from __future__ import annotations

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.conversation import MESSAGE_OVERHEAD, exchanges, fit_history
from stepchat.core.pipeline import StepCache
from stepchat.core.types import CachePath, ChatMessage
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.memory import MemoryStore


def user(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def assistant(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


def words(text: str) -> int:
    return len(text.split())


# ---- trimming -----------------------------------------------------------------------------

HISTORY = [
    user("one two three"),          # 3 words
    assistant("four five"),         # 2
    user("six"),                    # 1
    assistant("seven eight nine"),  # 3
    user("ten eleven"),             # 2
    assistant("twelve"),            # 1
]


def cost(*texts: str) -> int:
    return sum(words(t) + MESSAGE_OVERHEAD for t in texts)


def test_everything_fits_in_a_roomy_context() -> None:
    fitted = fit_history(HISTORY, "q", count_tokens=words, context=2048, reply_tokens=256)
    assert fitted.messages == tuple(HISTORY)
    assert fitted.dropped == 0
    assert fitted.tokens == cost(*(m.content for m in HISTORY))


def test_oldest_exchanges_are_dropped_whole_and_counted() -> None:
    newest_two = cost("six", "seven eight nine", "ten eleven", "twelve")
    request = cost("q")
    # Exactly room for the two newest exchanges beside the request and the reply.
    context = 100 + request + newest_two
    fitted = fit_history(HISTORY, "q", count_tokens=words, context=context, reply_tokens=100)
    assert fitted.messages == tuple(HISTORY[2:])
    assert fitted.dropped == 1
    # One token less and the middle exchange goes too: never a question without its answer.
    fitted = fit_history(HISTORY, "q", count_tokens=words, context=context - 1, reply_tokens=100)
    assert fitted.messages == tuple(HISTORY[4:])
    assert fitted.dropped == 2


def test_the_system_prompt_and_a_long_request_take_their_share() -> None:
    roomy = fit_history(HISTORY, "q", count_tokens=words, context=60, reply_tokens=0)
    with_system = fit_history(
        HISTORY, "q", count_tokens=words, context=60, reply_tokens=0,
        system_prompt="be brief " * 5,
    )
    long_request = fit_history(HISTORY, "q " * 40, count_tokens=words, context=60, reply_tokens=0)
    assert roomy.dropped == 0
    assert with_system.dropped > roomy.dropped
    assert long_request.dropped == 3 and long_request.messages == ()


def test_no_gap_in_the_middle() -> None:
    """A huge old exchange that does not fit stops the walk: older small ones stay out too."""
    history = [user("a"), assistant("b"), user("x " * 500), assistant("y"), user("c"),
               assistant("d")]
    fitted = fit_history(history, "q", count_tokens=words, context=100, reply_tokens=0)
    assert fitted.messages == tuple(history[4:])
    assert fitted.dropped == 2


def test_exchanges_start_at_user_turns() -> None:
    history = [assistant("hello"), user("a"), assistant("b"), assistant("c"), user("d")]
    assert [len(g) for g in exchanges(history)] == [1, 3, 1]


# ---- what the cache may reuse in a conversation -------------------------------------------

GREEN = [user("My favourite colour is green. Please remember it."), assistant("I will.")]
BLUE = [user("My favourite colour is blue. Please remember it."), assistant("Noted.")]
FOLLOW_UP = "What is my favourite colour?"


def colour_model(messages: list[ChatMessage]) -> str:
    """Answers from the conversation it is given, like a chat model would."""
    said = " ".join(m.content for m in messages if m.role == "user")
    for colour in ("green", "blue"):
        if colour in said:
            return f"Your favourite colour is {colour}."
    return "I do not know your favourite colour."


def engine(*replies: object) -> StepCache:
    backend = ScriptedBackend(list(replies) or [colour_model])  # type: ignore[arg-type]
    return StepCache(backend, HashedEmbedder(), MemoryStore())


def test_a_follow_up_is_not_served_across_conversations() -> None:
    cache = engine()
    first = cache.answer(FOLLOW_UP, history=GREEN)
    second = cache.answer(FOLLOW_UP, history=BLUE)
    assert first.text == "Your favourite colour is green."
    assert second.text == "Your favourite colour is blue."
    assert second.path == CachePath.MISS and not second.hit
    assert first.stored_entry is None and second.stored_entry is None
    assert cache.store.count() == 0
    assert "a follow-up in a conversation: open text is not cached" in second.notes


def test_a_standalone_answer_is_not_served_to_a_follow_up() -> None:
    """Asked alone, the question is cached; asked inside a conversation, the cached
    'I do not know' must not stand in for what the conversation says."""
    cache = engine()
    alone = cache.answer(FOLLOW_UP)
    assert alone.stored_entry is not None
    again_alone = cache.answer(FOLLOW_UP)
    assert again_alone.path == CachePath.REUSE_ONLY
    in_chat = cache.answer(FOLLOW_UP, history=BLUE)
    assert in_chat.path == CachePath.MISS
    assert in_chat.text == "Your favourite colour is blue."


def test_a_checkable_equation_is_served_across_conversations() -> None:
    cache = engine("3x + 5 = 20\n3x = 15\nx = 5")
    first = cache.answer("Solve 3x + 5 = 20 for x.", history=GREEN)
    assert first.stored_entry is not None
    calls = len(cache.backend.calls)  # type: ignore[attr-defined]
    second = cache.answer("Solve 3x + 5 = 20 for x.", history=BLUE)
    assert second.path == CachePath.REUSE_ONLY and second.hit
    assert second.text == first.text
    assert len(cache.backend.calls) == calls  # type: ignore[attr-defined]


def test_a_json_object_the_prompt_states_is_served_across_conversations() -> None:
    prompt = "Return a JSON object with keys name and age for Ana, 30."
    cache = engine('{"name": "Ana", "age": 30}')
    first = cache.answer(prompt, history=GREEN)
    assert first.verified is True and first.stored_entry is not None
    second = cache.answer(prompt, history=BLUE)
    assert second.hit and second.path == CachePath.REUSE_ONLY
    assert second.text == first.text
