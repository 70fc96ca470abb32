"""What every full screen of the app shares: typed access to the app that owns it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from stepchat.tui.app import StepchatApp


class AppScreen(Screen[None]):
    @property
    def stepchat(self) -> StepchatApp:
        """The owning app with its real type (imported late: the app imports the screens)."""
        from stepchat.tui.app import StepchatApp

        app = self.app
        assert isinstance(app, StepchatApp)
        return app
