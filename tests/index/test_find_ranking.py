"""`impactlens find NAME` ranks exact last-part matches, then prefixes, then the rest."""

from __future__ import annotations

import json
from collections.abc import Callable

from click.testing import CliRunner

from impactlens.api import Project
from impactlens.cli import main

FILES = {
    "app/__init__.py": "",
    "app/auth.py": (
        "def relogin():\n    pass\n\n\n"
        "def login_form():\n    pass\n\n\n"
        "class Service:\n    def login(self):\n        pass\n"
    ),
    "app/zz.py": "def login():\n    pass\n\n\ndef login_again():\n    pass\n",
}


def test_exact_then_prefix_then_substring(indexed: Callable[..., Project]) -> None:
    with indexed(FILES) as p:
        ids = [n.id for n in p.find("login")]
        assert ids == ["app.auth.Service.login", "app.zz.login", "app.auth.login_form",
                       "app.zz.login_again", "app.auth.relogin"]
        assert [n.id for n in p.find("login")] == ids  # deterministic
        assert [n.id for n in p.find("Service.login")] == ["app.auth.Service.login"]
        assert [n.id for n in p.find("login", limit=2)] == ids[:2]
    res = CliRunner().invoke(main, ["find", "login", "--repo", str(p.root), "--json"])
    assert res.exit_code == 0
    assert [r["id"] for r in json.loads(res.stdout)] == ids
