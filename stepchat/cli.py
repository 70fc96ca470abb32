"""The `stepchat` command: the app, one-shot questions, cache housekeeping, the bench, the server.

Every failure a user can cause or meet (a bad prompt, a missing model, an unusable cache)
ends as one line on stderr and exit status 2, never a traceback; so does output that cannot
be written (`> /dev/full`), while a reader that goes away (`| head -1`) ends it quietly.
Ctrl+C ends it with "interrupted" and status 130, as the shell reports a command SIGINT
stopped. An answer that was computed is always printed, even when the cache cannot keep it
(a full disk): a warning line follows.
Whatever is printed for a person passes through `safetext.clean` (prompts and steps come
from users, the model and files on disk, and may carry terminal escapes); `--json` spells
control and bidirectional characters as `\\uXXXX`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stepchat import __version__
from stepchat.config import Config, ConfigError, load_config, with_system_prompt
from stepchat.core.listing import EntrySummary
from stepchat.core.ports import (
    BackendError,
    GenerationCancelled,
    MaintainedStore,
    Store,
    StoreError,
)
from stepchat.core.prompt import PromptError
from stepchat.core.safetext import clean, escape_json_controls, one_line
from stepchat.core.scope import scope_tag
from stepchat.core.types import UNVOUCHED, Answer, CacheEntry
from stepchat.options import add_model_option
from stepchat.output import OutputError, flush_stdout, say, writing
from stepchat.paths import PRIVATE_UMASK

if TYPE_CHECKING:
    from stepchat.ask_output import LivePrinter

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_ZERO = re.compile(r"^0+(?:\.0+)?$")


MIN_AGE_SECONDS = 60
"""The least age `cache evict --older-than` takes: under it nearly every entry goes,
which `cache clear` does after asking."""


@dataclass(frozen=True)
class Age:
    """An age as typed (`30m`) and in seconds."""

    text: str
    seconds: float


def parse_duration(text: str) -> Age:
    """`7d`, `12h`, `30m` -> seconds; a zero needs no unit (`0`), so that what it would
    do is said (`_refusal`) rather than how to write an age."""
    if _ZERO.match(text.strip()):
        return Age(text.strip(), 0.0)
    m = _DURATION.match(text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"expected an age such as 7d, 12h or 30m, got {text!r}")
    return Age(text.strip(), float(m.group(1)) * _UNIT_SECONDS[m.group(2)])


def positive_int(text: str) -> int:
    """A count that must be at least 1 (`--limit`)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")
    return value


_DASHED_VALUE = re.compile(r"^-\d")
"""What argparse should read as a value, not an option: `--older-than -1d` then reaches
`parse_duration` and is told what an age looks like, where argparse alone would take
`-1d` for an unknown option and say that --older-than "expected one argument"."""


_ENTRY_ID_HELP = "the entry's id, as `stepchat cache list` prints it first on its line"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stepchat",
        description=(
            "A terminal chat client whose answers pass through a verified step-level cache. "
            "With no command, opens the chat app."
        ),
        epilog="Configuration: `stepchat config` shows the config file (config.toml), the "
        "models and where each came from; `stepchat config --edit` opens it.",
    )
    parser.add_argument("--version", action="version", version=f"stepchat {__version__}")
    add_model_option(parser, command=False)
    parser.set_defaults(func=_run_app)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ask = sub.add_parser(
        "ask", help="answer one prompt and exit",
        description="Answer one prompt through the cache. On a terminal open text is shown "
        "as the model writes it; piped, and with --json, the output comes whole at the end. "
        "Sampling (temperature, max_tokens, ...) is the model entry's in config.toml.",
    )
    ask.add_argument("prompt", help="the request; '-' reads it from standard input")
    ask.add_argument("--json", action="store_true", help="print one JSON record with the story")
    ask.add_argument(
        "-s", "--system", metavar="TEXT",
        help="the system prompt for this request (default: system_prompt in config.toml); "
        "answers are cached under it apart from others",
    )
    add_model_option(ask)
    ask.add_argument("--no-cache", action="store_true", help="neither reuse nor store")
    ask.add_argument("--no-store", action="store_true", help="reuse, but store nothing")
    ask.set_defaults(func=_ask)

    cache = sub.add_parser(
        "cache", help="look into and clean the cache",
        description="Look into and clean the cache (stepchat config says where it is).",
    )
    add_model_option(cache, listed=False)
    cache.set_defaults(func=_cache)
    cache_sub = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    listing = cache_sub.add_parser(
        "list", help="cached requests, most recently hit first",
        description="One line an entry: its id, kind, scope, steps, hits, last hit and "
        "prompt. The scope tags the model and system prompt the entry was cached under: it "
        "is reused only there (stepchat config shows the scope in effect), so one prompt "
        "may be listed once for each.",
    )
    listing.add_argument(
        "--limit", type=positive_int, default=50, metavar="N",
        help="list at most N entries (default: 50)",
    )
    listing.set_defaults(cache_action=_list)
    show = cache_sub.add_parser("show", help="one entry with its steps")
    show.add_argument("entry_id", help=_ENTRY_ID_HELP)
    show.set_defaults(cache_action=_show)
    evict = cache_sub.add_parser("evict", help="remove one entry, or all older than a duration")
    evict._negative_number_matcher = _DASHED_VALUE
    evict.add_argument("entry_id", nargs="?", help=_ENTRY_ID_HELP)
    evict.add_argument(
        "--older-than", type=parse_duration, metavar="DURATION",
        help="instead of one entry, every entry not hit for this long: 30m, 12h, 7d, 2w "
        "(1m at least; `stepchat cache clear` removes them all)",
    )
    evict.set_defaults(cache_action=_evict)
    clear = cache_sub.add_parser(
        "clear", help="remove every entry (asks first; --yes for scripts)"
    )
    clear.add_argument("--yes", action="store_true", help="do not ask: remove every entry")
    clear.set_defaults(cache_action=_clear)
    stats = cache_sub.add_parser("stats", help="entry count, size on disk, index kind")
    stats.set_defaults(cache_action=_stats)
    compact = cache_sub.add_parser(
        "compact", help="rewrite the cache files now: evicted prompts leave no trace on disk"
    )
    compact.set_defaults(cache_action=_compact)
    _describe_by_help(cache_sub)

    from stepchat.config_command import register as register_config
    from stepchat.serve.command import register as register_serve

    register_config(sub)
    register_serve(sub)
    try:
        from stepchat.bench.command import register
    except ImportError:  # the bench is optional at import time only
        pass
    else:
        register(sub)
    return parser


def _describe_by_help(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """A command's own `--help` says what its line in the list says, where it says nothing
    more (`stepchat cache stats --help` showed only the usage)."""
    for listed in commands._choices_actions:
        command = commands.choices[listed.dest]
        if command.description is None and listed.help:
            command.description = listed.help[0].upper() + listed.help[1:] + "."


def _warn(message: str) -> None:
    """One line on stderr."""
    print(f"stepchat: {one_line(message)}", file=sys.stderr)


def _fail(message: str) -> int:
    _warn(message)
    return 2


def _print_json(data: Any, indent: int | None = None) -> None:
    with writing():
        print(escape_json_controls(json.dumps(data, ensure_ascii=False, indent=indent)))


_SAMPLING = ("--temperature", "--top-p", "--top_p", "--max-tokens", "--max_tokens", "--seed")


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments, or a usage error naming the first unknown option by itself: argparse
    alone reads `ask --temperature 0.5 "hi"` as a prompt "0.5" and complains about
    "--temperature hi". Either error shows the usage of the command it is about."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    command = _command_parser(parser, args)
    unknown = next((word for word in extra if word.startswith("-") and word != "-"), None)
    if unknown is None:
        quote = " (a prompt of several words goes in quotes)" if args.command == "ask" else ""
        command.error(f"unrecognized arguments: {' '.join(extra)}{quote}")
    name = unknown.split("=", 1)[0]
    hint = (
        ": sampling is set on the model's entry in config.toml (see: stepchat config)"
        if name in _SAMPLING else f" (see: {command.prog} --help)"
    )
    command.error(f"unknown option {name}{hint}")


def _command_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the innermost command `args` names (`stepchat cache stats`): its usage
    line is the one to show."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest or "", None)
            if chosen in action.choices:
                return _command_parser(action.choices[chosen], args)
    return parser


INTERRUPTED = 130
"""The exit status after Ctrl+C: 128 + SIGINT, as shells report a process the signal
stopped, so a script can tell it from a failure (2)."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        status = _main(argv)
        flush_stdout()
        return status
    except BrokenPipeError:
        # The reader went away (`stepchat cache list | head -1`): stop quietly.
        _discard_stdout()
        return 0
    except OutputError as exc:
        _discard_stdout()
        return _fail(f"cannot write the output: {exc}")
    except KeyboardInterrupt:
        _warn("interrupted")
        return INTERRUPTED


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of what is still
    buffered for a closed pipe or a full disk does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):  # stdout may have no descriptor
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


_WITHOUT_A_MODEL = {
    "cache": "the cache holds every model's entries",
    "config": "it shows every model (the default is `default` in config.toml)",
}
"""Commands that read no model, and why: `--model` given to them was accepted and
ignored, even an id no model has."""


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = _parse(parser, argv)
    if args.model is not None and args.command in _WITHOUT_A_MODEL:
        return _fail(f"--model does not apply to {args.command}: "
                     f"{_WITHOUT_A_MODEL[args.command]}")
    if args.command != "bench":
        os.umask(PRIVATE_UMASK)  # the cache's files, history and exports: the user's only
    try:
        return int(args.func(args))
    except (ConfigError, BackendError, StoreError, PromptError) as exc:
        return _fail(str(exc))
    except GenerationCancelled:
        return _fail("cancelled")


def _run_app(args: argparse.Namespace) -> int:
    """No command: the chat app. It paints the whole screen and reads keys, so it needs a
    terminal at both ends; from a script or a pipe it would write escapes into the output
    and wait for keys that never come."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail('the app needs a terminal; from a script or a pipe use: stepchat ask "..."')
    from stepchat.tui import run

    return run(load_config(), args.model)


def _ask(args: argparse.Namespace) -> int:
    """One answer. Parts load as the request needs them: a structural hit reads only the
    signature index; the embedder and the model load only when a request gets that far.
    Without storing, the cache is opened read-only: no byte is written, not even hits."""
    config = load_config()
    from stepchat.ask_output import LivePrinter
    from stepchat.core.events import ignore_events
    from stepchat.runtime import build_cache, lazy_parts

    # Bytes from stdin: clean_prompt turns non-UTF-8 input into a one-line error.
    prompt: str | bytes = sys.stdin.buffer.read() if args.prompt == "-" else args.prompt
    if args.system is not None:
        config = with_system_prompt(config, args.system)
    store = not (args.no_cache or args.no_store)
    parts = lazy_parts(config, args.model, writable=store)
    cache = build_cache(config, parts)
    live = LivePrinter(sys.stdout) if not args.json and sys.stdout.isatty() else None
    try:
        answer = cache.answer(
            prompt, read_cache=not args.no_cache, write_cache=store,
            on_event=live.on_event if live else ignore_events,
        )
    except BaseException:
        if live is not None:
            live.cut_off()
        _close_quietly(parts.store)
        raise
    finally:
        for warning in parts.warnings:
            _warn(warning)
    try:
        _print_answer(args, answer, live)
    except BaseException:  # the output failed: the cache is still closed properly
        _close_quietly(parts.store)
        raise
    _close_after_answer(parts.store)
    return 0


def _print_answer(args: argparse.Namespace, answer: Answer, live: LivePrinter | None) -> None:
    """The answer on stdout (whole, streamed or as JSON), its notes on stderr."""
    if args.json:
        _print_json(answer.to_record())
    elif live is not None:
        live.finish(answer.text)
    else:
        say(answer.text)
        loose = [json.dumps(s.key) for s in answer.steps
                 if s.key and s.check in UNVOUCHED]
        if loose:
            _warn(f"not confirmed by the prompt: {', '.join(loose)}")
    for note in answer.notes:
        _warn(note)


def _close_after_answer(store: Store) -> None:
    """Write the queued hit counts and finish the upkeep; what goes wrong is a warning,
    since the answer is already out."""
    from stepchat.runtime import close_store

    try:
        close_store(store)
    except StoreError as exc:
        _warn(f"hit counts not saved: {exc}")
    for note in store.drain_notes():  # a shared cache's, from writing at the end
        _warn(note)


def _close_quietly(store: Store) -> None:
    """On the way out after a failure: finish what can be finished, report nothing more."""
    from stepchat.runtime import close_store

    with contextlib.suppress(StoreError):
        close_store(store)


def _open_store(config: Config) -> MaintainedStore:
    """The cache with its signature index, so evictions reach the index too."""
    from stepchat.runtime import open_cache_store

    return open_cache_store(config)


def _count(n: int, noun: str) -> str:
    """`1 step`, `3 steps`, padded by the caller so the columns align either way."""
    return f"{n} {noun}" + (" " if n == 1 else "s")


def _summary(row: EntrySummary, task_width: int) -> str:
    """One entry's line, its kind padded to `task_width` so the columns after it align."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.last_hit))
    counts = f"{_count(row.steps, 'step'):>9} {_count(row.hits, 'hit'):>9}"
    scope = one_line(scope_tag(row.scope))
    return (f"{one_line(row.id)}  {row.task:<{task_width}}  {scope} {counts}  "
            f"{when}  {one_line(row.prompt, 60)}")


def _cache(args: argparse.Namespace) -> int:
    """Run the cache action on the cache, opened for it and closed after it (queued hit
    counts written, background upkeep finished)."""
    config = load_config()
    refused = _refusal(args)
    if refused:
        return _fail(refused)
    store = _open_store(config)
    try:
        status = int(args.cache_action(store, config, args))
    except BaseException:
        _close_quietly(store)
        raise
    from stepchat.runtime import close_store

    close_store(store)
    return status


def _refusal(args: argparse.Namespace) -> str | None:
    """Why the action must not run, said before the cache is opened; None if it may."""
    if args.cache_command == "clear" and not args.yes and not sys.stdin.isatty():
        return "cache clear removes every entry: pass --yes to confirm"
    if args.cache_command == "evict":
        return _evict_refusal(args.entry_id, args.older_than)
    return None


def _evict_refusal(entry_id: str | None, older_than: Age | None) -> str | None:
    """One entry or an age, never both (the id would be silently ignored); an age of 0
    would empty the cache without the question `cache clear` asks first."""
    if entry_id is not None and older_than is not None:
        return "cache evict takes an entry id or --older-than DURATION, not both"
    if entry_id is None and older_than is None:
        return "cache evict needs an entry id or --older-than DURATION"
    if older_than is not None and older_than.seconds == 0:
        return (f"cache evict --older-than {older_than.text} would remove every entry: "
                "use stepchat cache clear, which asks first")
    if older_than is not None and older_than.seconds < MIN_AGE_SECONDS:
        return (f"cache evict --older-than {older_than.text} would remove nearly every entry: "
                "ages start at 1m; stepchat cache clear removes them all, asking first")
    return None


def _list(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    """One line an entry on stdout; for an empty cache a line on stderr, so that stdout
    still has as many lines as there are entries (`| wc -l`)."""
    rows = store.listing(limit=args.limit).rows
    width = max((len(row.task) for row in rows), default=0)
    for row in rows:
        say(_summary(row, width))
    if not rows:
        _warn(f"no entries in the cache ({config.cache_location.uri})")
    return 0


def _show(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    found = store.get(args.entry_id)
    if found is None:
        return _fail(f"no cache entry {args.entry_id!r} (see: stepchat cache list)")
    _print_json(_entry_record(found), indent=2)
    return 0


def _compact(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    before = store.stats()["disk_bytes"]
    store.purge()
    say(f"compacted: {before} -> {store.stats()['disk_bytes']} bytes on disk")
    return 0


def _stats(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    for key, value in store.stats().items():
        say(f"{key}: {value}")
    return 0


def _clear(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    """Remove every entry, after a yes on the terminal (or `--yes`)."""
    if not args.yes:
        count = store.count()
        try:
            reply = input(f"remove all {count} entries from {clean(config.cache_location.uri)}? "
                          "[y/N] ")
        except EOFError:
            reply = ""
        if reply.strip().lower() not in ("y", "yes"):
            say("nothing removed")
            return 1
    say(f"cleared {store.clear()} entries")
    return 0


def _evict(store: MaintainedStore, config: Config, args: argparse.Namespace) -> int:
    """Evictions are final on disk when this returns: the files holding the prompt are
    rewritten (`LanceStore.purge`), so no data file or old version keeps its text."""
    if args.older_than is not None:
        removed = store.evict_older_than(args.older_than.seconds, time.time())
        entries = "entry" if removed == 1 else "entries"
        say(f"evicted {removed} {entries} not hit for {args.older_than.text}")
        return 0
    if not store.delete(args.entry_id):
        return _fail(f"no cache entry {args.entry_id!r} (see: stepchat cache list)")
    store.purge()
    say(f"evicted {args.entry_id}")
    return 0


def _entry_record(entry: CacheEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "prompt": entry.prompt,
        "task": str(entry.task),
        "model": entry.model,
        "scope": entry.scope,
        "signature": entry.signature,
        "constraints": entry.constraints,
        "steps": [{"text": s.text, "kind": s.kind, "key": s.key} for s in entry.steps],
        "created": entry.created,
        "last_hit": entry.last_hit,
        "hits": entry.hits,
        "tokens": entry.tokens,
    }


if __name__ == "__main__":
    raise SystemExit(main())
