"""The model-facing text: built deterministically from ``impact.json``, signatures only.

The user message holds, in the spec's order (§4):

1. ``CHANGE PLAN`` — one line derived from the atomic changes;
2. ``IMPACT DAG`` — JSON ``{"nodes": [{entity, kind, signature}], "edges": [{from, to, cause}],
   "batches": [{batch_id, members}]}``;
3. ``MUST-INSPECT SIGNATURES`` — one line per MUST-INSPECT node: ``entity: signature``.

At most ``Settings.llm_max_entities`` entities reach the map, chosen in priority order
(seed entities, MUST-INSPECT, batch members in batch order, remaining DAG nodes); every
signature, cause and summary is one line of at most ``Settings.llm_max_summary_chars``.
Nothing here reads a file: the prompt can only contain what ``impact.json`` holds, which
is signatures, never bodies (the body guard double-checks that).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from impactlens.settings import DEFAULT, Settings

SYSTEM_PROMPT = (
    "You plan the next edits of a code change. You are given the change plan, an impact "
    "map (a DAG of affected code entities with one-line signatures and cause-labelled "
    "edges, plus dependency-consistent batches) and the signatures of the entities that "
    "must be inspected. You see no code bodies and must not ask for any. Decide which "
    "entities to edit next, most urgent first, choosing only entity ids that appear in "
    "the map. Reply with exactly one JSON object and nothing else, of the form "
    '{"next_edits": [{"entity": "<entity id from the map>", "reason": "<one line>"}]}.'
)

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Prompt:
    """The messages sent and the entity ids the model may name (the map)."""

    messages: list[dict[str, str]]
    entities: frozenset[str]


def clip(text: Any, limit: int) -> str:
    """One line, whitespace collapsed, at most ``limit`` characters (``…`` marks a cut)."""
    s = _WS.sub(" ", str(text if text is not None else "")).strip()
    if len(s) <= limit:
        return s
    return s[: max(limit - 1, 0)] + "…"


def _sig(text: Any, limit: int) -> str:
    s = clip(text, limit + 1)
    return clip(s[:-1] if s.endswith(":") else s, limit)


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, Mapping)]


def _section(impact: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = impact.get(key)
    return value if isinstance(value, Mapping) else {}


def _entity(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def atomic_changes(impact: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``impact["changes"]``, or the single ``seed`` when no change list is present."""
    changes = _dicts(impact.get("changes"))
    if not changes:
        seed = impact.get("seed")
        if isinstance(seed, Mapping):
            changes = [seed]
    return changes


_HEADER = re.compile(r"(@|(async\s+)?def\s|class\s|import\s|from\s)")


def _header_sig(text: Any, limit: int) -> str:
    """A def/class header or an import line; anything else (a field's assignment, which may
    be a statement inside a body) is left out of the plan."""
    sig = _sig(text, limit)
    return sig if _HEADER.match(sig) else ""


def describe_change(change: Mapping[str, Any], settings: Settings = DEFAULT) -> str:
    """One atomic change as one line, e.g. ``method-signature change to a.b.f: def f(x) → …``.

    Only headers (``def``/``class``/decorators) and import lines are quoted; a change to
    anything else is named by entity and file.
    """
    limit = settings.llm_max_summary_chars
    ctype = clip(change.get("change_type") or "change", 40)
    entity = clip(change.get("entity") or "?", settings.max_entity_chars)
    before = _header_sig(change.get("before_sig"), limit)
    after = _header_sig(change.get("after_sig"), limit)
    if ctype == "add":
        text = f"add {entity}" + (f": {after}" if after else "")
    elif ctype == "delete":
        text = f"delete {entity}" + (f": {before}" if before else "")
    elif before and after and before != after:
        text = f"{ctype} change to {entity}: {before} → {after}"
    elif before or after:
        text = f"{ctype} change to {entity}: {after or before}"
    else:
        where = clip(change.get("file") or "", 120)
        text = f"{ctype} change to {entity}" + (f" in {where}" if where else "")
    return clip(text, limit)


def change_plan(impact: Mapping[str, Any], settings: Settings = DEFAULT) -> str:
    """The one-line change plan: every atomic change described, joined by ``; ``."""
    changes = atomic_changes(impact)
    cap = settings.llm_max_entities
    parts = [describe_change(c, settings) for c in changes[:cap]]
    if len(changes) > cap:
        parts.append(f"(+{len(changes) - cap} more changes)")
    return "; ".join(parts) or "(no atomic change recorded)"


def batch_order(impact: Mapping[str, Any]) -> list[str]:
    """The deterministic fallback: batch members, batch by batch, first occurrence kept."""
    order: list[str] = []
    seen: set[str] = set()
    for batch in _dicts(_section(impact, "obligations").get("change")):
        members = batch.get("members")
        for m in members if isinstance(members, list) else []:
            if (e := _entity(m)) and e not in seen:
                seen.add(e)
                order.append(e)
    return order


def _select(impact: Mapping[str, Any], cap: int) -> list[str]:
    dag = _section(impact, "dag")
    triage = _section(impact, "triage")
    candidates: Iterable[Any] = [
        *(c.get("entity") for c in atomic_changes(impact)),
        *(m.get("entity") for m in _dicts(triage.get("must_inspect"))),
        *batch_order(impact),
        *(n.get("entity") for n in _dicts(dag.get("nodes"))),
    ]
    chosen: list[str] = []
    seen: set[str] = set()
    for c in candidates:
        if (e := _entity(c)) and e not in seen:
            seen.add(e)
            chosen.append(e)
            if len(chosen) == cap:
                break
    return chosen


def assemble(impact: Mapping[str, Any], settings: Settings = DEFAULT) -> Prompt:
    """Build the messages and the entity map (deterministic: same impact → same text)."""
    if not isinstance(impact, Mapping):
        impact = {}
    limit = settings.llm_max_summary_chars
    selected = _select(impact, settings.llm_max_entities)
    chosen = set(selected)
    dag = _section(impact, "dag")

    nodes: list[dict[str, str]] = []
    signatures: dict[str, str] = {}
    for n in _dicts(dag.get("nodes")):
        e = _entity(n.get("entity"))
        if e is None or e not in chosen or e in signatures:
            continue
        sig = _sig(n.get("signature"), limit)
        signatures[e] = sig
        nodes.append({"entity": e, "kind": clip(n.get("kind") or "", 20), "signature": sig})

    edges: list[dict[str, str]] = []
    for edge in _dicts(dag.get("edges")):
        src, dst = _entity(edge.get("from")), _entity(edge.get("to"))
        if src in chosen and dst in chosen:
            edges.append({"from": src, "to": dst, "cause": clip(edge.get("cause"), limit)})
        if len(edges) >= settings.max_dag_edges:
            break

    batches: list[dict[str, Any]] = []
    for batch in _dicts(_section(impact, "obligations").get("change")):
        raw = batch.get("members")
        members = [m for m in (raw if isinstance(raw, list) else []) if m in chosen]
        if members:
            batches.append({"batch_id": batch.get("batch_id"), "members": members})

    summaries: list[str] = []
    listed: set[str] = set()
    for m in _dicts(_section(impact, "triage").get("must_inspect")):
        e = _entity(m.get("entity"))
        if e is None or e not in chosen or e in listed:
            continue
        listed.add(e)
        sig = signatures.get(e) or "(signature not in the map)"
        summaries.append(clip(f"{e}: {sig}", limit))

    dag_json = json.dumps(
        {"nodes": nodes, "edges": edges, "batches": batches},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    user = "\n".join(
        [
            f"CHANGE PLAN: {change_plan(impact, settings)}",
            "",
            "IMPACT DAG:",
            dag_json,
            "",
            "MUST-INSPECT SIGNATURES:",
            *(summaries or ["(none)"]),
            "",
            'Answer with {"next_edits": [{"entity": ..., "reason": ...}]} only.',
        ]
    )
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]
    return Prompt(messages=messages, entities=frozenset(selected))


def build_prompt(impact: Mapping[str, Any], settings: Settings = DEFAULT) -> list[dict[str, str]]:
    """The chat messages for the next-edit decision (system + user)."""
    return assemble(impact, settings).messages


def prompt_text(messages: Iterable[Mapping[str, Any]]) -> str:
    """All message contents, as the body guard sees them."""
    return "\n".join(str(m.get("content", "")) for m in messages)
