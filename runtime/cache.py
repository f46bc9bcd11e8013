"""kdsl's on-disk cache: transpiled sources and compiled binaries.

Entries live under ``$KDSL_CACHE_DIR`` (default ``~/.cache/kdsl``), one file
per key.  Each file starts with a header line holding the SHA-256 of its
payload, so a truncated or corrupt entry is detected on read, removed and
rebuilt.  A reader may also pass a ``decode`` function that checks what the
payload says: an entry it refuses (intact bytes, wrong content: written by
another kdsl, or by hand) is removed and rebuilt the same way, never failing
on every run.  Writes go to a temporary file in the same folder and are renamed
into place (atomic on POSIX).  If the folder cannot be written, the cache
keeps working in memory only.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

_MAGIC = b"kdsl-cache-1 "


def cache_dir() -> Path:
    return Path(os.environ.get("KDSL_CACHE_DIR") or Path.home() / ".cache" / "kdsl")


def digest(*parts) -> str:
    """A stable hex key for a sequence of strings/bytes."""
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class Malformed(Exception):
    """A cache entry's payload is intact but does not say what it should."""


def expect(ok: bool, what: str) -> None:
    """For ``decode`` functions: refuse the entry unless ``ok``."""
    if not ok:
        raise Malformed(what)


class DiskCache:
    """A key → bytes store in one sub-folder of the cache directory."""

    def __init__(self, kind: str, suffix: str):
        self.kind = kind
        self.suffix = suffix
        self.memory: dict[str, bytes] = {}
        self.writable = True

    def _path(self, key: str) -> Path:
        return cache_dir() / self.kind / f"{key}{self.suffix}"

    def get(self, key: str, decode=None):
        """The payload stored under ``key`` (``decode(payload)`` if given),
        or None: absent, corrupt, or refused by ``decode`` (which raises
        :class:`Malformed`, ``ValueError``, ``KeyError``, ``TypeError`` or
        ``IndexError``, or overflows the stack: ``RecursionError``); a corrupt
        or refused entry is deleted."""
        path = self._path(key)
        payload = self.memory.get(key)
        if payload is None:
            try:
                raw = path.read_bytes()
            except OSError:
                return None
            payload = _unwrap(raw)
        if payload is not None and decode is not None:
            try:
                value = decode(payload)
            except (
                Malformed,
                ValueError,
                KeyError,
                TypeError,
                IndexError,
                RecursionError,  # a JSON nested too deep to decode
            ):
                payload = None
        else:
            value = payload
        if payload is None:  # corrupt, truncated or malformed: forget it, rebuild
            self.memory.pop(key, None)
            try:
                path.unlink()
            except OSError:
                pass
            return None
        self.memory[key] = payload
        return value

    def put(self, key: str, payload: bytes) -> None:
        self.memory[key] = payload
        if not self.writable:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(_wrap(payload))
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            self.writable = False  # read-only or full: memory only from now on


def _wrap(payload: bytes) -> bytes:
    return _MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def _unwrap(raw: bytes) -> bytes | None:
    head, sep, payload = raw.partition(b"\n")
    if not sep or not head.startswith(_MAGIC):
        return None
    if hashlib.sha256(payload).hexdigest().encode() != head[len(_MAGIC) :]:
        return None
    return payload


SOURCES = DiskCache("source", ".cu")
BINARIES = DiskCache("cubin", ".cubin")
