"""A reader who stops a reply part way: the cancel a user's Esc or a client's hang-up sets."""

from __future__ import annotations

import threading


class CancelAfter:
    """An `on_token` callback that keeps the pieces and sets `cancel` at the `n`-th."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.seen: list[str] = []
        self.cancel = threading.Event()

    def __call__(self, piece: str) -> None:
        self.seen.append(piece)
        if len(self.seen) == self.n:
            self.cancel.set()
