"""`impactlens bench obligations`: how often the edit's own obligations are right.

For each case `bench history` mines (a real commit changing 2–8 source files), every
changed file that exists at the parent is applied whole, alone, at the parent, and the
names it needs that another definition lacks (an import of a missing name, an attribute
or method missing on a module or class) are listed, the package ``__init__.py`` files
that re-export its siblings and not a public name it adds, and the other overrides of
what a changed method overrides. A flag is right when
the commit changed the flagged file too. Owners in the applied file itself are not counted (the
analysis leaves them out: the edit is changing that file).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from impactlens.bench import at_least
from impactlens.bench.history import Case, mine_cases, worktree
from impactlens.index import git as gitcmd
from impactlens.model import FileChange
from impactlens.settings import DEFAULT


def case_flags(repo: Path, case: Case) -> list[dict[str, Any]]:
    """The flags of each changed file of ``case``, applied alone at the parent."""
    from impactlens.api import Project
    from impactlens.change.edit_uses import edit_uses
    from impactlens.impact.classify import classify
    from impactlens.impact.siblings import sibling_entries

    out: list[dict[str, Any]] = []
    changed = {*case.source_files, *case.added_files}
    with worktree(repo, case.parent) as wt, Project(wt) as proj:
        proj.index()
        for path in case.source_files:
            if path not in case.before:
                continue
            blob = gitcmd.show_blob(repo, case.sha, path)
            if blob is None:
                continue
            after = blob.decode("utf-8", "surrogateescape")
            uses = edit_uses(proj.store, [FileChange(path, case.before[path], after)],
                             proj.module_of)
            for m in uses.missing:
                node = proj.store.node(m.owner)
                if node is None or node.file == path:
                    continue
                out.append({"sha": case.sha, "file": path, "line": m.line, "owner": m.owner,
                            "name": m.name, "kind": "member" if m.member else "import",
                            "owner_file": node.file, "right": node.file in changed})
            out += [{"sha": case.sha, "file": path, "line": 0, "owner": u.package,
                     "name": u.name, "kind": "reexport", "owner_file": u.init_file,
                     "right": u.init_file in changed} for u in uses.unexported]
            atomic = classify(case.before[path], after, path, proj.module_of(path))
            out += [{"sha": case.sha, "file": path, "line": 0, "owner": e.entity,
                     "name": e.entity.rpartition(".")[2], "kind": "sibling",
                     "owner_file": e.file, "right": e.file in changed}
                    for e in sibling_entries(proj.store, atomic, [path])]
    return out


KINDS = ("import", "member", "reexport", "sibling")  # MUST, MUST, MAY, MAY


def summarize(flags: Sequence[dict[str, Any]], cases: int) -> dict[str, Any]:
    def part(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        right = sum(1 for r in rows if r["right"])
        return {"flags": len(rows), "right": right,
                "precision": round(right / len(rows), 3) if rows else None,
                "cases": len({r["sha"] for r in rows})}

    return {"cases": cases, "all": part(flags),
            **{f"{kind}s": part([r for r in flags if r["kind"] == kind])
               for kind in KINDS}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="impactlens bench obligations",
        description="Precision of the names-an-edit-needs obligations on real commits: "
                    "each changed file applied alone at the parent; a flag is right when "
                    "the commit changed the flagged file too.")
    ap.add_argument("repo", type=Path, help="a git work tree with history (never modified)")
    ap.add_argument("--limit", type=at_least(1), default=60, help="newest N cases (default 60)")
    ap.add_argument("--cap", type=at_least(2), default=8,
                    help="max changed source files per case (a case has at least 2)")
    ap.add_argument("--json", action="store_true", help="print every flag as JSON")
    args = ap.parse_args(list(argv) if argv is not None else None)
    try:
        top = gitcmd.toplevel(args.repo.resolve())
    except Exception as exc:  # one line, no traceback
        print(f"impactlens: error: {exc}", file=sys.stderr)
        return 2
    cases, _info = mine_cases(top, limit=args.limit, cap=args.cap, settings=DEFAULT)
    flags: list[dict[str, Any]] = []
    for case in cases:
        try:
            flags += case_flags(top, case)
        except Exception as exc:  # a broken case is reported, the run goes on
            print(f"case {case.sha[:10]} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    summary = summarize(flags, len(cases))
    if args.json:
        print(json.dumps({"repo": top.name, "summary": summary, "flags": flags}, indent=1))
        return 0
    print(f"# {top.name}: {len(cases)} cases")
    for kind in ("all", *(f"{k}s" for k in KINDS)):
        s = summary[kind]
        print(f"{kind:<8} {s['flags']:>4} flags in {s['cases']:>3} cases, {s['right']:>4} right"
              f" (precision {s['precision'] if s['precision'] is not None else 'n/a'})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
