"""Streaming text adds up to the stored answer; messages become key and history, and the
history is fitted to the context."""

from __future__ import annotations

import itertools

import httpx2 as httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.conversation import MESSAGE_OVERHEAD, dropped_note
from stepchat.core.settings import PipelineSettings
from stepchat.core.tasks.text_task import segment_text, stitch_text
from stepchat.core.types import ChatMessage
from stepchat.serve.app import create_app
from stepchat.serve.protocol import ApiError, MessageIn
from stepchat.serve.textstream import TextStreamer
from stepchat.serve.turns import split_turns
from tests.serve.conftest import MODEL, live, make_pool

PIECES = ["Paris", " is", " big", ".", "\n", "\n\n", " ", "  \n", "- ", "1. ", "* ", "item",
          "\t", "\r\n", "2)", "word", "\n  \n", "x", "`", "```", "```py\n", "~~~", "\r",
          "é", "東京", "\u2028"]


def stream(text: str, cuts: list[int]) -> tuple[list[str], TextStreamer]:
    streamer = TextStreamer()
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    sent = [streamer.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    return sent, streamer


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.lists(st.integers(min_value=0, max_value=400), max_size=30),
)
def test_streamed_text_is_always_a_prefix_of_the_answer(text: str, cuts: list[int]) -> None:
    """Whatever the model writes and however it is cut into tokens, every piece sent is
    part of the final stitched answer, and what is left completes it exactly."""
    final = stitch_text(segment_text(text) or [])
    sent, streamer = stream(text, cuts)
    assert final.startswith("".join(sent))
    rest = streamer.finish(final)
    assert rest is not None and "".join(sent) + rest == final


def test_text_streams_before_the_answer_is_complete() -> None:
    text = "The capital of France is Paris.\n\nIt lies on the Seine.\n\n- one\n- two"
    sent, streamer = stream(text, list(range(0, len(text), 3)))
    early = "".join(sent)
    assert early.startswith("The capital of France is Paris.\n\nIt lies on the Seine.")
    assert streamer.finish(stitch_text(segment_text(text))) is not None


def test_a_list_separator_waits_until_the_next_block_is_known() -> None:
    streamer = TextStreamer()
    assert streamer.feed("- one\n\n- tw") == "- one"
    # "after" could still open a list ("after\n- a\n- b" is one), which would join it to
    # "- two" with one newline: its separator waits for the end.
    assert streamer.feed("o\n\nafter") == "\n- two"
    assert streamer.finish("- one\n- two\n\nafter") == "\n\nafter"


def msg(role: str, content: object) -> MessageIn:
    return MessageIn.model_validate({"role": role, "content": content})


def test_split_turns_keys_on_the_last_user_turn() -> None:
    turns = split_turns([
        msg("system", "Be brief."), msg("developer", "Use SI units."),
        msg("user", "Hi"), msg("assistant", "Hello!"),
        msg("user", [{"type": "text", "text": "Solve:"}, {"type": "text", "text": "x + 1 = 2"}]),
    ])
    assert turns.system_prompt == "Be brief.\n\nUse SI units."
    assert turns.history == (ChatMessage("user", "Hi"), ChatMessage("assistant", "Hello!"))
    assert turns.prompt == "Solve:\nx + 1 = 2"
    assert split_turns([msg("user", "hi")]).system_prompt is None


@pytest.mark.parametrize(
    "messages",
    [
        [msg("system", "only a system prompt")],
        [msg("user", "hi"), msg("assistant", "hello")],
        [msg("tool", "result"), msg("user", "hi")],
        [msg("user", [{"type": "image_url", "image_url": {"url": "x"}}])],
    ],
)
def test_split_turns_refuses_what_it_cannot_key(messages: list[MessageIn]) -> None:
    with pytest.raises(ApiError) as info:
        split_turns(messages)
    assert info.value.status == 400
    # The message names the field as `param` does, in one notation.
    assert info.value.message.startswith(f"{info.value.param}: ") or info.value.param == "messages"


def test_history_is_fitted_to_the_context_by_whole_exchanges() -> None:
    """The server sends earlier turns by the app's rule (`fit_history`): the newest whole
    exchanges that fit beside the system prompt, the request and the reply budget; the
    answer's notes say how many were left out."""
    settings = PipelineSettings(max_tokens=20)
    backend = ScriptedBackend(["Noted."], model_id=MODEL)

    def cost(text: str) -> int:  # the scripted model counts words; the template adds some
        return backend.count_tokens(text) + MESSAGE_OVERHEAD

    history = []
    for i in range(5):
        history += [{"role": "user", "content": f"question {i} " + "w " * 10},
                    {"role": "assistant", "content": f"answer {i} " + "w " * 10}]
    exchange = cost(history[0]["content"]) + cost(history[1]["content"])
    prompt = "Tell me about lighthouses."
    # Room for the reply, the request, the system prompt and two exchanges, not three.
    context = (settings.max_tokens + cost(prompt) + cost(settings.system_prompt)
               + 2 * exchange + exchange // 2)
    with live(create_app(make_pool(backend, settings=settings, context=context))) as url:
        reply = httpx.post(
            url + "/chat/completions", timeout=30,
            json={"model": MODEL, "messages": [*history, {"role": "user", "content": prompt}]},
        )
    assert reply.status_code == 200, reply.text
    sent = [m.content for m in backend.calls[-1] if m.role != "system"]
    assert sent == [m["content"] for m in history[-4:]] + [prompt]
    assert dropped_note(3) in reply.json()["stepchat"]["notes"]
