"""The change-impact corpus is well formed, and its harness scores real runs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from impactlens.bench import change_impact
from impactlens.bench.metrics import Score
from impactlens.change.inputs import from_diff

CASES = Path(__file__).resolve().parents[2] / "bench" / "change-impact" / "cases"
TYPES = {"method-signature", "method-body-escaping", "method-body-local", "field", "class-decl",
         "constructor", "import", "add", "delete"}


def all_cases():
    return change_impact.load_cases(CASES)


def test_corpus_counts():
    cats = Counter(c.category for c in all_cases())
    assert set(cats) == TYPES | {"hidden-channel", "obligation"}
    assert sum(n for c, n in cats.items() if c in TYPES) >= 30
    assert cats["hidden-channel"] >= 17 and cats["obligation"] >= 4
    # the registry-style channels carry a planted history (co-change is what finds them)
    planted = [c for c in all_cases() if (c.path / "history.json").is_file()]
    assert sum(c.category == "hidden-channel" for c in planted) >= 6


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.name)
def test_case_is_well_formed(case, tmp_path):
    exp = case.expected
    assert {"category", "change_type", "must", "may", "validate", "hidden"} <= set(exp)
    assert not set(exp["must"]) & set(exp["may"])
    assert all("::" in t for t in exp["validate"])
    assert all("::" not in e and not e.startswith("tests.") for e in exp["must"] + exp["may"])
    if exp["category"] == "hidden-channel":
        assert exp["hidden"] or exp["may"]  # what a string channel reaches
    repo = tmp_path / "r"
    change_impact.build_repo(case, repo)
    pc = from_diff(repo, (case.path / "edit.diff").read_bytes())
    assert pc.files


def test_harness_scores_a_few_cases(tmp_path, capsys):
    names = ["sig-required-param", "body-local-rename", "hidden-getattr-prefix"]
    rc = change_impact.main(["--cases", str(CASES), "--json",
                             *[a for n in names for a in ("--case", n)]])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    summary = doc["summary"]
    assert set(summary["per_category"]) == {"method-signature", "method-body-local",
                                           "hidden-channel"}
    probe = summary["hidden_probe"]
    assert probe["cases"] == 1 and probe["hidden_entries"] == 1
    assert probe["co_change_recall_on_hidden"] == 1.0  # the planted history is recalled
    sig = next(c for c in doc["cases"] if c["name"] == "sig-required-param")
    assert "shop.cart.Cart.total" in sig["predicted"]["must"]
    assert sig["must"]["recall"] == 1.0


def test_summary_vacuous_categories_are_null():
    r = change_impact.CaseResult(
        name="x", category="add", must=Score(0, 0, 0), mustmay=Score(0, 0, 0),
        validate=Score(0, 0, 0), files=Score(0, 0, 0), predicted={}, expected={},
    )
    s = change_impact.summarize([r])
    assert s["per_category"]["add"]["must"]["precision"] is None
    assert s["hidden_probe"]["unanalyzable_flag_rate"] is None
