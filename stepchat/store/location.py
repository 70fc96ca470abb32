"""Where the cache lives: a directory on this machine, or a prefix in an S3-compatible bucket.

`[cache] uri = "s3://bucket/prefix"` in config.toml puts the cache in a bucket, read and
written through LanceDB's own object-store support, so every `stepchat` pointed at the same
prefix shares one cache. The file names only the bucket: endpoint, region and credentials
come from the environment (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), never from the file, so a team can commit
one config without committing a secret.

Object-store clients retry a dead endpoint for minutes by default; a cache is worth less than
that, so requests here give up after a few seconds and the caller answers without the cache.
An endpoint that accepts connections and never answers (a hung server, a firewall that
swallows packets) defeats those timeouts: LanceDB's own retries on top of them took three
minutes to give up. So before the bucket is opened, one plain HTTP request asks whether
anything answers there at all (`probe`); any reply will do, even a refusal, since the
question is only whether the endpoint is alive.
"""

from __future__ import annotations

import os
import re
import socket
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from stepchat.core.ports import StoreError

REMOTE_SCHEMES = ("s3",)
# Seconds: how long one object-store request may take, and how long to keep retrying it.
_CONNECT_TIMEOUT = "2s"
_REQUEST_TIMEOUT = "30s"
_RETRIES = "1"
_RETRY_SECONDS = "2"
PROBE_SECONDS = 3.0
"""How long the endpoint has to answer anything at all before the bucket counts as down."""
# What an object-store failure means for the user, from the words of the error.
_REMOTE_FAILURES = (
    (re.compile(r"NoSuchBucket", re.I), "the bucket does not exist (fix: create it)"),
    (
        re.compile(r"InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|\b403\b", re.I),
        "access denied (fix: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)",
    ),
    (
        re.compile(r"error sending request|connection refused|tcp connect|dns error|timed out",
                   re.I),
        "cannot reach the object store at {endpoint}",
    ),
    (
        re.compile(r"RetryError|TimedOut|timeout|deadline", re.I),
        "the object store at {endpoint} did not answer in time",
    ),
)


@dataclass(frozen=True)
class CacheLocation:
    """A local directory (`path`) or a bucket URI (`uri`, `s3://bucket/prefix`)."""

    uri: str

    @staticmethod
    def of(value: str | Path) -> CacheLocation:
        """Parse a config value; a plain path means a local directory."""
        text = str(value).strip()
        scheme = urlparse(text).scheme if "://" in text else ""
        if not scheme:
            return CacheLocation(str(Path(text).expanduser()))
        if scheme not in REMOTE_SCHEMES:
            raise StoreError(
                f"cache uri {text!r}: unsupported scheme {scheme!r} (use s3://bucket/prefix "
                "or a local directory)"
            )
        parsed = urlparse(text)
        if not parsed.netloc:
            raise StoreError(f"cache uri {text!r}: no bucket name (use s3://bucket/prefix)")
        return CacheLocation(text.rstrip("/"))

    @property
    def remote(self) -> bool:
        return "://" in self.uri

    @property
    def path(self) -> Path:
        """The local directory; only meaningful when not `remote`."""
        if self.remote:
            raise StoreError(f"cache {self.uri} is in a bucket, not a local directory")
        return Path(self.uri)

    def storage_options(self) -> dict[str, str]:
        """LanceDB storage options: bounded timeouts, and plain HTTP for a local endpoint.

        Credentials are not copied here: LanceDB reads the AWS variables itself.
        """
        if not self.remote:
            return {}
        options = {
            "connect_timeout": _CONNECT_TIMEOUT,
            "timeout": _REQUEST_TIMEOUT,
            "client_max_retries": _RETRIES,
            "client_retry_timeout": _RETRY_SECONDS,
        }
        endpoint = _configured_endpoint()
        if endpoint:
            # Named explicitly so a client made for another endpoint is never reused.
            options["aws_endpoint"] = endpoint
            if endpoint.startswith("http://"):
                options["allow_http"] = "true"
        return options

    def explain(self, error: str) -> str | None:
        """A one-line reason for an object-store error, or None when it is not one of those."""
        if not self.remote:
            return None
        endpoint = _configured_endpoint() or "the default S3 endpoint"
        for pattern, reason in _REMOTE_FAILURES:
            if pattern.search(error):
                return reason.format(endpoint=endpoint)
        return None

    @property
    def bucket(self) -> str:
        return urlparse(self.uri).netloc

    def probe_url(self) -> str:
        """Where the probe asks: the bucket at the configured endpoint, else at AWS S3."""
        endpoint = _configured_endpoint()
        if endpoint:
            return f"{endpoint.rstrip('/')}/{self.bucket}"
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        host = f"s3.{region}.amazonaws.com" if region else "s3.amazonaws.com"
        return f"https://{host}/{self.bucket}"

    def probe(self, seconds: float | None = None) -> None:
        """Raise StoreError in one line unless the bucket's endpoint answers within
        `seconds` (PROBE_SECONDS). Unsigned: a 403 is an answer, and no credential leaves
        the process."""
        if not self.remote:
            return
        seconds = PROBE_SECONDS if seconds is None else seconds
        url = self.probe_url()
        where = url.rsplit("/", 1)[0]
        request = urllib.request.Request(url, method="HEAD")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=seconds):
                return
        except urllib.error.HTTPError:
            return  # refused, moved, not found: something is there, and it answers
        except urllib.error.URLError as exc:
            reason = exc.reason
        except OSError as exc:  # a timeout while reading the reply, a reset connection
            reason = exc
        if isinstance(reason, ssl.SSLError):
            return  # it answered the handshake; certificates are LanceDB's business
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise StoreError(f"cache store {self}: no answer from {where} within {seconds:g} s")
        detail = getattr(reason, "strerror", None) or str(reason)
        raise StoreError(f"cache store {self}: cannot reach {where}: {detail}")

    def __str__(self) -> str:
        return self.uri


def _configured_endpoint() -> str | None:
    """The object store's endpoint from the environment, as LanceDB reads it."""
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None
