"""impactlens.change."""
