"""§3.6 (f) hard-gate / soft-rank.

Membership is decided by hard edges only (the walk's relations and ``TESTS``);
a candidate admitted only by co-change is ranked but is not a member. Within
membership, the deterministic lexical coupling

    lex(e) = w_id·J(ids(e), ids(seed)) + w_str·J(strs(e), strs(seed))
             + w_imp·J(imports(e), imports(seed))

orders candidates (no embedding, no model).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from impactlens.impact.graphcache import cached
from impactlens.index.python.words import ident_tokens
from impactlens.model import IndexGraph, Node, RankedMember, TestImpact, WalkResult
from impactlens.settings import DEFAULT, Settings

_NONWORD = re.compile(r"[^0-9A-Za-z_]+")  # "::", "/", "[", spaces … become "." boundaries


def split_identifier(text: str) -> frozenset[str]:
    """``auth.LoginService.check_mfaCode`` → {auth, login, service, check, mfa, code}:
    split on ``.``, ``_`` and camel-case boundaries, lowercased — the same tokenizer
    the index uses for :attr:`Node.ids`, so seed and candidates compare alike."""
    return frozenset(ident_tokens(_NONWORD.sub(".", text)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class Tokens:
    ids: frozenset[str]
    strs: frozenset[str]
    imports: frozenset[str]


def tokens_of(node: Node | None, entity: str, signature: str = "") -> Tokens:
    """Lexical token sets of an entity: the index's ``ids``/``strs``/``imports``, or —
    for an entity the index does not know (say, a new definition) — tokens derived from
    its qualname and signature."""
    if node is None:
        ids = ident_tokens(_NONWORD.sub(".", entity), signature)
        return Tokens(frozenset(ids), frozenset(), frozenset())
    ids = node.ids or ident_tokens(_NONWORD.sub(".", node.qualname), node.signature)
    strs = frozenset(w.lower() for t in node.strs for w in t.split() if w)
    return Tokens(frozenset(ids), strs, frozenset(node.imports))


def lex(a: Tokens, seed: Tokens, settings: Settings = DEFAULT) -> float:
    return (settings.w_id * jaccard(a.ids, seed.ids)
            + settings.w_str * jaccard(a.strs, seed.strs)
            + settings.w_imp * jaccard(a.imports, seed.imports))


def rank(
    graph: IndexGraph,
    seed: str,
    seed_signature: str,
    result: WalkResult,
    tests: Sequence[TestImpact],
    co_change: Mapping[str, float],
    *,
    module_of: Callable[[str], str],
    exclude_files: Iterable[str] = (),
    settings: Settings = DEFAULT,
) -> list[RankedMember]:
    """Candidates of one atomic change: walk members and affected tests (hard), plus
    co-change files not otherwise reached (soft-only, ``hard=False``). Sorted by
    distance, then ``lex`` descending, then entity."""
    graph = cached(graph)
    graph.nodes([seed, *(m.entity for m in result.members), *(t.test_id for t in tests)])
    seed_tok = tokens_of(graph.node(seed), seed, seed_signature)
    out: dict[str, RankedMember] = {}
    hard_files: set[str] = set()

    lexical = "lexical" in settings.channels

    def score(entity: str) -> float:
        if not lexical:  # §7.6 ablation: the soft-rank channel is off
            return 0.0
        return round(lex(tokens_of(graph.node(entity), entity), seed_tok, settings), 4)

    dist = {m.entity: m.distance for m in result.members}
    for m in result.members:
        hard_files.add(m.file)
        out[m.entity] = RankedMember(
            entity=m.entity, file=m.file, distance=m.distance,
            admitting=tuple(r.value for r in m.admitting_relations), lex=score(m.entity),
            co_change_score=co_change.get(m.file, 0.0), test_confidence=0.0, hard=True,
        )
    for t in tests:
        node = graph.node(t.test_id)
        file = node.file if node is not None else t.test_id.split("::", 1)[0]
        hard_files.add(file)
        prev = out.get(t.test_id)
        if prev is not None:
            out[t.test_id] = RankedMember(
                prev.entity, prev.file, prev.distance, (*prev.admitting, "TESTS"), prev.lex,
                prev.co_change_score, max(prev.test_confidence, t.conf), True)
            continue
        out[t.test_id] = RankedMember(
            entity=t.test_id, file=file, distance=dist.get(t.via, 0) + 1,
            admitting=("TESTS",), lex=score(t.test_id),
            co_change_score=co_change.get(file, 0.0), test_confidence=t.conf, hard=True,
        )
    skip = set(exclude_files) | hard_files
    for file, s in sorted(co_change.items()):
        if file in skip:
            continue
        entity = _entity_of_file(file, module_of)
        if entity in out:
            continue
        out[entity] = RankedMember(
            entity=entity, file=file, distance=0, admitting=("co-change",), lex=score(entity),
            co_change_score=s, test_confidence=0.0, hard=False,
        )
    return sorted(out.values(), key=lambda r: (not r.hard, r.distance, -r.lex, r.entity))


def _entity_of_file(path: str, module_of: Callable[[str], str]) -> str:
    """A co-change candidate's entity: the module of a Python file, else the path."""
    if not path.endswith(".py"):
        return path
    try:
        return module_of(path) or path
    except Exception:  # a file the index never saw still names itself
        return path
