"""The real MCP server (a subprocess on stdio) answers every bad frame with the JSON-RPC
error it deserves and goes on; requests read before end of input are answered; client
errors leave no traceback on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import SRC

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def f(x):\n    return x\n"}
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "faults", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(id_, tool, **arguments):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


# (frame as sent, id its answer carries, error code expected; None: a result)
BAD = {
    "not json": ("this is not json", None, -32700),
    "truncated json": ('{"jsonrpc": "2.0", "id": 9, "method": "tools/li', None, -32700),
    "invalid utf-8": (b'{"jsonrpc": "2.0", "id": 9, "method": "\xff"}', None, -32700),
    "batch": ("[1, 2]", None, -32600),
    "scalar": ("42", None, -32600),
    "no method": ({"jsonrpc": "2.0", "id": 3}, 3, -32600),
    "no jsonrpc": ({"id": 4, "method": "tools/list"}, 4, -32600),
    "bool id": ({"jsonrpc": "2.0", "id": True, "method": "tools/list"}, None, -32600),
    "params not an object": ({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                              "params": "bad"}, 5, -32602),
    "unknown method": ({"jsonrpc": "2.0", "id": 6, "method": "no/such"}, 6, -32601),
}


def _serve(root, frames):
    lines = []
    for f in frames:
        raw = f if isinstance(f, bytes) else (f if isinstance(f, str) else json.dumps(f)).encode()
        lines.append(raw + b"\n")
    env = dict(os.environ, PYTHONPATH=SRC)
    proc = subprocess.run([sys.executable, "-m", "impactlens", "mcp", str(root)],
                          input=b"".join(lines), capture_output=True, env=env, timeout=120,
                          check=False)
    answers = [json.loads(ln) for ln in proc.stdout.decode().splitlines() if ln.strip()]
    return answers, proc.stderr.decode("utf-8", "replace"), proc.returncode


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server run over every bad frame, each followed by a good request."""
    root = tmp_path_factory.mktemp("mcp") / "repo"
    root.mkdir()
    for p, text in FILES.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    frames = [INIT, READY]
    for i, name in enumerate(sorted(BAD)):
        frames += [BAD[name][0], {"jsonrpc": "2.0", "id": f"after-{i}", "method": "tools/list"}]
    frames += [_call("nul", "slice", file="pkg/co\0re.py", line=1),
               _call("long", "find_symbol", name="x" * 60_000),
               _call("last", "find_symbol", name="f")]  # then end of input at once
    return _serve(root, frames)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_frame_gets_its_error_and_the_connection_goes_on(served, name):
    answers, stderr, _ = served
    _, id_, code = BAD[name]
    i = sorted(BAD).index(name)
    errors = [a for a in answers if a.get("error", {}).get("code") == code and a["id"] == id_]
    assert errors, (name, answers)
    assert any(a["id"] == f"after-{i}" and "result" in a for a in answers)
    assert "Traceback" not in stderr, stderr


def test_requests_read_before_end_of_input_are_answered(served):
    answers, stderr, code = served
    last = [a for a in answers if a.get("id") == "last"]
    assert last and "result" in last[0] and not last[0]["result"]["isError"], answers
    assert code == 0, stderr


@pytest.mark.parametrize("id_", ["nul", "long"])
def test_hostile_arguments_are_tool_errors_without_traceback(served, id_):
    answers, stderr, _ = served
    got = [a for a in answers if a.get("id") == id_]
    assert got and got[0]["result"]["isError"], answers
    text = got[0]["result"]["content"][0]["text"]
    assert "internal error" not in text and "\n" not in text.strip(), text
    assert "Traceback" not in stderr, stderr
