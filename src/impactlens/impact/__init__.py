"""impactlens.impact — the change-impact stage (build contract §3 (a)–(i)).

One module per stage, each a pure function over the frozen records of
:mod:`impactlens.model`:

- :mod:`.classify`  (a) AST diff → atomic changes (precedence ladder, ≤ 64, no model)
- :mod:`.relations` (b) the CodePlan relation table + the method-body escape gate
- :mod:`.walk`      (c) reverse BFS over the selected relations only (≤ 3 hops, ≤ 200)
- :mod:`.cochange`  (d) git co-change recall (L = 1, pre-date commits only)
- :mod:`.testmap`   (e) TDAD test-impact map → ``test_map.txt``
- :mod:`.rank`      (f) hard-gate membership, lexical soft-rank
- :mod:`.triage`    (g) MUST-INSPECT / MAY-IMPACT / LOW-RISK with a real binding check
- :mod:`.batch`     (h) dependency-consistent batches, seed first
- :mod:`.dag`       (i) the cause-labelled impact DAG (token-capped)
- :mod:`.hidden`    §7.4 un-analyzable sites that may reach a change (fragments, registries)
- :mod:`.graphcache` a per-run memo over the graph with batched store reads
- :mod:`.pipeline`  ``run_pipeline``: all of the above for one proposed edit
"""
