"""Command-line options more than one command takes, defined once."""

from __future__ import annotations

import argparse


def add_model_option(
    parser: argparse.ArgumentParser, *, command: bool = True, listed: bool = True,
) -> None:
    """`--model ID`, always read as `args.model`.

    The top-level parser (`command=False`) sets the default, None; a command's copy sets
    the value only when given, so `stepchat --model ID ask ...` and `stepchat ask --model
    ID ...` mean the same and neither overwrites the other with a default. A command that
    reads no model takes it unlisted (`listed=False`), so that it is refused with the
    reason rather than read as the command's next word (`cache --model nope list` said
    "invalid choice: 'nope'").
    """
    parser.add_argument(
        "--model",
        metavar="ID",
        default=argparse.SUPPRESS if command else None,
        help="model id, as `stepchat config` lists them (default: the configured one)"
        if listed else argparse.SUPPRESS,
    )
