"""A small shop repository shared by the serve tests (MCP server, pytest plugin, report).

``price`` gets a new required parameter in :data:`PRICE_CHANGE`: its caller
``Order.total`` no longer binds (MUST-INSPECT), ``summary`` is reached at distance 2,
and ``tests/test_pricing.py`` / ``test_orders.py`` / ``test_report.py`` reach the change;
``tests/test_misc.py`` does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHOP: dict[str, str] = {
    "pyproject.toml": (
        '[project]\nname = "shop"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
    ),
    ".gitignore": "__pycache__/\n.impactlens/\n",
    "src/shop/__init__.py": "",
    "src/shop/pricing.py": (
        "def price(amount, rate):\n"
        '    """Gross price."""\n'
        "    gross = amount * (1 + rate)\n"
        "    return round(gross, 2)\n"
    ),
    "src/shop/orders.py": (
        "from shop.pricing import price\n\n\n"
        "class Order:\n"
        "    def __init__(self, amount):\n"
        "        self.amount = amount\n\n"
        "    def total(self):\n"
        "        return price(self.amount, 0.2)\n"
    ),
    "src/shop/report.py": (
        "from shop.orders import Order\n\n\n"
        "def summary(amounts):\n"
        "    return sum(Order(a).total() for a in amounts)\n"
    ),
    "src/shop/plugins.py": (
        "HANDLERS = {}\n\n\n"
        "def run(kind, value):\n"
        "    return HANDLERS[kind](value)\n"
    ),
    "src/shop/text.py": (
        "def shout(s):\n"
        "    return s.upper()\n"
    ),
    "tests/test_pricing.py": (
        "from shop.pricing import price\n\n\n"
        "def test_price():\n"
        "    assert price(10, 0.5) == 15\n"
    ),
    "tests/test_orders.py": (
        "from shop.orders import Order\n\n\n"
        "def test_total():\n"
        "    assert Order(10).total() == 12\n"
    ),
    "tests/test_report.py": (
        "from shop.report import summary\n\n\n"
        "def test_summary():\n"
        "    assert summary([10, 10]) == 24\n"
    ),
    "tests/test_misc.py": (
        "from shop.text import shout\n\n\n"
        "def test_shout():\n"
        "    assert shout('a') == 'A'\n\n\n"
        "def test_plain():\n"
        "    assert 1 + 1 == 2\n"
    ),
}

# A signature change: a new required parameter (callers no longer bind).
PRICING_AFTER = (
    "def price(amount, rate, currency):\n"
    '    """Gross price."""\n'
    "    gross = amount * (1 + rate)\n"
    "    return round(gross, 2)\n"
)
PRICE_DIFF = """\
--- a/src/shop/pricing.py
+++ b/src/shop/pricing.py
@@ -1,4 +1,4 @@
-def price(amount, rate):
+def price(amount, rate, currency):
     \"\"\"Gross price.\"\"\"
     gross = amount * (1 + rate)
     return round(gross, 2)
"""
# A body-only edit of a function no test outside test_misc reaches.
TEXT_AFTER = "def shout(s):\n    return s.upper() + '!'\n"


@pytest.fixture
def shop(make_repo) -> Path:
    """The shop repository, committed, clean working tree."""
    return make_repo(SHOP, name="shop")
