"""The one next-edit decision (§4): a model reads the impact map and names the next edits.

Optional — everything works without it. Signatures only, never bodies; one call; any
failure falls back to the deterministic batch order.

>>> from impactlens.llm import LLMConfig, next_edits
>>> config = LLMConfig.from_env()          # IMPACTLENS_LLM_BASE_URL / _MODEL / _API_KEY
>>> next_edits(impact, config, body_guard=make_body_guard(sources))
"""

from impactlens.llm.config import LLMConfig
from impactlens.llm.guard import LLMGuardError, make_body_guard
from impactlens.llm.nextedit import next_edits, parse_reply, print_prompt, request_body
from impactlens.llm.prompt import batch_order, build_prompt, change_plan
from impactlens.llm.vote import majority_order

__all__ = [
    "LLMConfig",
    "LLMGuardError",
    "batch_order",
    "build_prompt",
    "change_plan",
    "majority_order",
    "make_body_guard",
    "next_edits",
    "parse_reply",
    "print_prompt",
    "request_body",
]
