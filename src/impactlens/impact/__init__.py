"""impactlens.impact."""
