"""`stepchat bench --serve`: concurrent clients against `stepchat serve` and the bare server.

The same client code (the official `openai` client, one per client thread) replays the
first requests of a seeded workload, in order, with 1, 4 and 16 clients at once: against
`stepchat serve` (a fresh, empty cache for each level), then against the model served
directly (`python -m llama_cpp.server` on the same GGUF, or the server a `kind = "openai"`
entry names). Reported per level: throughput, p50/p95/p99 latency, errors, the share
served from the cache, and the share the bench's checker judges correct.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from stepchat.backends.openai_http import api_root
from stepchat.bench.checker import check
from stepchat.bench.metrics import percentile
from stepchat.bench.records import Request
from stepchat.bench.servers import (
    free_port,
    llama_server_command,
    running,
    serve_command,
)
from stepchat.config import Config, ModelEntry, ServerSpec
from stepchat.core.types import is_hit_path
from stepchat.output import say

DEFAULT_LEVELS = (1, 4, 16)
DEFAULT_REQUESTS = 48


@dataclass(frozen=True)
class Outcome:
    """One request as a client saw it."""

    id: str
    latency_s: float
    path: str
    correct: bool
    error: str = ""


def replay(
    base_url: str,
    model: str,
    requests: Sequence[Request],
    clients: int,
    *,
    max_tokens: int,
    temperature: float,
    api_key: str | None = None,
) -> tuple[list[Outcome], float]:
    """Send `requests` in order from `clients` threads at once; outcomes and wall seconds."""
    import openai

    queue = list(reversed(requests))
    lock = threading.Lock()
    outcomes: list[Outcome] = []

    def client_loop() -> None:
        client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", max_retries=0,
                               timeout=900)
        while True:
            with lock:
                if not queue:
                    return
                request = queue.pop()
            outcomes.append(_one(client, model, request, max_tokens, temperature))

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(client_loop) for _ in range(clients)]:
            future.result()
    return outcomes, time.perf_counter() - started


def _one(client: Any, model: str, request: Request, max_tokens: int,
         temperature: float) -> Outcome:
    started = time.perf_counter()
    try:
        raw = client.chat.completions.with_raw_response.create(
            model=model, messages=[{"role": "user", "content": request.prompt}],
            max_tokens=max_tokens, temperature=temperature,
        )
        text = raw.parse().choices[0].message.content or ""
    except Exception as exc:  # an error is a result of the run, counted
        return Outcome(request.id, time.perf_counter() - started, "error", False,
                       f"{type(exc).__name__}: {exc}"[:200])
    elapsed = time.perf_counter() - started
    path = raw.headers.get("x-stepchat-path", "model")
    return Outcome(request.id, elapsed, path, check(text, request.check).ok)


def level_metrics(outcomes: Sequence[Outcome], wall_s: float) -> dict[str, Any]:
    latencies = [o.latency_s for o in outcomes if not o.error]
    n = len(outcomes)
    return {
        "requests": n,
        "wall_s": wall_s,
        "throughput_rps": n / wall_s if wall_s else math.nan,
        "p50_s": percentile(latencies, 50) if latencies else math.nan,
        "p95_s": percentile(latencies, 95) if latencies else math.nan,
        "p99_s": percentile(latencies, 99) if latencies else math.nan,
        "errors": sum(1 for o in outcomes if o.error),
        "from_cache": sum(1 for o in outcomes if is_hit_path(o.path)) / n if n else math.nan,
        "correct": sum(1 for o in outcomes if o.correct) / n if n else math.nan,
    }


def serve_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| target | clients | req/s | p50 s | p95 s | p99 s | errors | from cache | correct |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['target']} | {r['clients']} | {r['throughput_rps']:.2f} | {r['p50_s']:.3f} "
            f"| {r['p95_s']:.3f} | {r['p99_s']:.3f} | {r['errors']} "
            f"| {r['from_cache']:.0%} | {r['correct']:.0%} |"
        )
    return "\n".join(lines) + "\n"


@contextmanager
def direct_server(spec: ModelEntry, config: Config, log: Path) -> Iterator[tuple[str, str]]:
    """The model without the cache, as (base URL, model name): a llama_cpp.server started on
    the entry's GGUF, or the server a `kind = "openai"` entry names."""
    if isinstance(spec, ServerSpec):
        yield api_root(spec.base_url), spec.model
        return
    port = free_port()
    command = llama_server_command(
        spec.gguf_path(), port, alias=spec.id, context=spec.context,
        threads=config.threads, chat_format=spec.chat_format,
    )
    url = f"http://127.0.0.1:{port}/v1"
    with running(command, url + "/models", log):
        yield url, spec.id


def run_serve_bench(
    config: Config,
    spec: ModelEntry,
    requests: Sequence[Request],
    levels: Sequence[int],
    out: Path,
) -> list[dict[str, Any]]:
    """Every level against stepchat serve (fresh cache each) and the bare server."""
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    settings = {"max_tokens": spec.max_tokens, "temperature": spec.temperature}
    direct_key = spec.api_key() if isinstance(spec, ServerSpec) else None
    with tempfile.TemporaryDirectory(prefix="stepchat-serve-bench-") as tmp, \
            direct_server(spec, config, out / "direct.log") as (direct_url, direct_model):
        for clients in levels:
            home = Path(tmp) / f"home-{clients}"
            port = free_port()
            env = {"STEPCHAT_HOME": str(home)}
            user_config = config.config_file or config.paths.config_file
            if user_config.exists():
                env["STEPCHAT_CONFIG"] = str(user_config)
            extra = ["--queue", str(max(levels) * 2), "--threads", str(config.threads)]
            with running(serve_command(port, [spec.id], extra),
                         f"http://127.0.0.1:{port}/health/ready", out / f"serve-{clients}.log",
                         env=env):
                url = f"http://127.0.0.1:{port}/v1"
                rows.append(_measure("stepchat serve", url, spec.id, requests, clients,
                                     settings, out))
            rows.append(_measure("model server", direct_url, direct_model, requests, clients,
                                 {**settings, "api_key": direct_key}, out))
    (out / "serve.json").write_text(json.dumps(rows, indent=2) + "\n")
    (out / "serve.md").write_text("# stepchat bench --serve\n\n" + serve_table(rows))
    return rows


def _measure(
    target: str, url: str, model: str, requests: Sequence[Request], clients: int,
    settings: dict[str, Any], out: Path,
) -> dict[str, Any]:
    print(f"serve bench: {target}, {clients} client(s), {len(requests)} requests",
          file=sys.stderr)
    outcomes, wall = replay(url, model, requests, clients, **settings)
    slug = target.replace(" ", "-")
    with (out / f"requests-{slug}-{clients}.jsonl").open("w") as log:
        for outcome in outcomes:
            log.write(json.dumps(asdict(outcome)) + "\n")
    return {"target": target, "clients": clients, **level_metrics(outcomes, wall)}


def run_from_args(args: Any, requests: Sequence[Request]) -> int:
    """`stepchat bench --serve`: the first seed's workload, cut to `--serve-requests`."""
    from dataclasses import replace

    from stepchat.config import load_config
    from stepchat.quiet import quiet_environment

    quiet_environment()
    config = load_config()
    if args.threads:
        config = replace(config, threads=args.threads)
    spec = config.model(args.model)
    count = args.serve_requests or DEFAULT_REQUESTS
    levels = args.serve_clients or list(DEFAULT_LEVELS)
    rows = run_serve_bench(config, spec, list(requests)[:count], levels, args.out)
    say(serve_table(rows))
    print(f"stepchat bench: wrote {args.out}/serve.md and serve.json", file=sys.stderr)
    return 0
