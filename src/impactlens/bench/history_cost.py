"""What history mining costs (`impactlens-bench perf REPO`, "history"; alone with
``--history-only``): a cold mining of the repository's history into an empty store, in a
fresh child process per run, with the horizon ``--history-horizon`` (default: the
setting's; 0 = all), and the read of the mined history that every ``analyze`` does for
co-change. Wall time, this process's CPU and git's CPU (the child processes) apart;
medians over the runs; and the size on disk of the store holding only that history.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["history_mining"]

_CHILD = """
import json, resource, sys, tempfile, time
from pathlib import Path
from impactlens.index.history import load_history, update_history
from impactlens.index.store import Store
from impactlens.settings import DEFAULT

def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime

settings = DEFAULT.replace(history_max_commits=int(sys.argv[2]))
with tempfile.TemporaryDirectory(prefix="impactlens-hist-cost-") as tmp:
    store = Store.open(Path(tmp) / "h.db", create=True)
    own, git, t = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    s = update_history(store, Path(sys.argv[1]), settings)
    wall = time.perf_counter() - t
    own, git = cpu(resource.RUSAGE_SELF) - own, cpu(resource.RUSAGE_CHILDREN) - git
    t = time.perf_counter()
    n = len(load_history(store))
    load = time.perf_counter() - t
    rows = store.history_files()
    store.close()
    db = sum(p.stat().st_size for p in Path(tmp).glob("h.db*"))
print(json.dumps({"seconds": wall, "cpu_impactlens": own, "cpu_git": git, "commits": s.commits,
                  "loaded": n, "file_rows": len(rows), "load_seconds": load, "note": s.note,
                  "db_mb": db / 1e6}))
"""


def history_mining(root: Path, runs: int, horizon: int | None = None) -> dict[str, Any]:
    """Median cold-mining wall and CPU seconds over ``runs`` child processes."""
    from impactlens.settings import DEFAULT

    h = DEFAULT.history_max_commits if horizon is None else horizon
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(h)],
                             capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))

    def med(key: str) -> float:
        return round(statistics.median(r[key] for r in results), 3)

    last = results[-1]
    return {"horizon": h, "commits": last["commits"], "file_rows": last["file_rows"],
            "seconds": med("seconds"), "cpu_impactlens": med("cpu_impactlens"),
            "cpu_git": med("cpu_git"), "load_seconds": med("load_seconds"),
            "db_mb": round(last["db_mb"], 1),
            "seconds_runs": [round(r["seconds"], 2) for r in results], "note": last["note"]}


def print_history(h: dict[str, Any]) -> None:
    print(f"history      {h['commits']} commits (horizon {h['horizon'] or 'all'}) mined in "
          f"median {h['seconds']:.2f}s wall, CPU {h['cpu_impactlens']:.2f}s impactlens + "
          f"{h['cpu_git']:.2f}s git (runs {h['seconds_runs']}); read back for co-change in "
          f"{h['load_seconds']:.2f}s ({h['file_rows']} file rows, {h['db_mb']:.1f} MB on disk)")


def synthetic_history(path: Path, commits: int, files: int = 2_000, seed: int = 7) -> Path:
    """A git repository at ``path`` with ``commits`` linear commits written by ``git
    fast-import`` (seeded: the same arguments give the same shas): each changes 1–6 files of
    ``files`` (spread over 40 packages, partners mostly from one package), every 500th
    renames one. For the size of history no public repository here has."""
    import random

    rng = random.Random(seed)
    names = [f"pkg{i % 40}/mod{i}.py" for i in range(files)]
    stream = []
    for n in range(commits):
        base = rng.randrange(files)
        lines = [f"commit refs/heads/main\ncommitter Bench <b@e> {1_500_000_000 + n * 600} "
                 f"+0000\ndata <<EOM\nchange {n} of module {base}\nEOM\n"]
        if n % 500 == 499:
            new = names[base].replace(".py", f"_r{n}.py")
            lines.append(f"R {names[base]} {new}\n")
            names[base] = new
        else:
            group = [base] + [(base // 40 * 40 + rng.randrange(40)) % files
                              for _ in range(rng.randrange(6))]
            for i in dict.fromkeys(group):
                body = f"VALUE = {n}\n" + "".join(f"LINE_{k} = {k}\n" for k in range(i % 30))
                lines.append(f"M 100644 inline {names[i]}\ndata {len(body)}\n{body}\n")
        stream.append("".join(lines))
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, check=True,
                   input="".join(stream).encode())
    return path
