"""impactlens.bench."""
