"""`pytest --impact` against the whole suite and pytest-testmon, on the same edits.

    python bench/pytest_speed.py /tmp/repos/click /tmp/repos/werkzeug /tmp/repos/starlette \
        --venvs /tmp/venvs --runs 3 --json out.json

Each argument is a clone of one of the repositories in ``EDITS`` (its directory name starts
with the repository's name), with a clean work tree; ``--venvs DIR`` runs each in
``DIR/NAME`` (the repository, its test dependencies, this checkout's impactlens and
pytest-testmon installed there), otherwise in this interpreter. Per repository, on the
clean tree: ``impactlens index``, a ``pytest --testmon`` run and ``impactlens record``
build each tool's data (their cost is reported as set-up). Then, per edit, ``--runs``
rounds each run the full suite, ``pytest --impact --impact-no-cache`` with the index alone
and with the index and the recording (a fresh analysis, the data as it was before the
edit) and ``pytest --testmon --testmon-forceselect`` (its data as it was before the edit;
without ``--testmon-forceselect`` testmon runs every test when ``-m`` is given, as in
click's ``addopts``); each round starts
one variant later than the last, so that the machine's load falls on all alike. The last
round also runs each ``pytest --impact`` again (the cached selection). Wall and CPU (user
+ system of the process and every process it waited for) are medians over the rounds;
Python writes its bytecode (and pytest its rewritten test modules) as on a developer's
machine, the set-up runs warming both. Every edit is a fault: "caught" counts the tests
that pass on the clean tree and fail with the edit in the full suite, among those each
selection ran (the least over the rounds). The edit is undone afterwards (``git
checkout``). Prints a markdown table; ``--json FILE`` keeps every run.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # this checkout: its impactlens is the one run

# repository → edit name → (file, text, replacement). Every edit is a fault: it breaks
# the function it changes, so "caught" is measured on the edit that is timed. A narrow
# edit changes the body of one small function few tests run; a wide one a function of a
# core module that most tests run.
EDITS: dict[str, dict[str, tuple[str, str, str]]] = {
    "click": {
        "narrow 1": ("src/click/termui.py", 'default_preview = f" [({show_default})]"',
                     'default_preview = f" [{show_default}]"'),
        "narrow 2": ("src/click/types.py", 'return f"{self.min}{lop}x{rop}{self.max}"',
                     'return f"{self.min}{rop}x{lop}{self.max}"'),
        "wide": ("src/click/utils.py", '            out += "\\n"\n',
                 '            out += " \\n"\n'),
    },
    "werkzeug": {
        "narrow 1": ("src/werkzeug/http.py", '        etag = f"W/{etag}"',
                     '        etag = f"w/{etag}"'),
        "narrow 2": ("src/werkzeug/utils.py", '.strip(\n        "._"\n    )',
                     '.strip(\n        "_"\n    )'),
        "wide": ("src/werkzeug/_internal.py",
                 'return s.encode("latin1").decode(errors="replace")',
                 'return s.encode("latin1").decode("latin1", errors="replace")'),
    },
    "starlette": {
        "narrow 1": ("starlette/datastructures.py",
                     "self._items = [item.strip() for item in splitter]",
                     "self._items = [item for item in splitter]"),
        "narrow 2": ("starlette/datastructures.py",
                     'url = str(self.replace(password="********"))',
                     'url = str(self.replace(password="***"))'),
        "wide": ("starlette/responses.py", 'content_type += "; charset=" + self.charset',
                 'content_type += ";charset=" + self.charset'),
    },
    "attrs": {
        "narrow 1": ("src/attr/converters.py",
                     "            if val is None:\n                return None\n"
                     "            return converter(val)\n",
                     "            if val is None:\n                return 0\n"
                     "            return converter(val)\n"),
        "wide": ("src/attr/_make.py", 'repr_fragment = ", ".join(attribute_fragments)',
                 'repr_fragment = ",".join(attribute_fragments)'),
    },
    "itsdangerous": {
        "narrow 1": ("src/itsdangerous/encoding.py",
                     'return _int_to_bytes(num).lstrip(b"\\x00")',
                     'return _int_to_bytes(num + 1).lstrip(b"\\x00")'),
        "wide": ("src/itsdangerous/encoding.py",
                 "        s = s.encode(encoding, errors)\n\n    return s",
                 "        s = s.encode(encoding, errors)\n\n    _unused = None\n    return s"),
    },
    "rich": {
        "narrow 1": ("rich/filesize.py",
                     '("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"),\n        1000,',
                     '("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"),\n        1024,'),
        "wide": ("rich/cells.py", "    if len(text) < 512:\n        return cached_cell_len",
                 "    if len(text) < 511:\n        return cached_cell_len"),
    },
}
# what each suite needs to run here: werkzeug's dev-server tests start servers on ports,
# starlette's suite turns its dependencies' deprecation warnings into errors, attrs runs
# without xdist (one process, as the others)
PYTEST_ARGS: dict[str, list[str]] = {
    "werkzeug": ["-m", "not dev_server"],
    "starlette": ["-W", "ignore::DeprecationWarning", "-W", "ignore::PendingDeprecationWarning"],
    "attrs": ["-p", "no:xdist"],
}
_PYTEST = ["-m", "pytest", "-q", "-p", "no:randomly"]  # (testmon needs the cacheprovider)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(repo: Path, args: list[str], env: dict[str, str], python: str = sys.executable,
        timeout: float = 1800) -> dict[str, Any]:
    """One pytest run of ``repo``'s suite: wall, CPU, the tests run and those failing."""
    with tempfile.TemporaryDirectory(prefix="ps-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [python, *_PYTEST, f"--junitxml={junit}", *args]  # its testpaths
        c0, t0 = _cpu(), time.perf_counter()
        proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        ran, failed = _outcomes(junit)
    said = [line for line in proc.stdout.splitlines() if line.startswith("impactlens:")]
    return {"wall": wall, "cpu": cpu, "ran": len(ran), "failed": sorted(failed),
            "code": proc.returncode, "impactlens": said}


def _timed(cmd: list[str], repo: Path, env: dict[str, str]) -> dict[str, float]:
    """Wall and CPU of a set-up command (it must succeed)."""
    t0, c0 = time.perf_counter(), _cpu()
    subprocess.run(cmd, cwd=repo, env=env, capture_output=True, check=True)
    return {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0}


def _outcomes(junit: Path) -> tuple[set[str], set[str]]:
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return set(), set()
    ran, failed = set(), set()
    for case in root.iter("testcase"):
        tid = f"{case.get('classname')}::{case.get('name')}"
        if case.find("skipped") is not None:
            continue
        ran.add(tid)
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(tid)
    return ran, failed


def _env(repo: Path) -> dict[str, str]:
    src = repo / "src" if (repo / "src").is_dir() else repo
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(HERE / "src")]),
            "TERM": "unknown", "PYTEST_ADDOPTS": ""}


def _restore(saved: Path, target: Path) -> None:
    """``target`` as ``saved`` is (absent if it is), with its SQLite sidecars (``-wal``)."""
    for old in [target, *target.parent.glob(target.name + "-*")]:
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    for new in [saved, *saved.parent.glob(saved.name + "-*")]:
        into = target.parent / (target.name + new.name[len(saved.name):])
        if new.is_dir():
            shutil.copytree(new, into)
        elif new.exists():
            shutil.copy2(new, into)


_NO_TM, _NO_IL = ["-p", "no:pytest-testmon"], ["-p", "no:impactlens"]
# testmon stops selecting when -m or -k is given (click's addopts has one): select anyway
_TESTMON = [*_NO_IL, "--testmon", "--testmon-forceselect"]
_DATA = {"impact": ".impactlens", "impact rec": ".impactlens", "testmon": ".testmondata"}


def _setup(repo: Path, name: str, python: str, keep: Path, record: bool
           ) -> tuple[dict[str, Any], set[str]]:
    """Build each tool's data on the clean tree and keep a copy of it under ``keep``: the
    index (``impact``), the index with a recorded run (``impact rec``), testmon's data.
    Returns the set-up costs and the tests that fail on the clean tree."""
    env, extra = _env(repo), PYTEST_ARGS.get(name, [])
    for data in (".impactlens", ".testmondata"):
        _restore(keep / "none", repo / data)  # start from nothing
    setup = {"index": _timed([python, "-m", "impactlens", "index", "."], repo, env)}
    _restore(repo / ".impactlens", keep / "impact" / ".impactlens")
    testmon0 = run(repo, [*_TESTMON, *extra], env, python)
    setup["testmon"] = {k: testmon0[k] for k in ("wall", "cpu", "ran")}
    _restore(repo / ".testmondata", keep / "testmon" / ".testmondata")
    if record:
        setup["record"] = _timed([python, "-m", "impactlens", "record", "--",
                                  *_PYTEST[2:], *_NO_TM, *extra], repo, env)
        _restore(repo / ".impactlens", keep / "impact rec" / ".impactlens")
    return setup, set(testmon0["failed"])


def bench_repo(repo: Path, runs: int, log: Any, kinds: tuple[str, ...] = ("narrow", "wide"),
               python: str = sys.executable, record: bool = True) -> dict[str, Any]:
    name = next(n for n in EDITS if repo.name.startswith(n))
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    plain, extra = _env(repo), PYTEST_ARGS.get(name, [])
    exclude = repo / ".git" / "info" / "exclude"  # testmon's data is no change to analyze
    if ".testmondata" not in (exclude.read_text() if exclude.exists() else ""):
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a") as fh:
            fh.write("\n.testmondata*\n")
    keep = Path(tempfile.mkdtemp(prefix=f"ps-{name}-"))
    setup, clean_failed = _setup(repo, name, python, keep, record)
    impact = ["--impact", "--impact-no-cache"]
    variants = {"full": [*_NO_TM, *_NO_IL], "impact": [*_NO_TM, *impact],
                "impact rec": [*_NO_TM, *impact], "testmon": _TESTMON}
    if not record:
        del variants["impact rec"]
    out: dict[str, Any] = {"repo": name, "sha": sha, "python": python, "args": extra,
                           "setup": setup, "edits": {}}
    for kind, (path, old, new) in EDITS[name].items():
        if kind.split()[0] not in kinds:
            continue
        target = repo / path
        text = target.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name} {kind}: the edit's text is not there once"
        target.write_text(text.replace(old, new), encoding="utf-8")
        rounds: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
        rerun: dict[str, dict[str, Any]] = {}
        try:
            for i in range(runs):
                order = list(variants)[i % len(variants):] + list(variants)[:i % len(variants)]
                for v in order:  # each round starts one variant later: load falls alike
                    if v in _DATA:  # the tool's data as it was before the edit
                        _restore(keep / v / _DATA[v], repo / _DATA[v])
                    rounds[v].append(run(repo, [*variants[v], *extra], plain, python))
                    if v.startswith("impact") and i == runs - 1:  # the cached selection
                        rerun[v] = run(repo, [*_NO_TM, "--impact", *extra], plain, python)
                print(f"{name} {kind} round {i + 1}: " + ", ".join(
                    f"{m} {r[-1]['wall']:.1f}s/{r[-1]['cpu']:.1f}cpu/{r[-1]['ran']}"
                    for m, r in rounds.items()), file=log, flush=True)
        finally:
            target.write_text(text, encoding="utf-8")
        breaking = set(rounds["full"][0]["failed"]) - clean_failed
        out["edits"][kind] = {
            "file": path, "breaking": len(breaking), "rounds": rounds, "rerun": rerun,
            "summary": {m: _median(rs, breaking) for m, rs in rounds.items()},
        }
    shutil.rmtree(keep, ignore_errors=True)
    return out


def _median(rs: list[dict[str, Any]], breaking: set[str]) -> dict[str, Any]:
    return {"wall": statistics.median(r["wall"] for r in rs),
            "cpu": statistics.median(r["cpu"] for r in rs),
            "ran": statistics.median(r["ran"] for r in rs),
            "caught": min(len(breaking & set(r["failed"])) for r in rs)}


def table(results: list[dict[str, Any]]) -> str:
    """One row per edit: medians, wall / CPU seconds, tests run, breaking tests caught."""
    rows = ["| repository (head) | edit | breaking | full suite: wall / CPU, "
            "tests | `--impact`: wall / CPU, tests, caught | `--impact`, recorded: wall / "
            "CPU, tests, caught | testmon: wall / CPU, tests, caught | re-run, cached: "
            "wall / CPU (index, recorded) |",
            "|---|---|---:|---|---|---|---|---|"]
    for res in results:
        for kind, e in res["edits"].items():
            s = e["summary"]
            cells = []
            for m in ("impact", "impact rec", "testmon"):
                x = s.get(m)
                cells.append("–" if x is None else f"{x['wall']:.1f} / {x['cpu']:.1f}, "
                             f"{x['ran']:g}, {x['caught']}")
            again = " ; ".join(f"{r['wall']:.1f} / {r['cpu']:.1f}" for m in
                               ("impact", "impact rec") if (r := e["rerun"].get(m)))
            f = s["full"]
            rows.append(
                f"| {res['repo']} `{res['sha'][:10]}` | {kind} (`{e['file']}`) "
                f"| {e['breaking']} | {f['wall']:.1f} / {f['cpu']:.1f}, {f['ran']:g} "
                f"| {' | '.join(cells)} | {again} |")
    return "\n".join(rows)


def setup_table(results: list[dict[str, Any]]) -> str:
    """What each tool's data cost to build on the clean tree."""
    rows = ["| repository | `impactlens index`: wall / CPU | testmon's first run: wall / CPU "
            "| `impactlens record`: wall / CPU |", "|---|---|---|---|"]
    for res in results:
        st = res["setup"]
        cells = [f"{st[k]['wall']:.1f} / {st[k]['cpu']:.1f}" if k in st else "–"
                 for k in ("index", "testmon", "record")]
        rows.append(f"| {res['repo']} | {' | '.join(cells)} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--edits", default="narrow,wide", help="which edits (comma-separated)")
    ap.add_argument("--venvs", type=Path, default=None,
                    help="a directory of one venv per repository (VENVS/NAME/bin/python, "
                         "NAME the clone's directory name); default: this interpreter")
    ap.add_argument("--no-record", action="store_true",
                    help="leave out the variant with a recorded run (impactlens record)")
    args = ap.parse_args(argv)
    # bytecode for this checkout's impactlens, as an installed package has it (and pytest,
    # testmon and the rest in site-packages)
    compileall.compile_dir(HERE / "src", quiet=1)
    results = []
    for repo in args.repos:
        venv = args.venvs / repo.name / "bin" / "python" if args.venvs else None
        python = str(venv) if venv is not None and venv.exists() else sys.executable
        results.append(bench_repo(repo.resolve(), args.runs, sys.stderr,
                                  tuple(args.edits.split(",")), python, not args.no_record))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    print(table(results))
    print()
    print(setup_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
