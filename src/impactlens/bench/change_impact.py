"""`impactlens bench change`: the change-impact corpus, scored per change type.

Each case (``bench/change-impact/cases/<case>/``) is replayed in a temporary git
repository: its planted history (``history.json``, if any) as commits, then the
``repo/`` tree in the working tree (or, for a case holding a ``base`` file instead,
the shared tree ``bench/change-impact/bases/<name>/`` it names); it is indexed,
``edit.diff`` is analyzed as a ``--diff`` change, and the result is compared with the hand-written
``expected.json``. See
``bench/change-impact/README.md`` for the rules the expectations follow.

Reported per category (micro-averaged over its cases): precision/recall of MUST,
of MUST ∪ MAY, of the validation set, and of MUST ∪ MAY at file level; plus the
§7.4 hidden-channel probe: ``unanalyzable_flag_rate``, ``co_change_recall_on_hidden``
``static_found_rate`` and ``reached_rate`` (flagged or found) over the cases' *hidden*
dependents (a definition, or a configuration file such as ``pyproject.toml``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from impactlens.bench.metrics import Score, fmt, micro, ratio, score_sets
from impactlens.index import git
from impactlens.index.discover import is_test_file

__all__ = ["CaseResult", "load_cases", "main", "run_case", "summarize"]

CATEGORIES = (
    "method-signature",
    "method-body-escaping",
    "method-body-local",
    "field",
    "class-decl",
    "constructor",
    "import",
    "add",
    "delete",
    "hidden-channel",
    "obligation",
)
HISTORY_START = 1672617600  # 2023-01-02T00:00:00Z
DAY = 86_400


def default_cases_dir() -> Path:
    """``bench/change-impact/cases`` of the source checkout (cwd first, then the package)."""
    here = Path.cwd() / "bench" / "change-impact" / "cases"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[3] / "bench" / "change-impact" / "cases"


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    expected: dict[str, Any]

    @property
    def category(self) -> str:
        return str(self.expected["category"])

    @property
    def tree(self) -> Path:
        """The case's working tree: its own ``repo/``, or the shared base its ``base`` names.

        Cases over the same starting repository share one copy under ``bases/`` (the
        expectations still live per case); a case that needs its own tree keeps ``repo/``.
        """
        own = self.path / "repo"
        if own.is_dir():
            return own
        name = (self.path / "base").read_text(encoding="utf-8").strip()
        return self.path.parent.parent / "bases" / name


def load_cases(root: Path, only: Sequence[str] = ()) -> list[Case]:
    cases = []
    for d in sorted(p for p in root.iterdir() if (p / "expected.json").is_file()):
        if only and d.name not in only:
            continue
        cases.append(Case(d.name, d, json.loads((d / "expected.json").read_text())))
    return cases


@dataclass
class CaseResult:
    name: str
    category: str
    must: Score
    mustmay: Score
    validate: Score
    files: Score
    predicted: dict[str, list[str]]
    expected: dict[str, list[str]]
    hidden: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "must": self.must.as_dict(),
            "must_may": self.mustmay.as_dict(),
            "validate": self.validate.as_dict(),
            "files": self.files.as_dict(),
            "predicted": self.predicted,
            "expected": self.expected,
            "hidden": self.hidden,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


# ------------------------------------------------------------------ replay
def _write_tree(dst: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        p = dst / rel
        if text is None:
            p.unlink(missing_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def build_repo(case: Case, dst: Path) -> None:
    """A real git repository at ``dst`` holding the case's tree in its working tree.

    Its history is exactly the planted one (``history.json``, one commit a day from
    2023-01-02) — none when the case has none; the case's tree itself is laid over
    the last commit without committing it, so no artificial all-files commit feeds the
    co-change channel (the index covers untracked files; ``edit.diff`` applies to the
    working tree).
    """
    dst.mkdir(parents=True)
    git.run(dst, "init", "-q")
    hist_file = case.path / "history.json"
    history = json.loads(hist_file.read_text()) if hist_file.is_file() else []
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
             "-c", "commit.gpgsign=false"]
    t = HISTORY_START
    for commit in history:
        _write_tree(dst, commit["files"])
        git.commit_all(dst, commit["message"], date=f"@{t} +0000", ident=ident)
        t += DAY
    shutil.copytree(case.tree, dst, dirs_exist_ok=True)


# ----------------------------------------------------------------- scoring
def _is_test(entity: str, file: str) -> bool:
    return "::" in entity or is_test_file(file)


def run_case(case: Case, workdir: Path) -> CaseResult:
    from impactlens.api import Project
    from impactlens.settings import DEFAULT

    exp = case.expected
    t0 = time.perf_counter()
    repo = workdir / case.name
    build_repo(case, repo)
    settings = DEFAULT.replace(index_workers=1)
    with Project(repo, settings) as project:
        project.index()
        diff = (case.path / "edit.diff").read_bytes()
        result = project.analyze(diff=diff, diff_source="edit.diff", task=exp.get("task", ""),
                                 refresh=False)
        store = project.store
        seeds = {c.entity for c in result.changes}
        hidden = set(exp.get("hidden", []))

        def keep(entries: Iterable[Any]) -> list[str]:
            return sorted({e.entity for e in entries
                           if not _is_test(e.entity, e.file) and e.entity not in seeds
                           and e.entity not in hidden})

        p_must = keep(result.triage.must_inspect)
        p_may = sorted(set(keep(result.triage.may_impact)) - set(p_must))
        p_val = sorted(set(result.validate))
        e_must, e_may = sorted(exp["must"]), sorted(exp["may"])

        def file_of(entity: str) -> str | None:
            node = store.node(entity)
            return node.file if node is not None else None

        entry_files = {e.entity: e.file for e in result.triage.entries()}
        p_files = {entry_files[e] for e in [*p_must, *p_may]}
        e_files = {f for f in (file_of(e) for e in [*e_must, *e_may]) if f}
        unresolved_expected = sorted(e for e in [*e_must, *e_may, *hidden] if file_of(e) is None)

        cochange_files = {g for _f, cands in result.co_change for g, _s in cands}
        probes = []
        for h in sorted(hidden):
            hfile = file_of(h)
            # a hidden entry is a definition, or a configuration file (``pyproject.toml``)
            flagged = any(u.scope == h or u.scope.startswith(h + ".") or u.file == h
                          for u in result.unanalyzable)
            static = any(e.entity == h for e in result.triage.entries()
                         if e.bucket.value != "low_risk")
            probes.append({
                "entity": h,
                "file": hfile,
                "flagged_unanalyzable": flagged,
                "co_change": hfile is not None and hfile in cochange_files,
                "static_found": static,
            })
        return CaseResult(
            name=case.name,
            category=case.category,
            must=score_sets(p_must, e_must),
            mustmay=score_sets([*p_must, *p_may], [*e_must, *e_may]),
            validate=score_sets(p_val, exp["validate"]),
            files=score_sets(p_files, e_files),
            predicted={"must": p_must, "may": p_may, "validate": p_val,
                       "changes": [f"{c.change_type.value} {c.entity}" for c in result.changes],
                       "unanalyzable": [f"{u.file}:{u.line} {u.scope} {u.reason}"
                                        for u in result.unanalyzable]},
            expected={"must": e_must, "may": e_may, "validate": sorted(exp["validate"]),
                      "hidden": sorted(hidden), "not_in_index": unresolved_expected},
            hidden=probes,
            seconds=time.perf_counter() - t0,
        )


def _failed(case: Case, error: str) -> CaseResult:
    exp = case.expected
    empty = Score(0, 0, 0)
    return CaseResult(
        name=case.name, category=case.category,
        must=score_sets([], exp["must"]), mustmay=score_sets([], [*exp["must"], *exp["may"]]),
        validate=score_sets([], exp["validate"]), files=empty, predicted={}, expected=exp,
        hidden=[{"entity": h, "flagged_unanalyzable": False, "co_change": False,
                 "static_found": False} for h in exp.get("hidden", [])],
        error=error,
    )


def _pr(s: Score) -> dict[str, Any]:
    return {"precision": s.precision, "recall": s.recall, "f1": s.f1,
            "tp": s.tp, "fp": s.fp, "fn": s.fn}


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    by_cat: dict[str, list[CaseResult]] = {}
    for r in results:
        by_cat.setdefault(r.category, []).append(r)
    order = [c for c in CATEGORIES if c in by_cat] + sorted(set(by_cat) - set(CATEGORIES))
    per = {}
    for cat in order:
        rs = by_cat[cat]
        per[cat] = {
            "cases": len(rs),
            "must": _pr(micro(r.must for r in rs)),
            "must_may": _pr(micro(r.mustmay for r in rs)),
            "validate": _pr(micro(r.validate for r in rs)),
            "files": _pr(micro(r.files for r in rs)),
        }
    probes = [p for r in results for p in r.hidden]
    hidden_cases = sum(1 for r in results if r.hidden)
    overall = {
        "cases": len(results),
        "must": _pr(micro(r.must for r in results)),
        "must_may": _pr(micro(r.mustmay for r in results)),
        "validate": _pr(micro(r.validate for r in results)),
        "files": _pr(micro(r.files for r in results)),
    }
    return {
        "per_category": per,
        "overall": overall,
        "hidden_probe": {
            "cases": hidden_cases,
            "hidden_entries": len(probes),
            "unanalyzable_flag_rate": ratio(sum(p["flagged_unanalyzable"] for p in probes),
                                            len(probes)),
            "co_change_recall_on_hidden": ratio(sum(p["co_change"] for p in probes), len(probes)),
            "static_found_rate": ratio(sum(p["static_found"] for p in probes), len(probes)),
            "reached_rate": ratio(sum(p["flagged_unanalyzable"] or p["static_found"]
                                      for p in probes), len(probes)),
        },
        "errors": {r.name: r.error for r in results if r.error},
    }


def _table(summary: dict[str, Any]) -> str:
    head = (f"{'category':<22}{'n':>3}  {'MUST P':>7}{'MUST R':>7}  {'M∪M P':>7}{'M∪M R':>7}"
            f"  {'val P':>7}{'val R':>7}  {'file P':>7}{'file R':>7}")
    lines = [head, "-" * len(head)]
    rows = [*summary["per_category"].items(), ("ALL", summary["overall"])]
    for cat, s in rows:
        lines.append(
            f"{cat:<22}{s['cases']:>3}  {fmt(s['must']['precision']):>7}"
            f"{fmt(s['must']['recall']):>7}  {fmt(s['must_may']['precision']):>7}"
            f"{fmt(s['must_may']['recall']):>7}  {fmt(s['validate']['precision']):>7}"
            f"{fmt(s['validate']['recall']):>7}  {fmt(s['files']['precision']):>7}"
            f"{fmt(s['files']['recall']):>7}"
        )
    hp = summary["hidden_probe"]
    lines.append("")
    lines.append(
        f"hidden-channel probe ({hp['cases']} cases, {hp['hidden_entries']} hidden dependents): "
        f"unanalyzable_flag_rate {fmt(hp['unanalyzable_flag_rate'])}, "
        f"co_change_recall_on_hidden {fmt(hp['co_change_recall_on_hidden'])}, "
        f"static_found_rate {fmt(hp['static_found_rate'])}, "
        f"reached_rate (flagged or found) {fmt(hp['reached_rate'])}"
    )
    if summary["errors"]:
        lines.append("")
        lines.extend(f"error: {k}: {v}" for k, v in sorted(summary["errors"].items()))
    return "\n".join(lines)


def run(cases: Sequence[Case], *, keep: Path | None = None) -> list[CaseResult]:
    from impactlens.errors import ImpactlensError

    work = keep or Path(tempfile.mkdtemp(prefix="impactlens-bench-change-"))
    results = []
    try:
        for case in cases:
            try:
                results.append(run_case(case, work))
            except ImpactlensError as exc:
                results.append(_failed(case, str(exc)))
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="impactlens-bench change", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=Path, default=None, help="corpus directory")
    ap.add_argument("--case", action="append", default=[], help="run only this case (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    ap.add_argument("--verbose", "-v", action="store_true", help="per-case misses and extras")
    ap.add_argument("--keep", type=Path, default=None, help="build the case repos here and keep")
    args = ap.parse_args(list(argv) if argv is not None else None)
    root = args.cases or default_cases_dir()
    if not root.is_dir():
        print(f"impactlens: error: {root}: no change-impact corpus here", file=sys.stderr)
        return 2
    cases = load_cases(root, args.case)
    if not cases:
        print(f"impactlens: error: {root}: no cases matched", file=sys.stderr)
        return 2
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = run(cases, keep=args.keep)
    summary = summarize(results)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    if args.json:
        print(json.dumps({"summary": summary, "cases": [r.to_json() for r in results]},
                         indent=2))
        return 0
    print(_table(summary))
    if args.verbose:
        for r in results:
            if r.error:
                print(f"\n{r.name}: ERROR {r.error}")
                continue
            miss = {k: sorted(set(r.expected[k]) - set(r.predicted.get(k, [])))
                    for k in ("must", "may", "validate")}
            extra = {k: sorted(set(r.predicted.get(k, [])) - set(r.expected[k]))
                     for k in ("must", "may", "validate")}
            if any(miss.values()) or any(extra.values()):
                print(f"\n{r.name} [{r.category}] changes: {r.predicted.get('changes')}")
                for k in ("must", "may", "validate"):
                    if miss[k]:
                        print(f"  missing {k}: {miss[k]}")
                    if extra[k]:
                        print(f"  extra   {k}: {extra[k]}")
    print(f"\n{len(results)} cases in {summary['seconds']}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
