"""impactlens.index."""
