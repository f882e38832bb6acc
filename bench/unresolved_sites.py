"""Cold index of a repository, then its unresolved call sites by reason (one JSON line).

    PYTHONPATH=src python bench/unresolved_sites.py REPO

Prints wall and CPU seconds of the index (CPU: this process and its workers), symbols,
edges, call edges, unresolved sites by reason and how many external sites name a builtin.
The index under ``REPO/.impactlens`` is removed first.
"""

from __future__ import annotations

import collections
import json
import resource
import shutil
import sys
import time
from pathlib import Path

from impactlens.api import Project
from impactlens.model import EdgeKind


def main(root: Path) -> dict[str, object]:
    shutil.rmtree(root / ".impactlens", ignore_errors=True)
    t = time.perf_counter()
    p = Project(str(root))
    s = p.index(full=True)
    wall = time.perf_counter() - t
    cpu = sum(getattr(resource.getrusage(who), f) for who in
              (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
    sites = p.store.unresolved_sites()
    by = collections.Counter(str(u.reason) for u in sites)
    builtin = sum(1 for u in sites if str(u.reason) == "external"
                  and any(n.startswith("<") for n in u.names))
    calls = len(p.store.all_edges(frozenset({EdgeKind.CALL})))
    p.close()
    return {"repo": root.name, "wall": round(wall, 2), "cpu": round(cpu, 2),
            "symbols": s.symbols, "edges": s.edges, "call_edges": calls,
            "unresolved": s.unresolved, "builtin_sites": builtin,
            "by_reason": dict(sorted(by.items()))}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
