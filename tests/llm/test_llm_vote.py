"""The --samples vote: majority membership, Borda order, deterministic ties."""

from __future__ import annotations

from impactlens.llm import majority_order


def _s(*entities: str) -> list[dict[str, str]]:
    return [{"entity": e, "reason": f"because {e}"} for e in entities]


def _ids(result: list[dict[str, str]]) -> list[str]:
    return [r["entity"] for r in result]


def test_single_sample_is_kept_as_is() -> None:
    assert _ids(majority_order([_s("a", "b", "c")])) == ["a", "b", "c"]


def test_borda_order_over_majority_members() -> None:
    samples = [_s("a", "b", "c"), _s("b", "a", "c"), _s("b", "c", "a", "z")]
    # points: b=2+3+4=9, a=3+2+2=7, c=1+1+3=5; z named once of 3 → not a majority
    assert _ids(majority_order(samples)) == ["b", "a", "c"]


def test_minority_entities_are_dropped() -> None:
    samples = [_s("a", "x"), _s("a", "y"), _s("a", "z")]
    assert _ids(majority_order(samples)) == ["a"]


def test_half_counts_as_majority_with_even_k() -> None:
    assert _ids(majority_order([_s("a"), _s("b")], ["b", "a"])) == ["b", "a"]


def test_ties_break_by_count_then_batch_order_then_id() -> None:
    # a and b tie on points and count; the batch order puts b first
    samples = [_s("a", "b"), _s("b", "a")]
    assert _ids(majority_order(samples, ["b", "a"])) == ["b", "a"]
    assert _ids(majority_order(samples, ["a", "b"])) == ["a", "b"]
    # neither in the batch order: by entity id
    assert _ids(majority_order(samples, [])) == ["a", "b"]
    # in the batch order beats outside it
    assert _ids(majority_order([_s("q", "p"), _s("p", "q")], ["q"])) == ["q", "p"]


def test_reason_comes_from_the_first_sample_naming_it() -> None:
    samples = [
        [{"entity": "a", "reason": "first"}],
        [{"entity": "a", "reason": "second"}],
    ]
    assert majority_order(samples) == [{"entity": "a", "reason": "first"}]


def test_no_samples() -> None:
    assert majority_order([]) == []
