"""impactlens.serve."""
