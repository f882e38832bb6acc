"""One ranked answer per analysis, cut to a budget and rendered for each reader.

:func:`build_answer` turns an :class:`~impactlens.model.ImpactResult` into an
:class:`Answer` (code to edit or read in ranked buckets, the tests to run as one
section, batches of code only, a one-line risk summary). :func:`fit` picks how many
items of each section a surface shows within its budget; every renderer
(terminal, markdown, JSON, MCP) takes that cut, so no renderer truncates on its own
and what is left out is counted in ``omitted``.
"""

from impactlens.answer.build import Answer, TestFile, build_answer
from impactlens.answer.fit import Cut, fit, full_cut
from impactlens.answer.json_out import (
    answer_json,
    budgeted_json,
    impact_json_text,
    json_text,
    page,
)

__all__ = ["Answer", "Cut", "TestFile", "answer_json", "budgeted_json", "build_answer", "fit",
           "full_cut", "impact_json_text", "json_text", "page"]
