"""The MCP server's stdio transport with a line-level pre-parser in front of the SDK.

The SDK's stdio transport drops a frame it cannot validate without a word (the client
waits for ever), and at end of input it closes the connection with the requests it has read
still running (their callers get "Connection closed"). Here every line is checked first,
with the SDK's own message model: a frame that is not JSON gets a parse error (-32700, id
null), one that is not a JSON-RPC message an invalid request (-32600), a request whose
params are not an object invalid params (-32602); the connection goes on. Unknown methods and
bad tool arguments are the SDK's to answer. At end of input the transport waits until
every request it passed on has its answer.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server

__all__ = ["serve_framed"]

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_DRAIN_S = 600.0  # at end of input, how long the answers of running requests are awaited


def _key(value: object) -> tuple[str, object] | None:
    """A request id as a set key (``1`` and ``"1"`` are different ids); ``None``: not an
    id JSON-RPC allows."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return (type(value).__name__, value)


def _error(code: int, message: str, id_: object = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_ if _key(id_) else None,
                       "error": {"code": code, "message": message}}) + "\n"


def check_frame(raw: bytes) -> tuple[str | None, str | None, tuple[str, object] | None]:
    """(line to pass on, error answer to send, id of a request passed on) for one line."""
    try:
        text = raw.decode("utf-8")
        obj = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return None, _error(PARSE_ERROR, "Parse error: not a JSON text"), None
    if not isinstance(obj, dict):
        what = "a batch (array)" if isinstance(obj, list) else "not a JSON-RPC object"
        return None, _error(INVALID_REQUEST, f"Invalid request: {what}"), None
    id_ = obj.get("id")
    method = obj.get("method")
    if "params" in obj and method is not None and not isinstance(obj["params"], dict):
        if "id" not in obj:
            return None, None, None  # a notification gets no answer, not even an error
        return None, _error(INVALID_PARAMS, "Invalid params: params must be an object", id_), None
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception:
        why = "not a JSON-RPC 2.0 request, notification or response"
        return None, _error(INVALID_REQUEST, f"Invalid request: {why}", id_), None
    return text, None, _key(id_) if method is not None and "id" in obj else None


class _Wire:
    """The real stdout, shared by the SDK's writer and the pre-parser's error answers;
    it notes which requests are answered."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()
        self.pending: set[tuple[str, object]] = set()

    async def write(self, text: str) -> None:
        if '"id"' in text:
            try:
                obj = json.loads(text)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and ("result" in obj or "error" in obj):
                self.pending.discard(_key(obj.get("id")))  # type: ignore[arg-type]
        await anyio.to_thread.run_sync(self._put, text)

    def _put(self, text: str) -> None:
        with self._lock:
            self._out.write(text.encode("utf-8"))
            self._out.flush()

    async def flush(self) -> None:
        return None  # every write is flushed


class _Frames:
    """The lines of the real stdin that the SDK is given."""

    def __init__(self, src: BinaryIO, wire: _Wire) -> None:
        self._src = src
        self._wire = wire

    def __aiter__(self) -> Any:
        return self._lines()

    async def _lines(self) -> Any:
        while raw := await anyio.to_thread.run_sync(self._src.readline):
            if not raw.strip():
                continue
            line, answer, request = check_frame(raw)
            if answer is not None:
                await self._wire.write(answer)
            if line is None:
                continue
            if request is not None:
                self._wire.pending.add(request)
            yield line
        with anyio.move_on_after(_DRAIN_S):  # end of input: answer what was asked first
            while self._wire.pending:
                await anyio.sleep(0.02)


async def serve_framed(lowlevel: Any) -> None:
    """Run the SDK's low-level server on this process's stdin/stdout through the
    pre-parser. As the SDK does, fd 0 and fd 1 are pointed at the null device and stderr
    while it runs, so stray reads and prints of handlers and children miss the wire."""
    src = os.fdopen(os.dup(0), "rb", buffering=0)
    out = os.fdopen(os.dup(1), "wb")
    saved = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    wire = _Wire(out)
    try:
        async with stdio_server(stdin=_Frames(src, wire),  # type: ignore[arg-type]
                                stdout=wire) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
    finally:
        sys.stdout.flush()
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in saved:
            os.close(fd)
