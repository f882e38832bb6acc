"""`pytest --impact` against the whole suite and pytest-testmon, on the same edits.

    python bench/pytest_speed.py /tmp/attrs-ps /tmp/rich-ps /tmp/itsdangerous-ps --runs 3

Each argument is a clone of one of the repositories in ``EDITS`` (its directory name starts
with the repository's name), with a clean work tree; pytest-testmon must be installed.
Per repository: ``impactlens index`` and a ``pytest --testmon`` run on the clean tree build
each tool's data (their cost is reported as set-up); then, per edit, ``--runs`` rounds each
run the full suite, ``pytest --impact --impact-no-cache`` (a fresh analysis, the index as
it was before the edit) and ``pytest --testmon`` (its data as it was before the edit),
interleaved so that the machine's load falls on all three alike; then one ``pytest
--impact`` re-run (the cached selection). Wall and CPU (user + system of the process and
every process it waited for) are medians over the rounds (this checkout's impactlens is
byte-compiled first, as an installed one is); "caught" counts the tests that
pass on the clean tree and fail with the edit in the full suite, among those each
selection ran. The edit is undone afterwards (``git checkout``). Prints a markdown table;
``--json FILE`` keeps every run.
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

# (repository, edit kind) → (file, text, replacement): a narrow edit changes one small
# function's body (and breaks some tests), a wide one a function most tests run
EDITS: dict[str, dict[str, tuple[str, str, str]]] = {
    "click": {
        "narrow": ("src/click/termui.py", 'default_preview = f" [({show_default})]"',
                   'default_preview = f" [{show_default}]"'),
        "wide": ("src/click/utils.py", '    """\n    if file is None:\n        if err:',
                 '    """\n    _unused = None\n    if file is None:\n        if err:'),
    },
    "attrs": {
        "narrow": ("src/attr/converters.py",
                   "            if val is None:\n                return None\n"
                   "            return converter(val)\n",
                   "            if val is None:\n                return 0\n"
                   "            return converter(val)\n"),
        "wide": ("src/attr/_make.py", "    generic_base = get_generic_base(cls)\n\n    if gene",
                 "    _unused = None\n    generic_base = get_generic_base(cls)\n\n    if gene"),
    },
    "itsdangerous": {
        "narrow": ("src/itsdangerous/encoding.py",
                   'return _int_to_bytes(num).lstrip(b"\\x00")',
                   'return _int_to_bytes(num + 1).lstrip(b"\\x00")'),
        "wide": ("src/itsdangerous/encoding.py",
                 "        s = s.encode(encoding, errors)\n\n    return s",
                 "        s = s.encode(encoding, errors)\n\n    _unused = None\n    return s"),
    },
    "rich": {
        "narrow": ("rich/filesize.py",
                   '("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"),\n        1000,',
                   '("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"),\n        1024,'),
        "wide": ("rich/cells.py", "    if len(text) < 512:\n        return cached_cell_len",
                 "    if len(text) < 511:\n        return cached_cell_len"),
    },
}
_PYTEST = ["-m", "pytest", "-q", "-p", "no:randomly"]  # (testmon needs the cacheprovider)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(repo: Path, args: list[str], env: dict[str, str], timeout: float = 1800
        ) -> dict[str, Any]:
    """One pytest run of ``repo``'s suite: wall, CPU, the tests run and those failing."""
    with tempfile.TemporaryDirectory(prefix="ps-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [sys.executable, *_PYTEST, f"--junitxml={junit}", *args]  # its testpaths
        c0, t0 = _cpu(), time.perf_counter()
        proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        ran, failed = _outcomes(junit)
    said = [line for line in proc.stdout.splitlines() if line.startswith("impactlens:")]
    return {"wall": wall, "cpu": cpu, "ran": len(ran), "failed": sorted(failed),
            "code": proc.returncode, "impactlens": said}


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
            "PYTHONDONTWRITEBYTECODE": "1", "TERM": "unknown", "PYTEST_ADDOPTS": ""}


def _restore(saved: Path, target: Path) -> None:
    """``target`` as ``saved`` is (absent if it is), with its SQLite sidecars (``-wal``)."""
    for old in [target, *target.parent.glob(target.name + "-*")]:
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    for new in [saved, *saved.parent.glob(saved.name + "-*")]:
        into = target.parent / (target.name + new.name[len(saved.name):])
        if new.is_dir():
            shutil.copytree(new, into)
        elif new.exists():
            shutil.copy2(new, into)


def bench_repo(repo: Path, runs: int, log: Any, kinds: tuple[str, ...] = ("narrow", "wide")
               ) -> dict[str, Any]:
    name = next(n for n in EDITS if repo.name.startswith(n))
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    plain = _env(repo)
    exclude = repo / ".git" / "info" / "exclude"  # testmon's data is no change to analyze
    if ".testmondata" not in (exclude.read_text() if exclude.exists() else ""):
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a") as fh:
            fh.write("\n.testmondata*\n")
    no_tm, no_il = ["-p", "no:pytest-testmon"], ["-p", "no:impactlens"]
    keep = Path(tempfile.mkdtemp(prefix=f"ps-{name}-"))
    for data in (".impactlens", ".testmondata"):
        _restore(keep / "none", repo / data)  # start from nothing
    t0, c0 = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, "-m", "impactlens", "index", "."], cwd=repo, env=plain,
                   capture_output=True, check=True)
    setup = {"index": {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0}}
    testmon0 = run(repo, [*no_il, "--testmon"], plain)
    setup["testmon"] = {k: testmon0[k] for k in ("wall", "cpu", "ran")}
    clean_failed = set(testmon0["failed"])
    for data in (".impactlens", ".testmondata"):
        _restore(repo / data, keep / data)
    out: dict[str, Any] = {"repo": name, "sha": sha, "setup": setup, "edits": {}}
    for kind, (path, old, new) in EDITS[name].items():
        if kind not in kinds:
            continue
        target = repo / path
        text = target.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name} {kind}: the edit's text is not unique"
        target.write_text(text.replace(old, new), encoding="utf-8")
        rounds: dict[str, list[dict[str, Any]]] = {"full": [], "impact": [], "testmon": []}
        try:
            for i in range(runs):
                rounds["full"].append(run(repo, [*no_tm, *no_il], plain))
                _restore(keep / ".impactlens", repo / ".impactlens")
                rounds["impact"].append(run(repo, [*no_tm, "--impact", "--impact-no-cache"],
                                            plain))
                _restore(keep / ".testmondata", repo / ".testmondata")
                rounds["testmon"].append(run(repo, [*no_il, "--testmon"], plain))
                print(f"{name} {kind} round {i + 1}: " + ", ".join(
                    f"{m} {r[-1]['wall']:.1f}s/{r[-1]['cpu']:.1f}cpu/{r[-1]['ran']}"
                    for m, r in rounds.items()), file=log, flush=True)
            rerun = run(repo, [*no_tm, "--impact"], plain)  # the cached selection
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
    rows = ["| repository | edit | breaking | full suite: wall / CPU s, tests | "
            "`pytest --impact`: wall / CPU s, tests, caught | testmon: wall / CPU s, tests, "
            "caught | `--impact` re-run (cached): wall / CPU s |",
            "|---|---|---|---|---|---|---|"]
    for res in results:
        for kind, e in res["edits"].items():
            s = e["summary"]
            f, i, t = s["full"], s["impact"], s["testmon"]
            rows.append(
                f"| {res['repo']} @{res['sha'][:8]} | {kind} (`{e['file']}`) | {e['breaking']} "
                f"| {f['wall']:.1f} / {f['cpu']:.1f}, {f['ran']:g} "
                f"| {i['wall']:.1f} / {i['cpu']:.1f}, {i['ran']:g}, {i['caught']} "
                f"| {t['wall']:.1f} / {t['cpu']:.1f}, {t['ran']:g}, {t['caught']} "
                f"| {e['rerun']['wall']:.1f} / {e['rerun']['cpu']:.1f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--edits", default="narrow,wide", help="which edits (comma-separated)")
    args = ap.parse_args(argv)
    # bytecode for this checkout's impactlens, as an installed package has it (and pytest,
    # testmon and the rest in site-packages): none is written under PYTHONDONTWRITEBYTECODE
    compileall.compile_dir(HERE / "src", quiet=1)
    results = []
    for repo in args.repos:
        results.append(bench_repo(repo.resolve(), args.runs, sys.stderr,
                                  tuple(args.edits.split(","))))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
