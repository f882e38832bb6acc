"""Random edit sequences (hypothesis): after each, an incremental `index` equals a clean
full one, for Python and for TypeScript (``tests/edit_sequences.py``)."""

from __future__ import annotations

import pytest
from edit_sequences import (
    EDITS,
    SHOP,
    TS_BASE,
    TS_EDITS,
    TS_NAMED_EDITS,
    incremental_equals_full,
)


def test_incremental_equals_full_on_edit_sequences(indexed):
    incremental_equals_full(indexed, SHOP, EDITS, 5)


def test_incremental_equals_full_on_typescript_edit_sequences(indexed):
    pytest.importorskip("tree_sitter_typescript")
    incremental_equals_full(indexed, TS_BASE, TS_EDITS + TS_NAMED_EDITS, 5)
