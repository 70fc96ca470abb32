"""The chat's scrolling column: it follows new text until the user scrolls up to read.

Textual's anchor keeps a scrolled widget at the bottom while content grows, and re-anchors
whenever the position reaches the bottom, which also happens when an answer's final layout
is shorter than its stream and the position is clamped: the reader is pulled back down.
Here following is the user's choice alone: any scroll away from the bottom stops it; a
scroll of theirs that ends at the bottom, or End, resumes it.
"""

from __future__ import annotations

from textual.containers import VerticalScroll


class Transcript(VerticalScroll):
    """A VerticalScroll whose following only the user turns off and on."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.following = True
        self._user_scrolled = False
        """A scroll of the user's released Textual's anchor since we last anchored."""

    def release_anchor(self) -> None:
        """Textual calls this for every scroll the user makes (keys, wheel, scrollbar)."""
        super().release_anchor()
        self._user_scrolled = True

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._user_scrolled:
            return
        # The user's own scroll sets the target (clamped to the bottom at most); a clamp
        # after content shrank moves the position but leaves the target where it was.
        bottom = self.max_scroll_y
        at_bottom = new_value >= bottom and round(self.scroll_target_y) == bottom
        if at_bottom and not self.following:
            # Not from inside the watcher: anchoring scrolls, and this may be an animation
            # step of the same scroll.
            self.following = True
            self.call_after_refresh(self.follow)
        elif not at_bottom and self.following:
            self.following = False
            self.anchor(False)

    def watch_virtual_size(self) -> None:
        """Content grew (streamed text drawn, an answer settled): once it overflows, anchor.
        After the layout that changed it, so the bottom is where the new text is."""
        self.call_after_refresh(self.follow)

    def resume_following(self) -> None:
        """Back to the newest text, and stay there as it grows (End, or a scroll to bottom)."""
        self.following = True
        self.follow()

    def follow(self) -> None:
        """Keep the newest text in view, if following, once there is something to scroll.

        Anchoring a short transcript would push it to the bottom of the screen, so the anchor
        is set only once the content overflows. A scroll of the user's that ended at the
        bottom (or went nowhere, already there) released Textual's anchor: set it again.
        """
        if not self.following or self.max_scroll_y <= 0:
            return
        if not self.is_anchored or self._user_scrolled:
            self._user_scrolled = False
            self.anchor()

    def reset(self) -> None:
        """A new or reopened conversation starts at its newest turn, following."""
        self.anchor(False)
        self.following = True
        self._user_scrolled = False
