"""Statement-level program dependence: CFG, post-dominators, control dependence,
reaching definitions, slicing, inter-procedural descent, and the §3.2 escape gate."""

from impactlens.pdg.escape import EscapeVerdict, body_change_escapes

__all__ = ["EscapeVerdict", "body_change_escapes"]
