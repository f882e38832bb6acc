"""impactlens.pdg."""
