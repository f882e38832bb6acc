"""`impactlens-bench monorepo`: renamed copies of a small project whose imports resolve
inside their own copy (indexed with the real pipeline)."""

from __future__ import annotations

import json
import subprocess

from impactlens.api import Project
from impactlens.bench import monorepo

PROJECT = {
    "lib/__init__.py": "",
    "lib/core.py": "def helper(x):\n    return x\n",
    "lib/use.py": ("import lib.core\nfrom lib.core import helper  # the helper\n\n\n"
                   "def use():\n    return helper(1) + lib.core.helper(2)\n"),
    "lib/conf.py": 'TARGET = "lib.core.helper"\nWORD = "lib"\n',
    "tests/__init__.py_": "",  # not a package: tests/ holds top-level test packages
    "tests/suite/__init__.py": "",
    "tests/suite/models.py": "from lib.use import use\n\n\ndef model():\n    return use()\n",
    "tests/suite/test_it.py": ("from suite.models import model\nimport os, suite.models\n\n\n"
                               "def test_it():\n    assert model() == 3\n"),
    "tests/runtests.py": "import inspect\nimport suite\n",
    "README.txt": "lib\n",
}


def _write(root, files):
    for path, text in files.items():
        if path.endswith("_"):
            continue
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_top_level_names_take_root_packages_and_those_of_plain_directories(tmp_path):
    _write(tmp_path, PROJECT)
    (tmp_path / "tests/inspect").mkdir()
    (tmp_path / "tests/inspect/__init__.py").write_text("")  # named like a standard module
    assert monorepo.top_level_names(tmp_path) == {"lib", "suite", "runtests"}


def test_copies_are_renamed_and_resolve_inside_themselves(tmp_path):
    src = tmp_path / "src"
    _write(src, PROJECT)
    got = monorepo.generate(src, tmp_path / "mono", 2)
    assert got["copies"] == 2
    mono = tmp_path / "mono"
    use = (mono / "copy2/lib_c2/use.py").read_text()
    assert use.startswith("import lib_c2.core\nfrom lib_c2.core import helper  # the helper\n")
    assert "lib.core.helper(2)" in use  # only statements are rewritten, not code
    conf = (mono / "copy1/lib_c1/conf.py").read_text()
    assert conf == 'TARGET = "lib_c1.core.helper"\nWORD = "lib"\n'
    test = (mono / "copy1/tests/suite_c1/test_it.py").read_text()
    assert test.startswith("from suite_c1.models import model\nimport os, suite_c1.models\n")
    assert (mono / "copy1/tests/runtests_c1.py").read_text() == "import inspect\nimport suite_c1\n"
    assert (mono / "copy2/README.txt").read_text() == "lib\n"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=mono, capture_output=True,
                            text=True, check=True).stdout
    assert status == ""  # committed

    project = Project(mono)
    project.index(full=True)
    reach = json.dumps(project.impact("lib_c1.core.helper", depth=5))
    assert "lib_c1.use.use" in reach and "suite_c1.models.model" in reach
    assert "_c2" not in reach  # no import crossed into the other copy


def test_an_existing_destination_is_refused(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "dest").mkdir()
    assert monorepo.main([str(tmp_path / "src"), str(tmp_path / "dest")]) == 2
