"""`impactlens-bench record` on a small real repository: real pytest runs, real analyses."""

from __future__ import annotations

import json

from impactlens.bench import recording_cost as record

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    ".gitignore": ".impactlens/\n",
    "src/lib/__init__.py": "",
    "src/lib/ops.py": (
        "def inc(x):\n    return x + 1\n\n\n"
        "def dec(x):\n    return x - 1\n\n\n"
        "def both(x):\n    return dec(inc(x))\n"
    ),
    "tests/test_ops.py": (
        "from lib import ops\n\n\n"
        "def test_inc():\n    assert ops.inc(1) == 2\n\n\n"
        "def test_dec():\n    assert ops.dec(1) == 0\n\n\n"
        "def test_both():\n    assert ops.both(1) == 1\n"
    ),
}


def test_bench_record_times_the_suite_and_compares_selections(make_repo, capsys):
    root = make_repo(FILES)
    assert record.main([str(root), "--runs", "1", "--sample", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["suite_s"]["plain"] > 0 and got["suite_s"]["ratio"] > 0
    assert got["recording"]["tests"] == 3 and got["recording"]["rows"] >= 4
    assert len(got["functions"]) == 2
    for row in got["functions"]:
        # the module-importing tests are all in the static set; the recording keeps only
        # those that ran the function
        assert row["recorded_selected"] < row["static_selected"] == 1.0
    assert (root / "src/lib/ops.py").read_text() == FILES["src/lib/ops.py"]  # untouched


def test_bench_record_refuses_a_directory_without_git(tmp_path, capsys):
    assert record.main([str(tmp_path)]) == 2
    assert "not a git work tree" in capsys.readouterr().err


def test_bench_record_samples_only_functions_a_test_ran(make_repo, capsys):
    root = make_repo({**FILES,
                      "src/lib/boot.py": "def setup():\n    x = 1\n    return x\n\n\n"
                                         "VALUE = setup()\n",
                      "tests/test_boot.py": "from lib.boot import VALUE\n\n\n"
                                            "def test_value():\n    assert VALUE == 1\n"})
    assert record.main([str(root), "--runs", "1", "--sample", "10", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    sampled = {row["function"] for row in got["functions"]}
    assert sampled == {"lib.ops.inc", "lib.ops.dec", "lib.ops.both"}  # not boot.setup: import
