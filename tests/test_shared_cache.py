"""A team cache in an S3 bucket: shared between processes, and never in the way when it breaks.

Against a real S3-compatible server (SeaweedFS on loopback, started by the fixtures): two
processes see each other's entries, two writers at once lose nothing, and a server that stops
turns the cache into misses (one line for the user, the answer still comes, entries written
meanwhile wait in memory) until it is back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stepchat.backends.scripted import ScriptedBackend
from stepchat.core.pipeline import StepCache
from stepchat.core.ports import FixedClock, StoreError
from stepchat.core.types import CacheEntry, Step, TaskKind
from stepchat.embed.hashed import HashedEmbedder
from stepchat.store.lance import LanceStore
from stepchat.store.location import CacheLocation
from stepchat.store.shared import SharedStore
from tests.s3server import BUCKET, WeedServer, signed_request

DIM = 64
EMBED = HashedEmbedder(dim=DIM)
ROOT = Path(__file__).resolve().parents[1]

# A child process that opens the bucket cache the way stepchat does and writes or reads it.
CHILD = textwrap.dedent(
    """
    import json, sys
    from stepchat.core.types import CacheEntry, Step, TaskKind
    from stepchat.embed.hashed import HashedEmbedder
    from stepchat.runtime import open_store

    uri, who, count, find = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    embed = HashedEmbedder(dim=64)
    store, _ = open_store(uri, 64)
    for i in range(count):
        prompt = f"Solve for x: {i}x + 1 = 9 ({who})"
        store.add(CacheEntry(
            id=f"{who}-{i}", prompt=prompt, vector=embed.embed(prompt), scope="team",
            task=TaskKind.LINEAR, signature=f"{who}-sig-{i}", constraints={},
            steps=[Step("x = 1", "final")], model="m", created=1.0 + i, last_hit=1.0 + i))
    found = store.find_signature(scope="team", signature=find) if find != "-" else None
    print(json.dumps({"found": found.id if found else None, "count": store.count()}))
    """
)


def child(uri: str, who: str, count: int, find: str = "-") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, uri, who, str(count), find],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def result(process: subprocess.Popen[str]) -> dict[str, object]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


def entry(entry_id: str, prompt: str, signature: str = "sig") -> CacheEntry:
    return CacheEntry(
        id=entry_id, prompt=prompt, vector=EMBED.embed(prompt), scope="s", task=TaskKind.LINEAR,
        signature=signature, constraints={}, steps=[Step("x = 4", "final")], model="m",
        created=1.0, last_hit=1.0,
    )


def test_an_entry_written_by_one_process_is_found_by_another(bucket_uri: str) -> None:
    writer = result(child(bucket_uri, "alice", 1))
    assert writer["count"] == 1
    reader = result(child(bucket_uri, "bob", 0, find="alice-sig-0"))
    assert reader["found"] == "alice-0"


def test_two_writers_at_once_lose_nothing(bucket_uri: str) -> None:
    LanceStore(bucket_uri, DIM)  # the table exists before both start appending
    first, second = child(bucket_uri, "p1", 40), child(bucket_uri, "p2", 40)
    result(first)
    result(second)
    store = LanceStore(bucket_uri, DIM, consistency_seconds=0.0)
    ids = {e.id for e in store.entries()}
    assert ids == {f"p{p}-{i}" for p in (1, 2) for i in range(40)}


def test_the_server_refuses_a_second_create_of_one_object(bucket_env: WeedServer) -> None:
    """The guarantee LanceDB's commits rest on: a put-if-absent of an existing key fails."""
    endpoint, key = bucket_env.endpoint, f"/{BUCKET}/conditional-probe/manifest"
    assert signed_request(endpoint, "PUT", key, b"one", {"If-None-Match": "*"}) == 200
    assert signed_request(endpoint, "PUT", key, b"two", {"If-None-Match": "*"}) == 412


def _shared(server: WeedServer, prefix: str, clock: FixedClock) -> SharedStore:
    uri = server.uri(prefix)
    return SharedStore(
        lambda: LanceStore(uri, DIM, consistency_seconds=0.0), name=uri, retry_after=5.0,
        clock=clock.monotonic,
    )


def test_a_stopped_server_is_a_miss_with_one_line_and_is_used_again_when_back(
    weed_own: WeedServer,
) -> None:
    clock = FixedClock()
    shared = _shared(weed_own, "outage", clock)
    shared.add(entry("before", "Solve for x: 2x + 1 = 9."))
    assert shared.drain_notes() == []

    weed_own.stop()
    hits = shared.search(EMBED.embed("Solve for x: 2x + 1 = 9."), scope="s", task=TaskKind.LINEAR)
    assert hits == []
    notes = shared.drain_notes()
    assert len(notes) == 1 and "unreachable" in notes[0] and "\n" not in notes[0]
    shared.add(entry("during", "Solve for x: 3x = 12.", signature="sig-2"))
    assert shared.pending == 1 and not shared.available
    assert shared.find_signature(scope="s", signature="sig") is None  # not asked again yet
    assert shared.drain_notes() == []  # one line per outage, not one per request

    weed_own.start()
    clock.advance(5.0)
    found = shared.find_signature(scope="s", signature="sig")
    assert found is not None and found.id == "before"
    assert shared.available and shared.pending == 0
    assert any("back" in note for note in shared.drain_notes())
    reopened = LanceStore(weed_own.uri("outage"), DIM, consistency_seconds=0.0)
    assert {e.id for e in reopened.entries()} == {"before", "during"}


def test_answers_keep_coming_while_the_bucket_is_down(
    weed_own: WeedServer,
) -> None:
    """Requests that need the model (open text here): an equation the solver answers does
    not wait for the bucket at all (tests/test_bucket_black_hole.py)."""
    clock = FixedClock()
    shared = _shared(weed_own, "answers", clock)
    replies = ["Paris is the capital of France.", "Madrid is the capital of Spain."]
    cache = StepCache(ScriptedBackend(replies), EMBED, shared, clock=clock)
    first = cache.answer("What is the capital of France?")
    assert first.text == replies[0] and first.stored_entry

    weed_own.stop()
    down = cache.answer("What is the capital of Spain?")
    assert down.text == replies[1]
    assert down.matched_entry is None  # nothing came from the cache
    assert any("unreachable" in note for note in down.notes)

    weed_own.start()
    clock.advance(10.0)
    back = cache.answer("What is the capital of France?")
    assert back.text == replies[0]
    assert back.matched_entry == first.stored_entry  # the shared cache answered again
    assert any("back" in note for note in back.notes)


def test_a_missing_bucket_or_bad_scheme_is_one_line(bucket_env: WeedServer) -> None:
    with pytest.raises(StoreError) as info:
        LanceStore(bucket_env.uri("x").replace(BUCKET, "no-such-bucket"), DIM)
    assert "\n" not in str(info.value) and "bucket does not exist" in str(info.value)
    with pytest.raises(StoreError, match="unsupported scheme"):
        CacheLocation.of("ftp://host/cache")


def _ask(home: Path, env: dict[str, str], prompt: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "stepchat.cli", "ask", "--json", prompt],
        env={**os.environ, **env, "STEPCHAT_HOME": str(home), "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
def test_two_stepchat_processes_share_one_bucket_on_the_real_stack(
    bucket_uri: str, bucket_env: WeedServer, tmp_path: Path
) -> None:
    """Real model, real MiniLM, real LanceDB in the bucket; two homes, one shared cache.

    A request the model answers is found by the other process. An equation the solver
    answers does not wait for the bucket in a one-shot ask (tests/test_bucket_black_hole.py):
    the second process solves it too, writes no copy, and counts a hit on the first's entry.
    """
    homes = [tmp_path / "alice", tmp_path / "bob"]
    for home in homes:
        (home / "config").mkdir(parents=True)
        (home / "config" / "config.toml").write_text(f'[cache]\nuri = "{bucket_uri}"\n')
    question = "What is the capital of France? Answer in one sentence."
    written = _ask(homes[0], bucket_env.env(), question)
    assert written["stored_entry"] and written["path"] == "miss"
    found = _ask(homes[1], bucket_env.env(), question)
    assert found["path"] == "reuse-only" and found["matched_entry"] == written["stored_entry"]
    assert found["answer"] == written["answer"]

    first = _ask(homes[0], bucket_env.env(), "Solve for x: 3x + 5 = 20. Show each step.")
    assert first["stored_entry"] and first["path"] == "solver"
    second = _ask(homes[1], bucket_env.env(), "Solve for y: 3y + 5 = 20. Show each step.")
    assert str(second["answer"]).strip().splitlines()[-1] == "y = 5"
    store = LanceStore(bucket_uri, 384, consistency_seconds=0.0)
    linear = [e for e in store.entries() if e.task == TaskKind.LINEAR]
    assert [(e.id, e.hits) for e in linear] == [(first["stored_entry"], 1)]
    assert not (homes[1] / "data" / "cache").exists()  # nothing went to bob's local disk
