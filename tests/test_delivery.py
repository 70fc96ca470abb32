"""How an answer is delivered is a property of its kind, carried on the route event: the
server, `stepchat ask` and the app stream what streams and render what is Markdown, and no
front end names a kind.

`StreamedReverse` is the registry test's new kind saying that its text streams and is
Markdown; every front end delivers it so without knowing its name.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import httpx2 as httpx
import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Markdown, Static

from stepchat.ask_output import LivePrinter
from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.events import (
    SERVED_WHOLE,
    Delivery,
    PipelineEvent,
    RouteEvent,
    TokenEvent,
)
from stepchat.core.pipeline import StepCache
from stepchat.core.tasks.registry import BUILT_IN
from stepchat.core.types import Answer, CachePath, ChatMessage, Completion, StepStatus
from stepchat.embed.hashed import HashedEmbedder
from stepchat.serve.app import create_app
from stepchat.serve.lanes import ModelLanes
from stepchat.serve.pool import ModelPool
from stepchat.store.memory import MemoryStore
from stepchat.tui.export import to_markdown
from stepchat.tui.history import Conversation, Turn
from stepchat.tui.widgets.steps import AnswerView
from tests.core.test_task_registry import ReverseHandler
from tests.serve.conftest import MODEL, live, user


class StreamedReverse(ReverseHandler):
    kind = "streamed-reverse"
    delivery = Delivery(streams=True, markdown=True)


KINDS = BUILT_IN.with_kind(StreamedReverse.from_settings)
STREAMED = Delivery(streams=True, markdown=True)


def routes(prompt: str, replies: Sequence[str]) -> list[RouteEvent]:
    cache = StepCache(ScriptedBackend(list(replies)), HashedEmbedder(), MemoryStore(), kinds=KINDS)
    events: list[PipelineEvent] = []
    cache.answer(prompt, on_event=events.append)
    return [e for e in events if isinstance(e, RouteEvent)]


@pytest.mark.parametrize(
    ("prompt", "reply", "delivery"),
    [
        ("What is the capital of France?", "Paris.", STREAMED),
        ("Solve for x: 3x + 5 = 20. Show each step.", "", SERVED_WHOLE),
        ("Return a JSON object with keys name and age for Bob, 40.",
         '{"name": "Bob", "age": 40}', Delivery(document="json")),
        ("Reverse the word: banana", "ananab", STREAMED),
    ],
)
def test_the_route_event_carries_the_kinds_delivery(
    prompt: str, reply: str, delivery: Delivery
) -> None:
    [route] = routes(prompt, [reply])
    assert route.delivery == delivery


class Halfway(ScriptedBackend):
    """Writes the first word of its reply, then waits for `rest` before returning."""

    def __init__(self, reply: str) -> None:
        super().__init__([reply], model_id=MODEL)
        self.rest = threading.Event()

    def complete(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Completion:
        on_token = kwargs.pop("on_token")

        def then_wait(piece: str) -> None:
            on_token(piece)
            self.rest.wait(30)

        return super().complete(messages, on_token=then_wait, **kwargs)


def test_serve_streams_a_kind_that_streams_while_the_model_writes() -> None:
    backend = Halfway("ananab")
    engine = StepCache(backend, HashedEmbedder(), MemoryStore(), kinds=KINDS)
    pool = ModelPool({MODEL: ModelLanes(engine, threading.Lock(), context=2048)})
    body = {"model": MODEL, "messages": user("Reverse the word: banana"), "stream": True}
    try:
        with live(create_app(pool)) as url, httpx.stream(
            "POST", url + "/chat/completions", json=body, timeout=5
        ) as raw:
            # The reply started while the model had not finished: it was not served whole.
            assert not backend.rest.is_set()
            assert raw.headers["x-stepchat-path"] == "miss"
            backend.rest.set()
            events = [line[6:] for line in raw.iter_lines() if line.startswith("data: ")]
    finally:
        backend.rest.set()
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == "ananab" and chunks[-1]["stepchat"]["task"] == "streamed-reverse"


@pytest.mark.parametrize(("delivery", "shown"), [(STREAMED, "Hello"), (SERVED_WHOLE, "")])
def test_ask_prints_as_it_streams_only_what_streams(delivery: Delivery, shown: str) -> None:
    out = io.StringIO()
    printer = LivePrinter(out)
    printer.on_event(RouteEvent(CachePath.MISS, None, "streamed-reverse", delivery))
    for piece in ("Hello", " world", ".\n\n", "More"):
        printer.on_event(TokenEvent(piece, StepStatus.REGENERATED))
    assert out.getvalue().startswith(shown) and ("world" in out.getvalue()) == bool(shown)


class OneAnswer(App[None]):
    def compose(self) -> ComposeResult:
        yield AnswerView()


@pytest.mark.anyio
@pytest.mark.parametrize(("delivery", "widget"), [(STREAMED, Markdown), (SERVED_WHOLE, Static)])
async def test_the_app_renders_streamed_text_as_the_kind_says(
    delivery: Delivery, widget: type[Widget]
) -> None:
    app = OneAnswer()
    async with app.run_test() as pilot:
        view = app.query_one(AnswerView)
        await view.apply(RouteEvent(CachePath.MISS, None, "streamed-reverse", delivery))
        await view.apply(TokenEvent("**ananab**", StepStatus.REGENERATED))
        await pilot.pause()
        stream = view.query_one(".stream")
        assert isinstance(stream, widget)


# ---- every kind says it; the answer carries it; the transcript reads it -----------------


class ReverseDocument(ReverseHandler):
    """A kind nobody named "json" whose answer is one JSON document."""

    kind = "reverse-document"
    delivery = Delivery(document="json")


def test_every_built_in_kind_says_how_it_is_delivered() -> None:
    """Declared on each handler class, not left to `delivery_of`'s default: JSON and word
    problems are checked (and may be rewritten) before they are shown, so they are served
    whole; only open text streams."""
    declared = {}
    for make in (*BUILT_IN.claiming, BUILT_IN.fallback):
        handler = make.__self__  # type: ignore[attr-defined]
        assert "delivery" in vars(handler), f"{handler.__name__} does not say"
        declared[handler.kind] = handler.delivery
    assert declared == {
        "linear": SERVED_WHOLE, "word-problem": SERVED_WHOLE, "text": STREAMED,
        "json": Delivery(document="json"),
    }
    assert not any(d.streams for k, d in declared.items() if k != "text")


def _exported(answer: Answer) -> str:
    return to_markdown(Conversation("c", 0, 0, "tiny", [Turn(answer.prompt, answer=answer)]))


def test_the_answer_carries_the_delivery_and_the_transcript_reads_only_that() -> None:
    kinds = BUILT_IN.with_kind(ReverseDocument.from_settings)
    cache = StepCache(ScriptedBackend(['{"name": "Bob", "age": 40}']), HashedEmbedder(),
                      MemoryStore(), kinds=kinds)
    json_answer = cache.answer("Return a JSON object with keys name and age for Bob, 40.")
    assert json_answer.delivery == Delivery(document="json")
    assert "```json\n" in _exported(json_answer)
    # Another kind whose delivery says JSON document is written as one, by that alone...
    other = cache.answer("Reverse the word: banana")
    assert other.task == "reverse-document" and other.delivery.document == "json"
    assert "```json\nananab\n```" in _exported(other)
    # ...and a kind named "json" whose delivery does not say so is not.
    plain = replace(json_answer, delivery=SERVED_WHOLE)
    assert "```json" not in _exported(plain)


def test_a_saved_conversation_keeps_the_delivery_and_an_old_file_asks_the_kinds() -> None:
    kinds = BUILT_IN.with_kind(ReverseDocument.from_settings)
    cache = StepCache(ScriptedBackend(["x"]), HashedEmbedder(), MemoryStore(), kinds=kinds)
    answer = cache.answer("Reverse the word: banana")
    saved = Turn(answer.prompt, answer=answer).to_json()
    assert saved["delivery"] == {"streams": False, "markdown": False, "document": "json"}
    # A kind the built-in ones do not know is read back from the file itself.
    loaded = Turn.from_json(json.loads(json.dumps(saved)))
    assert loaded.answer is not None and loaded.answer.delivery == Delivery(document="json")
    # A file saved before the delivery was kept beside the record: its kind's, by name.
    old = {"prompt": "JSON for Bob", "record": {"path": "solver", "task": "json", "steps": [
        {"text": '"name": "Bob"', "status": "fallback", "kind": "member", "key": "name"}]}}
    loaded = Turn.from_json(old)
    assert loaded.answer is not None and loaded.answer.delivery == Delivery(document="json")
    assert "```json" in _exported(loaded.answer)
    broken = {**old, "delivery": {"streams": "yes", "document": 5}}
    loaded = Turn.from_json(broken)
    assert loaded.answer is not None and loaded.answer.delivery == SERVED_WHOLE
