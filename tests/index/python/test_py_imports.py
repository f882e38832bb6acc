"""Import resolution: aliases, relative imports, re-exports, __all__, star imports."""

from __future__ import annotations

import json

from pyindex_helpers import repo

from impactlens.model import EdgeKind, UnresolvedReason


def test_import_aliases_and_relative_imports() -> None:
    r = repo(**{
        "pkg/__init__.py": "",
        "pkg/a/__init__.py": "",
        "pkg/a/b.py": "def f():\n    pass\nclass K:\n    pass\n",
        "pkg/c.py": """
            import pkg.a.b as alias
            import pkg.a.b
            from .a import b
            from .a.b import f as g
            from . import a

            def use():
                alias.f()
                pkg.a.b.f()
                b.f()
                g()
                a.b.K()
        """,
    })
    assert r.calls_from("pkg.c.use") == {"pkg.a.b.f"}
    assert r.calls_from("pkg.c.use", "instantiate") == {"pkg.a.b.K"}
    imports = {(e.dst, json.loads(e.detail)["name"], json.loads(e.detail)["alias"])
               for e in r.edges if e.kind == EdgeKind.IMPORT and e.src == "pkg.c"}
    assert imports == {
        ("pkg.a.b", "pkg.a.b", "alias"), ("pkg.a.b", "pkg.a.b", None), ("pkg.a.b", "b", None),
        ("pkg.a.b.f", "f", "g"), ("pkg.a", "a", None),
    }


def test_relative_import_levels() -> None:
    r = repo(**{
        "pkg/__init__.py": "",
        "pkg/util.py": "def helper():\n    pass\n",
        "pkg/sub/__init__.py": "from ..util import helper as h\n",
        "pkg/sub/mod.py": "from ..util import helper\nfrom . import h\n\ndef run():\n"
                          "    helper()\n    h()\n",
    })
    assert r.calls_from("pkg.sub.mod.run") == {"pkg.util.helper"}


def test_reexport_chain_through_init_and_all() -> None:
    r = repo(**{
        "lib/__init__.py": "from lib.api import *\n",
        "lib/api.py": "from lib._impl import Client, _private\n__all__ = ['Client']\n",
        "lib/_impl.py": "class Client:\n    def get(self):\n        pass\n"
                        "def _private():\n    pass\n",
        "app.py": "import lib\nfrom lib import Client\n\ndef main():\n"
                  "    lib.Client().get()\n    Client.get(None)\n",
    })
    assert r.calls_from("app.main", "instantiate") == {"lib._impl.Client"}
    assert r.calls_from("app.main") == {"lib._impl.Client.get"}
    assert ("app", "lib._impl.Client") in r.pairs("import")


def test_star_import_without_all_exports_public_names_only() -> None:
    r = repo(**{
        "m.py": "def pub():\n    pass\ndef _priv():\n    pass\n",
        "n.py": "from m import *\n\ndef run():\n    pub()\n    _priv()\n",
    })
    assert r.calls_from("n.run") == {"m.pub"}
    assert [u.reason for u in r.unresolved if u.scope == "n.run"] == [
        UnresolvedReason.UNKNOWN_NAME]


def test_all_concatenated_from_submodules() -> None:
    r = repo(**{
        "p/__init__.py": "from p.x import *\nfrom p.x import __all__ as _x_all\n"
                         "from p import y\nfrom p.y import *\n__all__ = _x_all + y.__all__\n",
        "p/x.py": "__all__ = ['fx']\ndef fx():\n    pass\n",
        "p/y.py": "__all__ = ['fy']\n__all__ += ['gy']\ndef fy():\n    pass\ndef gy():\n    pass\n",
        "q.py": "from p import *\n\ndef run():\n    fx()\n    fy()\n    gy()\n",
    })
    assert r.calls_from("q.run") == {"p.x.fx", "p.y.fy", "p.y.gy"}


def test_submodule_attribute_and_self_import_in_package() -> None:
    r = repo(**{
        "pkg/__init__.py": "from pkg import signals\n",
        "pkg/signals.py": "def send():\n    pass\n",
        "use.py": "from pkg import signals\nimport pkg\n\ndef run():\n"
                  "    signals.send()\n    pkg.signals.send()\n",
    })
    assert r.calls_from("use.run") == {"pkg.signals.send"}
    assert not [u for u in r.unresolved if u.scope.startswith("use")]


def test_import_of_missing_repo_name_is_unresolved_external_skipped() -> None:
    r = repo(**{
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    pass\n",
        "pkg/b.py": "from pkg.a import g\nimport os.path\nfrom collections import OrderedDict\n",
    })
    reasons = {(u.text, u.reason) for u in r.unresolved}
    assert reasons == {("from pkg.a import g", UnresolvedReason.UNKNOWN_NAME)}
    assert not [e for e in r.edges if e.kind == EdgeKind.IMPORT and e.src == "pkg.b"]


def test_function_local_import_edge_src_is_function() -> None:
    r = repo(**{
        "a.py": "def f():\n    pass\n",
        "b.py": "def g():\n    from a import f\n    f()\n",
    })
    assert ("b.g", "a.f") in r.pairs("import")
    assert r.calls_from("b.g") == {"a.f"}
    assert "a" in r.node("b.g").imports


def test_conditional_import_fallback_is_not_external_guess() -> None:
    r = repo(**{
        "fast.py": "def dumps(x):\n    pass\n",
        "m.py": "try:\n    from fast import dumps\nexcept ImportError:\n"
                "    from json import dumps\n\ndef run():\n    dumps(1)\n",
    })
    assert r.calls_from("m.run") == {"fast.dumps"}


def test_importlib_literal_is_an_import() -> None:
    r = repo(**{
        "plugins/__init__.py": "",
        "plugins/a.py": "def load():\n    pass\n",
        "m.py": "import importlib\n\ndef run(name):\n"
                "    mod = importlib.import_module('plugins.a')\n    mod.load()\n"
                "    importlib.import_module(name)\n",
    })
    assert r.calls_from("m.run") == {"plugins.a.load"}
    assert ("m.run", "plugins.a") in r.pairs("import")
    assert [u.reason for u in r.unresolved] == [UnresolvedReason.IMPORTLIB]
