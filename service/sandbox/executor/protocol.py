"""Frame format spoken between the host and the executor (stdlib only).

A frame is a 4-byte big-endian unsigned length followed by that many bytes of
UTF-8 JSON (one object). The same framing is used over the docker backend's
unix socket and over the local backend's stdin/stdout pipes.

This module is imported both by the executor (inside the sandbox, as a
sibling module) and by the host (as ``service.sandbox.executor.protocol``), so
it must import nothing but the standard library.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from typing import Any, BinaryIO

HEADER = struct.Struct(">I")
# A frame carries at most the program's captured output plus stdin; anything
# larger is a protocol fault, not a big job.
MAX_FRAME_BYTES = 512 * 1024 * 1024


class ProtocolError(Exception):
    """The peer closed the stream or sent a malformed frame."""


def encode_frame(message: dict[str, Any]) -> bytes:
    """Serialise ``message`` into one frame (header + JSON body)."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes) -> dict[str, Any]:
    """Parse a frame body; raises ProtocolError if it is not a JSON object."""
    try:
        message = json.loads(body.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise ProtocolError(f"malformed frame: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError("frame is not a JSON object")
    return message


def read_exact(stream: BinaryIO, size: int) -> bytes:
    """Read exactly ``size`` bytes; raises ProtocolError on EOF."""
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            raise ProtocolError("stream closed")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO) -> dict[str, Any]:
    """Read one frame from a buffered binary stream."""
    (size,) = HEADER.unpack(read_exact(stream, HEADER.size))
    if size > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {size} bytes exceeds {MAX_FRAME_BYTES}")
    return decode_body(read_exact(stream, size))


def write_frame(stream: BinaryIO, message: dict[str, Any]) -> None:
    """Write one frame and flush."""
    stream.write(encode_frame(message))
    stream.flush()


def safe_relpath(path: str) -> str:
    """Validate a user-supplied relative path; raises ValueError."""
    if not path or "\0" in path or path.startswith("/") or "\\" in path:
        raise ValueError(f"invalid path {path!r}")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"path {path!r} must be relative and stay inside the work dir")
    return path


def source_version() -> str:
    """Hash of the executor's own sources: host and image must agree."""
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for name in sorted(os.listdir(here)):
        if name.endswith((".py", ".js")):
            with open(os.path.join(here, name), "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read())
    return digest.hexdigest()[:16]
