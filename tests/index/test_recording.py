"""Recorded test runs (`pytest --impact-record`, `impactlens record`) narrowing the
validation set, on real git repositories and real pytest runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from impactlens.api import Project
from impactlens.impact.observed import RECORDED, STARTUP, SUBPROCESS
from impactlens.index.recording import IMPORT_TIME, code_nodes
from impactlens.index.store import Store, index_path
from impactlens.model import Node, NodeKind

APP: dict[str, str] = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    ".gitignore": "__pycache__/\n.impactlens/\n",
    "src/app/__init__.py": "",
    "src/app/calc.py": (
        "def add(a, b):\n"
        "    return a + b\n\n\n"
        "def mul(a, b):\n"
        "    return a * b\n\n\n"
        "def twice(a):\n"
        "    return add(a, a)\n\n\n"
        "def unused(a):\n"
        "    return -a\n"
    ),
    # `run` reaches `mul` through a table others may fill (add_handler): no call edge the
    # static map can follow (a table written in full would give its entries)
    "src/app/registry.py": (
        "from app.calc import mul\n\n"
        "HANDLERS = {'mul': mul}\n\n\n"
        "def add_handler(name, f):\n"
        "    HANDLERS[name] = f\n\n\n"
        "def run(kind, *args):\n"
        "    return HANDLERS[kind](*args)\n"
    ),
    # `register` runs when the module is imported (a decorator applied at import)
    "src/app/boot.py": (
        "REG = []\n\n\n"
        "def register(f):\n"
        "    REG.append(f.__name__)\n"
        "    return f\n\n\n"
        "@register\n"
        "def hello():\n"
        "    return 'hi'\n"
    ),
    "tests/test_calc.py": (
        "from app.calc import add, mul, twice\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n\n\n"
        "def test_twice():\n    assert twice(2) == 4\n"
    ),
    "tests/test_registry.py": (
        "from app.registry import run\n\n\n"
        "def test_run():\n    assert run('mul', 2, 3) == 6\n"
    ),
    "tests/test_boot.py": (
        "from app.boot import REG, hello\n\n\n"
        "def test_reg():\n    assert REG == ['hello'] and hello() == 'hi'\n"
    ),
}
MUL_CHANGED = APP["src/app/calc.py"].replace("return a * b", "return b * a")


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(APP)


def pytest_run(root: Path, *args: str) -> str:
    """The repository's suite in a subprocess (the plugin loaded through its entry point);
    its output. The suite's tests all pass, whatever ``args`` select."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                           "no:hypothesispytest", "-rA", *args], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def record(root: Path) -> str:
    return pytest_run(root, "--impact-record")


def validate(root: Path) -> tuple[set[str], str]:
    with Project(root) as project:
        result = project.analyze()
    return set(result.validate), result.tests_note


def relations(root: Path) -> dict[str, str]:
    with Project(root) as project:
        return {t.test_id: t.relation for t in project.analyze().test_map}


def test_recording_maps_each_test_to_the_functions_it_ran(repo: Path) -> None:
    out = record(repo)
    assert "5 passed" in out
    assert re.search(r"impactlens: recorded 5 tests running \d+ \(test, function\) pairs in "
                     r"\d+ files into ", out)
    store = Store.open(index_path(repo))
    runs = {(t, n) for t, n, _, _ in store.recording_rows()}
    assert ("tests/test_registry.py::test_run", "app.calc.mul") in runs  # through the dict
    assert ("tests/test_calc.py::test_twice", "app.calc.add") in runs
    assert ("tests/test_calc.py::test_add", "app.calc.mul") not in runs
    assert (IMPORT_TIME, "app.boot.register") in runs  # the decorator ran at import
    assert (IMPORT_TIME, "app.calc.mul") not in runs  # a `def` line is not its body
    outcomes = store.recorded_tests()
    assert outcomes["tests/test_calc.py::test_mul"] == "passed"
    assert IMPORT_TIME not in outcomes  # not a test
    store.close()


def test_a_function_change_selects_the_tests_that_ran_it(
        repo: Path) -> None:
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    static, note = validate(repo)
    assert note == ""
    assert "tests/test_calc.py::test_add" in static  # its module imports calc (IMPORTS)
    record_at_head(repo)
    narrowed, note = validate(repo)
    assert narrowed == {"tests/test_calc.py::test_mul", "tests/test_registry.py::test_run"}
    assert "narrowed the tests of 1 changed function(s)" in note


def record_at_head(repo: Path) -> None:
    """Record the committed state, leaving the working-tree edit in place."""
    edited = (repo / "src/app/calc.py").read_text()
    (repo / "src/app/calc.py").write_text(APP["src/app/calc.py"])
    record(repo)
    (repo / "src/app/calc.py").write_text(edited)


def test_a_function_run_at_import_selects_the_tests_importing_that_module(
        repo: Path) -> None:
    record(repo)
    boot = APP["src/app/boot.py"].replace("REG.append(f.__name__)", "REG.insert(0, f.__name__)")
    (repo / "src/app/boot.py").write_text(boot)
    tests, note = validate(repo)
    assert tests == {"tests/test_boot.py::test_reg"}  # the importer of app/boot.py
    assert "1 ran at import: with the tests importing those modules" in note


def test_a_module_a_plugin_imported_before_the_recording_selects_every_test(
        make_repo: Callable[..., Path]) -> None:
    # a pytest plugin imports app.boot before recording starts: what `register` did at that
    # import is not recorded (only its run inside test_register), and an error there would
    # stop pytest before any test ran
    repo = make_repo({**APP,
                      "early_plugin.py": "import sys\n\nsys.path.insert(0, 'src')\n"
                                         "import app.boot  # noqa: E402,F401\n",
                      "tests/test_register.py": "from app.boot import register\n\n\n"
                                                "def test_register():\n"
                                                "    assert register(len) is len\n"})
    pytest_run(repo, "--impact-record", "-p", "early_plugin")
    boot = APP["src/app/boot.py"].replace("REG.append(f.__name__)", "REG.insert(0, f.__name__)")
    (repo / "src/app/boot.py").write_text(boot)
    tests, note = validate(repo)
    assert tests == set(Store.open(index_path(repo)).recorded_tests())
    assert relations(repo)["tests/test_calc.py::test_add"] == STARTUP
    assert "1 in modules imported before the recording began" in note
    info = json.loads(Store.open(index_path(repo)).recording_info() or "{}")
    assert "src/app/boot.py" in info["preimported"]


def test_impactlens_record_traces_what_a_plugin_imported_from_start_up(
        make_repo: Callable[..., Path]) -> None:
    # the same plugin, the suite run by `impactlens record`: its pytest process is traced
    # from start-up, so what app.boot's import ran (`register`, for `hello`) is known —
    # in a suite that makes warnings errors too (the start-up stub must not import the
    # plugin's package before pytest can rewrite it)
    repo = make_repo({**APP,
                      "pyproject.toml": APP["pyproject.toml"] + 'filterwarnings = ["error"]\n',
                      "early_plugin.py": "import sys\n\nsys.path.insert(0, 'src')\n"
                                         "import app.boot  # noqa: E402,F401\n"})
    code, info = Project(repo).record_tests(["-p", "no:cacheprovider", "-p", "early_plugin"])
    assert code == 0 and info is not None
    assert info["preimported"] == [] and info["from_start"] is True
    boot = APP["src/app/boot.py"]
    (repo / "src/app/boot.py").write_text(boot.replace("return 'hi'", "return 'hello'"))
    tests, _ = validate(repo)
    assert tests == {"tests/test_boot.py::test_reg"}  # `hello` ran in that test alone
    (repo / "src/app/boot.py").write_text(boot.replace("REG.append(f.__name__)",
                                                       "REG.insert(0, f.__name__)"))
    tests, note = validate(repo)  # `register` ran while pytest started: an error stops it
    assert tests == set(Store.open(index_path(repo)).recorded_tests())
    assert relations(repo)["tests/test_calc.py::test_add"] == STARTUP
    assert "ran while pytest starts" in note


UNUSED_CHANGED = APP["src/app/calc.py"].replace("return -a", "return 0 - a")


def child_test(env: str) -> dict[str, str]:
    """A test running `unused` only in a child process started with ``env``."""
    return {"tests/test_child.py": (
        "import os\nimport subprocess\nimport sys\n\n\n"
        "def test_child():\n"
        "    code = 'from app.calc import unused; assert unused(2) == -2'\n"
        f"    subprocess.run([sys.executable, '-c', code], check=True, env={env})\n"
    )}


# the child keeps the test's environment (the recording's among it), adding the sources
SEEN = child_test("{**os.environ, 'PYTHONPATH': os.pathsep.join(['src', "
                  "os.environ.get('PYTHONPATH', '')])}")
UNSEEN = child_test("{'PYTHONPATH': 'src'}")  # a fresh environment: the child is not traced


def spawners(repo: Path) -> list[str]:
    return json.loads(Store.open(index_path(repo)).recording_info() or "{}")["spawners"]


def test_a_function_no_test_ran_selects_no_test(repo: Path) -> None:
    (repo / "src/app/calc.py").write_text(UNUSED_CHANGED)
    static, _ = validate(repo)
    assert static  # the static map: the tests importing app.calc
    record_at_head(repo)
    tests, note = validate(repo)
    assert tests == set()
    assert "no recorded test ran the changed statements of app.calc.unused" in note


def test_what_a_child_process_ran_is_credited_to_the_test_that_started_it(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, **SEEN})
    record(repo)
    assert spawners(repo) == []
    lines = Store.open(index_path(repo)).test_lines("app.calc.unused")
    assert lines == {"tests/test_child.py::test_child": "14"}  # `return -a`, in the child
    (repo / "src/app/calc.py").write_text(UNUSED_CHANGED)
    tests, _ = validate(repo)
    assert tests == {"tests/test_child.py::test_child"}  # no static edge reaches it
    assert relations(repo)["tests/test_child.py::test_child"] == RECORDED


def test_a_child_of_a_process_traced_from_start_up_is_followed(
        make_repo: Callable[..., Path]) -> None:
    # `impactlens record`: the start-up stub is on the child's PYTHONPATH too, behind the
    # recorder's; the child runs one of them, once, and reports
    repo = make_repo({**APP, **SEEN})
    code, info = Project(repo).record_tests(["-p", "no:cacheprovider"])
    assert code == 0 and info is not None and info["spawners"] == []
    lines = Store.open(index_path(repo)).test_lines("app.calc.unused")
    assert lines == {"tests/test_child.py::test_child": "14"}


def test_a_child_the_recording_cannot_see_keeps_its_test_for_any_change(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, **UNSEEN})
    record(repo)
    assert spawners(repo) == ["tests/test_child.py::test_child"]
    (repo / "src/app/calc.py").write_text(UNUSED_CHANGED)
    tests, note = validate(repo)
    assert tests == {"tests/test_child.py::test_child"}
    assert relations(repo)["tests/test_child.py::test_child"] == SUBPROCESS
    assert "1 test(s) that start a process (unrecorded) kept" in note
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    tests, _ = validate(repo)  # beside the tests that ran `mul`
    assert tests == {"tests/test_calc.py::test_mul", "tests/test_registry.py::test_run",
                     "tests/test_child.py::test_child"}
    (repo / "src/app/calc.py").write_text(APP["src/app/calc.py"])
    (repo / "src/app/registry.py").write_text(APP["src/app/registry.py"].replace(
        "{'mul': mul}", "{'mul': mul, 'times': mul}"))
    tests, _ = validate(repo)  # a module-level change too (the static map decides the rest)
    assert {"tests/test_registry.py::test_run", "tests/test_child.py::test_child"} <= tests


def test_forked_killed_or_isolated_children_make_spawners(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, "src/app/proc.py": (
        "import os\n\n\n"
        "def fork_and_exit():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:  # the copy goes on in this frame, then leaves without a report\n"
        "        pid = -1\n"
        "        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
    ), "tests/test_pool.py": (
        "import multiprocessing\nimport os\nimport subprocess\nimport sys\n\n"
        "from app.calc import unused\n\n\n"
        "def run(method):\n"
        "    p = multiprocessing.get_context(method).Process(target=unused, args=(1,))\n"
        "    p.start()\n    p.join()\n    assert p.exitcode == 0\n\n\n"
        "def test_spawn():\n    run('spawn')  # a fresh interpreter: it reports\n\n\n"
        "def test_fork():\n    run('fork')  # a copy of this process: its report is lost\n\n\n"
        "def test_killed():\n"
        "    code = 'import time; import app.calc; print(1, flush=True); time.sleep(60)'\n"
        "    path = os.pathsep.join(['src', os.environ['PYTHONPATH']])\n"
        "    env = {**os.environ, 'PYTHONPATH': path}\n"
        "    p = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, env=env)\n"
        "    p.stdout.readline()\n    p.kill()\n    p.wait()\n\n\n"
        "def test_killed_early():  # before it ran anything of the project's\n"
        "    p = subprocess.Popen([sys.executable, '-c', 'print(1, flush=True); input()'],\n"
        "                         stdout=subprocess.PIPE, stdin=subprocess.PIPE)\n"
        "    p.stdout.readline()\n    p.kill()\n    p.wait()\n\n\n"
        "def test_isolated():\n"
        "    subprocess.run([sys.executable, '-I', '-c', 'pass'], check=True)\n\n\n"
        "def test_child_forks():  # a child it sees forks, in project code, one it does not\n"
        "    code = 'import app.proc; app.proc.fork_and_exit()'\n"
        "    path = os.pathsep.join(['src', os.environ['PYTHONPATH']])\n"
        "    env = {**os.environ, 'PYTHONPATH': path}\n"
        "    subprocess.run([sys.executable, '-c', code], check=True, env=env)\n\n\n"
        "def test_grandchild():  # a child it sees starts one it does not\n"
        "    code = 'import subprocess, sys; subprocess.run([sys.executable, \"-V\"], env={})'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n"
    )})
    record(repo)
    assert spawners(repo) == [f"tests/test_pool.py::test_{t}" for t in (
        "child_forks", "fork", "grandchild", "isolated", "killed")]
    ran = Store.open(index_path(repo)).test_lines("app.calc.unused")
    assert "tests/test_pool.py::test_spawn" in ran


def test_an_unseen_process_started_outside_tests_keeps_the_static_selection(
        make_repo: Callable[..., Path]) -> None:
    repo = make_repo({**APP, "tests/conftest.py": (
        "import subprocess\nimport sys\n\n"
        "subprocess.run([sys.executable, '-c', 'pass'], check=True, env={})\n")})
    (repo / "src/app/calc.py").write_text(UNUSED_CHANGED)
    static, _ = validate(repo)
    record_at_head(repo)
    tests, note = validate(repo)
    assert tests == static != set()
    assert "did not narrow" in note
    info = json.loads(Store.open(index_path(repo)).recording_info() or "{}")
    assert info["spawned_outside"] is True


def test_a_recording_of_other_text_is_not_used_for_that_file(
        repo: Path) -> None:
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    record(repo)  # records the edited text, not the change's before state
    tests, note = validate(repo)
    assert "tests/test_calc.py::test_add" in tests
    assert "did not narrow" in note


def test_tests_that_ran_a_file_changed_since_are_judged_statically(
        repo: Path, git_commit: Callable[..., str]) -> None:
    record(repo)
    registry = APP["src/app/registry.py"] + "\n\ndef kinds():\n    return sorted(HANDLERS)\n"
    git_commit(repo, {"src/app/registry.py": registry,
                      "tests/test_more.py": "from app.calc import mul\n\n\n"
                                            "def test_new():\n    assert mul(1, 1) == 1\n"},
               "registry lists kinds; a new test")
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    tests, note = validate(repo)
    assert "tests/test_calc.py::test_mul" in tests
    assert "tests/test_calc.py::test_add" not in tests  # fresh: shown not to run mul
    assert "tests/test_more.py::test_new" in tests  # not recorded: the static map decides
    # test_run ran registry.py, changed since: stale, so the static map judges it alone
    assert relations(repo)["tests/test_registry.py::test_run"] != RECORDED
    assert relations(repo)["tests/test_calc.py::test_mul"] == RECORDED
    assert "1 stale" in note


def test_pytest_impact_runs_the_narrowed_set(repo: Path) -> None:
    record(repo)
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    out = pytest_run(repo, "--impact")
    assert "2 passed, 2 deselected" in out  # test_boot.py, no test of it kept: not collected
    assert "collected 4 items" in out
    assert "PASSED tests/test_calc.py::test_mul" in out


def test_record_command(repo: Path) -> None:
    exe = [sys.executable, "-m", "impactlens", "record", "--repo", str(repo), "--", "-q",
           "-p", "no:cacheprovider"]
    proc = subprocess.run(exe, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "recorded 5 tests" in proc.stderr
    cheap = subprocess.run([*exe[:6], "--functions-only", *exe[6:]], capture_output=True,
                           text=True, timeout=120, check=False)
    assert cheap.returncode == 0, cheap.stderr
    assert json.loads(Store.open(index_path(repo)).recording_info() or "{}")["lines"] is False
    bad = subprocess.run([*exe[:6], "--", "--no-such-option"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert bad.returncode != 0
    assert "recorded nothing" in bad.stderr


def test_code_objects_map_to_the_innermost_function_of_their_name() -> None:
    def node(qual: str, kind: NodeKind, start: int, end: int) -> Node:
        return Node(id=f"m.{qual}", kind=kind, qualname=qual, file="m.py", start_line=start,
                    end_line=end)

    nodes = [node("f", NodeKind.FUNCTION, 1, 7),  # decorated: its code starts at line 1
             node("f.inner", NodeKind.FUNCTION, 5, 6), node("C", NodeKind.CLASS, 8, 10),
             node("C.m", NodeKind.METHOD, 9, 10), node("C.f", NodeKind.METHOD, 11, 12)]
    codes = [("f", 1), ("inner", 5), ("m", 9), ("f", 11), ("<listcomp>", 6), ("<module>", 1),
             ("C", 8), ("gone", 3)]
    assert code_nodes(codes, nodes) == {("f", 1): "m.f", ("inner", 5): "m.f.inner",
                                        ("m", 9): "m.C.m", ("f", 11): "m.C.f"}


def test_a_recording_re_indexes_with_the_runs_own_settings(
        indexed: Callable[..., Project]) -> None:
    """The recorder re-indexes inside pytest: with other settings than the run's it would
    clear and re-mine the history (its mode changed); handed down, nothing is re-mined."""
    from impactlens.settings import DEFAULT

    settings = DEFAULT.replace(history_first_parent=True)
    with indexed({**APP, **SEEN}, settings=settings) as project:
        code, info = project.record_tests(["-p", "no:cacheprovider"])
        assert code == 0 and info is not None
        again = project.index()
    assert any("commits indexed (0 new)" in n for n in again.notes), again.notes


def test_a_suite_configured_in_its_tests_directory_is_recorded_by_repository_ids(
        make_repo: Callable[..., Path]) -> None:
    # no configuration at the root: `impactlens record` runs `pytest tests`, whose
    # tests/pytest.ini roots pytest in tests/; the recording still names the repository's ids
    files = {k: v for k, v in APP.items() if k != "pyproject.toml"}
    repo = make_repo({**files, "tests/pytest.ini": "[pytest]\npythonpath = ../src\n"})
    with Project(repo) as project:
        code, info = project.record_tests()
    assert code == 0 and info is not None and info["tests"] == 5
    assert "tests/test_calc.py::test_mul" in Store.open(index_path(repo)).recorded_tests()
    (repo / "src/app/calc.py").write_text(MUL_CHANGED)
    narrowed, _ = validate(repo)
    assert narrowed == {"tests/test_calc.py::test_mul", "tests/test_registry.py::test_run"}
