"""The model picker lists local models and servers with their state; an unreachable server
is a one-line error in the app, and switching back needs no restart."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import OptionList

from stepchat.bench.servers import free_port
from stepchat.config import Config, ServerSpec
from stepchat.core.ports import FixedClock
from stepchat.embed.hashed import HashedEmbedder
from stepchat.runtime import Parts, load_backend
from stepchat.store.memory import MemoryStore
from stepchat.tui.app import build_app
from stepchat.tui.screens.dialogs import ModelPickerScreen

from .conftest import FakeLoader, settle
from .test_small_fixes import recorded_notes

pytestmark = pytest.mark.anyio

SIZE = (110, 36)


@pytest.fixture
def with_server(config: Config) -> Config:
    down = ServerSpec(
        id="remote", name="Remote Server", kind="openai",
        base_url=f"http://127.0.0.1:{free_port()}", model="m", timeout_s=2,
    )
    return replace(config, models={**config.models, "remote": down})


class ServerAwareLoader(FakeLoader):
    """Fakes for local entries; the real HTTP backend, loaded, for server entries."""

    def __call__(self, config: Config, model_id: str | None) -> Parts:
        spec = config.model(model_id)
        if not isinstance(spec, ServerSpec):
            return super().__call__(config, model_id)
        self.calls.append(model_id)
        backend = load_backend(config, model_id)
        backend.load()
        return Parts(backend, HashedEmbedder(), MemoryStore())


async def test_the_picker_shows_each_model_with_its_state(
    with_server: Config, clock: FixedClock
) -> None:
    app = build_app(with_server, FakeLoader(), clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        picker = app.screen
        assert isinstance(picker, ModelPickerScreen)
        for _ in range(100):
            await pilot.pause(0.05)
            if len(picker.states) == 3:
                break
        states = picker.states
        assert not states["remote"].usable
        assert states["remote"].detail.startswith("unreachable: cannot reach")
        assert not states["tiny"].usable and "/nonexistent/tiny.gguf" in states["tiny"].detail
        options = picker.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(3)]
        assert "Remote Server  (remote)  ·  unreachable: cannot reach" in prompts[2]
        assert prompts[0].startswith("● Tiny Test Model")


async def test_switching_to_an_unreachable_server_is_a_one_line_error(
    with_server: Config, clock: FixedClock
) -> None:
    """A switch to a server that does not answer keeps the working model and says why in
    one line; started on that server, the app shows the same one-line reason in its banner."""
    loader = ServerAwareLoader()
    app = build_app(with_server, loader, clock, blink=False)
    notes = recorded_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.switch_model("remote")
        await settle(pilot)
        failed = [n for n in notes if n.startswith("Could not load Remote Server")]
        assert len(failed) == 1 and "\n" not in failed[0], notes
        assert "cannot reach" in failed[0] and "fix" in failed[0]
        assert failed[0].endswith("Still on Tiny Test Model.")
        assert app.model_id == "tiny" and app.cache is not None and app.load_error is None
        assert loader.calls == ["tiny", "remote"]

    on_server = replace(with_server, default_model="remote")
    app = build_app(on_server, ServerAwareLoader(), clock, blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.load_error is not None and "\n" not in app.load_error
        assert "cannot reach" in app.load_error and "fix" in app.load_error
        banner: Any = app.chat.query_one("#banner")
        assert "Could not load Remote Server" in str(banner.render())
        app.switch_model("tiny")
        await settle(pilot)
        assert app.load_error is None and app.cache is not None
