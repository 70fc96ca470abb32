"""Where the cache lives: a directory on this machine, or a prefix in an S3-compatible bucket.

`[cache] uri = "s3://bucket/prefix"` in config.toml puts the cache in a bucket, read and
written through LanceDB's own object-store support, so every `stepchat` pointed at the same
prefix shares one cache. The file names only the bucket: endpoint, region and credentials
come from the environment (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), never from the file, so a team can commit
one config without committing a secret.

Object-store clients retry a dead endpoint for minutes by default; a cache is worth less than
that, so requests here give up after a few seconds and the caller answers without the cache.
"""

from __future__ import annotations

import os
import re
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
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
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
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get(
            "AWS_ENDPOINT_URL", "the default S3 endpoint"
        )
        for pattern, reason in _REMOTE_FAILURES:
            if pattern.search(error):
                return reason.format(endpoint=endpoint)
        return None

    def __str__(self) -> str:
        return self.uri
