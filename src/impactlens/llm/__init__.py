"""impactlens.llm."""
