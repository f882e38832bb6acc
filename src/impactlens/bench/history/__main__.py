"""`python -m impactlens.bench.history` = `impactlens bench history`."""

from impactlens.bench.history.command import main

raise SystemExit(main())
