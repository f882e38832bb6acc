"""Extraction: decoding, node records (kinds, ids, lines, signatures, tokens), facts."""

from __future__ import annotations

import pickle

import pytest
from pyindex_helpers import repo

from impactlens.index.python import extract_file
from impactlens.model import NodeKind


def nodes(src: str, path: str = "pkg/mod.py", module: str = "pkg.mod") -> dict:
    r = repo(**{path: src})
    return {n.id: n for n in r.nodes}


def test_decode_cookie_and_bom() -> None:
    latin = "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1")
    f = extract_file("m.py", latin, "m", False, False)
    assert f.module == "m"
    bom = b"\xef\xbb\xbfdef f():\n    return 1\n"
    f2 = extract_file("b.py", bom, "b", False, False)
    assert [n[0] for n in f2.nodes] == ["b", "b.f"]


def test_unparseable_input_raises() -> None:
    with pytest.raises(SyntaxError):
        extract_file("x.py", b"def f(:\n", "x", False, False)
    with pytest.raises((SyntaxError, UnicodeDecodeError)):
        extract_file("x.py", b"x = '\xff\xfe'\n", "x", False, False)
    with pytest.raises((SyntaxError, ValueError)):
        extract_file("x.py", b"x = 1\x00\n", "x", False, False)


def test_node_kinds_ids_and_parents() -> None:
    n = nodes("""
        import os

        TIMEOUT = 30

        class LoginService(Base):
            retries = 3

            def __init__(self, user):
                self.user = user

            def login(self, user, mfa_code=None):
                def inner():
                    return 1
                return inner()

        def helper(a, *args, k=1, **kw):
            pass
    """)
    assert n["pkg.mod"].kind == NodeKind.MODULE
    assert n["pkg.mod.TIMEOUT"].kind == NodeKind.CONSTANT
    assert n["pkg.mod.LoginService"].kind == NodeKind.CLASS
    assert n["pkg.mod.LoginService"].signature == "class LoginService(Base):"
    assert n["pkg.mod.LoginService.retries"].kind == NodeKind.FIELD
    assert n["pkg.mod.LoginService.user"].kind == NodeKind.FIELD
    login = n["pkg.mod.LoginService.login"]
    assert login.kind == NodeKind.METHOD
    assert login.signature == "def login(self, user, mfa_code=None):"
    assert login.parent == "pkg.mod.LoginService"
    assert (login.start_line, login.end_line) == (12, 15)
    assert login.ids == ("code", "login", "mfa", "mod", "pkg", "self", "service", "user")
    assert login.imports == ("os",)
    inner = n["pkg.mod.LoginService.login.inner"]
    assert inner.kind == NodeKind.FUNCTION and inner.parent == login.id
    assert n["pkg.mod.helper"].signature == "def helper(a, *args, k=1, **kw):"
    assert n["pkg.mod.TIMEOUT"].signature == "TIMEOUT = 30"


def test_multiline_signature_decorators_and_comments() -> None:
    n = nodes('''
        @app.route("/x")
        @staticmethod
        def handler(
            request,  # the request: with a colon
            default="a:b",
        ) -> dict:
            """Doc: string."""
            return {}
    ''')
    h = n["pkg.mod.handler"]
    assert h.signature == 'def handler(request, default="a:b") -> dict:'
    assert h.decorators == ("app.route", "staticmethod")
    assert h.start_line == 2  # decorators included


def test_strs_tokens_and_local_imports() -> None:
    n = nodes('''
        def send_mail(to):
            """Send the welcome mail."""
            import smtplib
            return "Hello " + to + f"user {to} welcomeBack"
    ''')
    f = n["pkg.mod.send_mail"]
    assert {"send", "welcome", "mail", "hello", "user", "welcomeback"} <= set(f.strs)
    assert f.imports == ("smtplib",)


def test_overloads_are_not_nodes_and_property_setter_shares_id() -> None:
    n = nodes("""
        from typing import overload

        @overload
        def f(x: int) -> int: ...
        @overload
        def f(x: str) -> str: ...
        def f(x):
            return x

        class C:
            @property
            def size(self):
                return 1

            @size.setter
            def size(self, v):
                pass
    """)
    r = repo(**{"pkg/mod.py": """
        from typing import overload

        @overload
        def f(x: int) -> int: ...
        def f(x):
            return x
    """})
    assert [x.start_line for x in r.nodes if x.id == "pkg.mod.f"] == [6]
    assert n["pkg.mod.C.size"].kind == NodeKind.METHOD


def test_package_module_and_relative_import_base() -> None:
    r = repo(**{
        "pkg/__init__.py": "from .sub import thing\n",
        "pkg/sub.py": "def thing():\n    pass\n",
    })
    assert r.node("pkg").kind == NodeKind.MODULE
    assert ("pkg", "pkg.sub.thing") in r.pairs("import")


def test_facts_pickle_roundtrip() -> None:
    f = extract_file("pkg/m.py", b"class A:\n    def f(self):\n        return self.g()\n",
                     "pkg.m", False, False)
    g = pickle.loads(pickle.dumps(f))
    assert g.nodes == f.nodes
    assert g.scopes[2].calls == f.scopes[2].calls
    assert g.scopes[1].final == f.scopes[1].final


def test_non_ascii_source_columns() -> None:
    n = nodes("NAME = 'é'\n\ndef größe(ü, x='ß'):\n    return ü\n")
    assert n["pkg.mod.größe"].signature == "def größe(ü, x='ß'):"


def test_deeply_nested_expressions_do_not_crash() -> None:
    terms = " + ".join(["x"] * 3000)
    chain = "obj" + ".a" * 2000 + ".run()"
    r = repo(**{"m.py": f"x = 1\ny = {terms}\n\ndef f(obj):\n    {chain}\n"})
    assert r.node("m.y").kind == NodeKind.CONSTANT
    assert [u.reason.value for u in r.unresolved] == ["unknown-receiver"]


def test_constant_and_field_nodes_carry_their_string_words() -> None:
    n = nodes("""
        ERROR = "Invalid user name"

        class Form:
            label: str = "Email address"
    """)
    assert n["pkg.mod.ERROR"].strs == ("invalid", "name", "user")
    assert n["pkg.mod.Form.label"].strs == ("address", "email")
    assert "invalid" in n["pkg.mod"].strs
