"""A real OpenAI-compatible chat-completions server on loopback, with scripted replies.

``chat_server`` starts a stdlib ``ThreadingHTTPServer`` on ``127.0.0.1:0`` that answers
``POST /v1/chat/completions``. Script it with ``chat_server.script(spec, ...)`` (specs are
consumed in order, the last one repeats):

- ``reply(content)``      — a proper ``chat.completion`` with ``usage``;
- ``status(code)``        — an OpenAI-style error JSON with that HTTP status;
- ``raw(text)``           — HTTP 200 whose body is ``text`` (e.g. not JSON);
- ``hang(seconds)``       — answer only after ``seconds`` (or at teardown).

It records every request: ``chat_server.requests`` is a list of ``(path, headers, body)``,
``chat_server.bodies`` the decoded JSON bodies, ``chat_server.count`` how many arrived.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "scripted-model"


@dataclass(frozen=True)
class Spec:
    kind: str  # "reply" | "status" | "raw" | "hang"
    content: str = ""
    code: int = 200
    seconds: float = 0.0
    prompt_tokens: int = 321
    completion_tokens: int = 45


def reply(content: Any, **usage: int) -> Spec:
    text = content if isinstance(content, str) else json.dumps(content)
    return Spec("reply", content=text, **usage)


def status(code: int) -> Spec:
    return Spec("status", code=code)


def raw(text: str) -> Spec:
    return Spec("raw", content=text)


def hang(seconds: float) -> Spec:
    return Spec("hang", seconds=seconds)


def completion(content: str, spec: Spec, n: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-scripted-{n}",
        "object": "chat.completion",
        "created": 1_704_067_200,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": spec.prompt_tokens,
            "completion_tokens": spec.completion_tokens,
            "total_tokens": spec.prompt_tokens + spec.completion_tokens,
        },
    }


class ChatServer:
    reply = staticmethod(reply)
    status = staticmethod(status)
    raw = staticmethod(raw)
    hang = staticmethod(hang)

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self._script: list[Spec] = [reply({"next_edits": []})]
        self._lock = threading.Lock()
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                with server._lock:
                    n = len(server.requests)
                    server.requests.append((self.path, dict(self.headers), data))
                    spec = server._script[min(n, len(server._script) - 1)]
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found"}})
                if spec.kind == "hang":
                    server.release.wait(spec.seconds)
                    return self._send(200, completion('{"next_edits": []}', spec, n))
                if spec.kind == "status":
                    body = {"error": {"message": "scripted failure", "type": "server_error"}}
                    return self._send(spec.code, body)
                if spec.kind == "raw":
                    return self._send(200, spec.content.encode())
                return self._send(200, completion(spec.content, spec, n))

            def _send(self, code: int, payload: Any) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *specs: Spec) -> None:
        with self._lock:
            self._script = list(specs)

    @property
    def count(self) -> int:
        return len(self.requests)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(data) for _, _, data in self.requests]

    @property
    def raw_bodies(self) -> list[str]:
        return [data.decode("utf-8") for _, _, data in self.requests]


# --------------------------------------------------------------------------- impact.json
SEED = "auth.login.LoginService.login"
VALIDATE = "auth.session.Session.validate"
ISSUE = "auth.token.Token.issue"
VIEW = "web.views.login_view"
AUDIT = "audit.log.record"


def make_impact() -> dict[str, Any]:
    """A §3.9 ``impact.json`` for "add mfa_code to LoginService.login" (two batches)."""
    cause = "method-signature changed (added param mfa_code) → {} must re-bind via CalledBy"
    return {
        "seed": {
            "change_type": "method-signature",
            "entity": SEED,
            "file": "src/auth/login.py",
            "line_range": [2, 5],
        },
        "changes": [
            {
                "change_type": "method-signature",
                "entity": SEED,
                "file": "src/auth/login.py",
                "line_range": [2, 5],
                "before_sig": "def login(self, user):",
                "after_sig": "def login(self, user, mfa_code):",
            }
        ],
        "obligations": {
            "change": [
                {"batch_id": 0, "members": [SEED, VALIDATE, VIEW]},
                {"batch_id": 1, "members": [ISSUE]},
            ],
            "validate": ["tests/test_login.py::TestLogin::test_mfa"],
        },
        "dag": {
            "nodes": [
                {
                    "entity": SEED,
                    "kind": "method",
                    "file": "src/auth/login.py",
                    "line": 2,
                    "signature": "def login(self, user, mfa_code):",
                    "batch_id": 0,
                },
                {
                    "entity": VALIDATE,
                    "kind": "method",
                    "file": "src/auth/session.py",
                    "line": 3,
                    "signature": "def validate(self, token, mfa_code):",
                    "batch_id": 0,
                },
                {
                    "entity": VIEW,
                    "kind": "function",
                    "file": "src/web/views.py",
                    "line": 4,
                    "signature": "def login_view(request):",
                    "batch_id": 0,
                },
                {
                    "entity": ISSUE,
                    "kind": "method",
                    "file": "src/auth/token.py",
                    "line": 5,
                    "signature": "def issue(self, service: LoginService) -> str:",
                    "batch_id": 1,
                },
            ],
            "edges": [
                {"from": SEED, "to": VALIDATE, "cause": cause.format("Session.validate")},
                {"from": SEED, "to": VIEW, "cause": cause.format("login_view")},
                {
                    "from": SEED,
                    "to": ISSUE,
                    "cause": "method-signature changed (added param mfa_code) → Token.issue "
                    "must be re-checked via CalledBy",
                },
            ],
        },
        "triage": {
            "must_inspect": [
                {
                    "entity": VALIDATE,
                    "file": "src/auth/session.py",
                    "conf": 0.9,
                    "reason": cause.format("Session.validate"),
                },
                {
                    "entity": VIEW,
                    "file": "src/web/views.py",
                    "conf": 0.8,
                    "reason": cause.format("login_view"),
                },
            ],
            "may_impact": [
                {"entity": ISSUE, "file": "src/auth/token.py", "conf": 0.5, "reason": "distance 2"}
            ],
            "low_risk": [],
        },
    }
