"""A conversation's earlier turns: trimmed to the context, and what the cache may reuse.

The cache's conversation rule is here: a request after earlier turns may lean on them
("every number I write is in base 8", "Bruno is a chef"), whatever its kind, so it is never
served an answer cached under another conversation or alone, nor stored; the model it goes
to is sent those turns.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def colour_model(messages: Sequence[ChatMessage]) -> str:
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
    assert "a follow-up in a conversation: not cached" in second.notes


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


def test_an_equation_in_a_conversation_is_neither_served_nor_stored() -> None:
    """Checked against the request alone, a cached equation would hold; the earlier turn
    says its numbers are octal, which no check reads."""
    cache = engine("3x + 5 = 20\n3x = 15\nx = 5")
    alone = cache.answer("Solve 3x + 5 = 20 for x.")
    assert alone.stored_entry is not None
    octal = [user("In this chat every number I write is in base 8."), assistant("Understood.")]
    in_chat = cache.answer("Solve 3x + 5 = 20 for x.", history=octal)
    assert not in_chat.hit and in_chat.stored_entry is None
    assert "a follow-up in a conversation: not cached" in in_chat.notes
    assert cache.store.count() == 1


def test_a_json_request_in_a_conversation_goes_to_the_model_with_its_turns() -> None:
    """The bio cached alone says pilot; the conversation says chef, and the model is sent
    that turn under the JSON task's own system prompt."""
    prompt = "Return a JSON object with keys name and bio for Bruno, with a short bio."

    def bio_model(messages: Sequence[ChatMessage]) -> str:
        said = " ".join(m.content for m in messages[:-1])
        job = "chef in Paris" if "chef" in said else "pilot"
        return f'{{"name": "Bruno", "bio": "Bruno is a {job}."}}'

    cache = engine(bio_model, bio_model)
    alone = cache.answer(prompt)
    assert "pilot" in alone.text and alone.stored_entry is not None
    chef = [user("Bruno is a chef in Paris; he has never flown a plane."), assistant("Noted.")]
    in_chat = cache.answer(prompt, history=chef)
    assert not in_chat.hit and "chef in Paris" in in_chat.text
    assert in_chat.stored_entry is None and cache.store.count() == 1


def test_earlier_turns_trimmed_away_still_make_a_follow_up() -> None:
    """A front end that had to drop every earlier turn to fit the context sends none, and
    says there were some: what they said may still be what the request leans on."""
    cache = engine()
    cache.answer(FOLLOW_UP)
    trimmed = cache.answer(FOLLOW_UP, in_conversation=True)
    assert not trimmed.hit and trimmed.stored_entry is None
    assert "a follow-up in a conversation: not cached" in trimmed.notes
