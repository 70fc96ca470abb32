"""The `stepchat` command: the app, one-shot questions, cache housekeeping, the bench, the server.

Every failure a user can cause or meet (a bad prompt, a missing model, an unusable cache)
ends as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

from stepchat import __version__
from stepchat.config import Config, ConfigError, load_config
from stepchat.core.ports import BackendError, GenerationCancelled, StoreError
from stepchat.core.prompt import PromptError
from stepchat.core.types import CacheEntry

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """`7d`, `12h`, `30m` -> seconds."""
    m = _DURATION.match(text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (try 7d, 12h, 30m)")
    return float(m.group(1)) * _UNIT_SECONDS[m.group(2)]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stepchat",
        description=(
            "A terminal chat client whose answers pass through a verified step-level cache. "
            "With no command, opens the chat app."
        ),
        epilog="Config: $STEPCHAT_HOME or the platform user dirs; see README.md.",
    )
    parser.add_argument("--version", action="version", version=f"stepchat {__version__}")
    parser.add_argument("--model", help="model id from models.toml (default: the configured one)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ask = sub.add_parser("ask", help="answer one prompt and exit")
    ask.add_argument("prompt", help="the request; '-' reads it from standard input")
    ask.add_argument("--json", action="store_true", help="print one JSON record with the story")
    ask.add_argument("--model", dest="model_override", help="model id from models.toml")
    ask.add_argument("--no-cache", action="store_true", help="neither reuse nor store")
    ask.add_argument("--no-store", action="store_true", help="reuse, but store nothing")

    cache = sub.add_parser("cache", help="look into and clean the cache")
    cache_sub = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    listing = cache_sub.add_parser("list", help="cached requests, most recently hit first")
    listing.add_argument("--limit", type=int, default=50)
    show = cache_sub.add_parser("show", help="one entry with its steps")
    show.add_argument("entry_id")
    evict = cache_sub.add_parser("evict", help="remove one entry, or all older than a duration")
    evict.add_argument("entry_id", nargs="?")
    evict.add_argument("--older-than", type=parse_duration, metavar="DURATION")
    cache_sub.add_parser("clear", help="remove every entry")
    cache_sub.add_parser("stats", help="entry count, size on disk, index kind")

    from stepchat.serve.command import register as register_serve

    register_serve(sub)
    try:
        from stepchat.bench.command import register
    except ImportError:  # the bench is optional at import time only
        pass
    else:
        register(sub)
    return parser


def _fail(message: str) -> int:
    print(f"stepchat: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = load_config()
        if args.command == "ask":
            return _ask(config, args)
        if args.command == "cache":
            return _cache(config, args)
        if args.command == "bench":
            return int(args.run_bench(args))
        if args.command == "serve":
            return int(args.run_serve(config, args))
        from stepchat.tui import run

        return run(config, args.model)
    except (ConfigError, BackendError, StoreError, PromptError) as exc:
        return _fail(str(exc))
    except GenerationCancelled:
        return _fail("cancelled")
    except KeyboardInterrupt:
        return _fail("interrupted")


def _ask(config: Config, args: argparse.Namespace) -> int:
    """One answer. Parts load as the request needs them: a structural hit reads only the
    signature index; the embedder and the model load only when a request gets that far."""
    from stepchat.runtime import build_cache, flush_store, lazy_parts

    # Bytes from stdin: clean_prompt turns non-UTF-8 input into a one-line error.
    prompt: str | bytes = sys.stdin.buffer.read() if args.prompt == "-" else args.prompt
    parts = lazy_parts(config, args.model_override or args.model)
    cache = build_cache(config, parts)
    try:
        answer = cache.answer(
            prompt,
            reuse=not args.no_cache,
            store=not (args.no_cache or args.no_store),
        )
    finally:
        flush_store(parts.store)
        for warning in parts.warnings:
            print(f"stepchat: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(answer.to_record(), ensure_ascii=False))
    else:
        print(answer.text)
        for note in answer.notes:
            print(f"stepchat: {note}", file=sys.stderr)
    return 0


def _open_store(config: Config) -> Any:
    """The cache with its signature index, so evictions reach the index too."""
    from stepchat.runtime import open_cache_store

    return open_cache_store(config)


def _summary(entry: CacheEntry) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.last_hit))
    prompt = " ".join(entry.prompt.split())
    if len(prompt) > 60:
        prompt = prompt[:59] + "…"
    counts = f"{len(entry.steps):>3} steps {entry.hits:>4} hits"
    return f"{entry.id}  {entry.task:<6} {counts}  {when}  {prompt}"


def _cache(config: Config, args: argparse.Namespace) -> int:
    store = _open_store(config)
    action = args.cache_command
    if action == "list":
        for entry in store.entries(limit=args.limit):
            print(_summary(entry))
        return 0
    if action == "show":
        found = store.get(args.entry_id)
        if found is None:
            return _fail(f"no cache entry {args.entry_id!r} (see: stepchat cache list)")
        print(json.dumps(_entry_record(found), indent=2, ensure_ascii=False))
        return 0
    if action == "evict":
        if args.older_than is not None:
            removed = store.evict_older_than(args.older_than, time.time())
            print(f"evicted {removed} entries not hit for {args.older_than:.0f} s")
            return 0
        if not args.entry_id:
            return _fail("cache evict needs an entry id or --older-than DURATION")
        if not store.delete(args.entry_id):
            return _fail(f"no cache entry {args.entry_id!r} (see: stepchat cache list)")
        print(f"evicted {args.entry_id}")
        return 0
    if action == "clear":
        print(f"cleared {store.clear()} entries")
        return 0
    stats = store.stats()
    for key, value in stats.items():
        print(f"{key}: {value}")
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
