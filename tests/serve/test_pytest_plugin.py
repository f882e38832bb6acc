"""`pytest --impact` (the pytest11 plugin) on real git repositories built by pytester."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import SHOP

pytest_plugins = ["pytester"]

# A signature change that keeps every caller binding (a defaulted parameter): all tests
# still pass, and the ones reaching `price` are the validation set.
PRICING_COMPATIBLE = (
    "def price(amount, rate, currency='EUR'):\n"
    '    """Gross price."""\n'
    "    gross = amount * (1 + rate)\n"
    "    return round(gross, 2)\n"
)
REACHING_PRICE = {"tests/test_pricing.py::test_price", "tests/test_orders.py::test_total",
                  "tests/test_report.py::test_summary"}
ALL = 5


@pytest.fixture
def repo(pytester: pytest.Pytester, git: Callable[..., str],
         git_commit: Callable[..., str]) -> Path:
    root = pytester.path
    for rel, text in SHOP.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Author")
    git(root, "config", "user.email", "author@example.invalid")
    git_commit(root, None, "initial")
    return root


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in a subprocess (the analysis imports C extensions that an in-process run
    could not unload between runs), the plugin loaded through its entry point."""
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-rA", *args, timeout=120)


def passed_ids(result: pytest.RunResult) -> set[str]:
    return {line.split()[1] for line in result.outlines if line.startswith("PASSED ")}


def test_without_impact_the_plugin_does_nothing(repo: Path, pytester: pytest.Pytester) -> None:
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester)
    result.assert_outcomes(passed=ALL)
    assert "impactlens:" not in result.stdout.str()
    assert not (repo / ".impactlens").exists()  # no analysis, no index


def test_impact_runs_only_the_validation_set(repo: Path, pytester: pytest.Pytester) -> None:
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester, "--impact")
    result.assert_outcomes(passed=len(REACHING_PRICE))  # test_misc.py is not even collected
    assert passed_ids(result) == REACHING_PRICE
    result.stdout.fnmatch_lines([
        "collected 3 items",
        f"impactlens: selected {len(REACHING_PRICE)}/{ALL} tests (1 unaffected test file not "
        "collected): the working tree changes src/shop/pricing.py; 3 in the validation set "
        "(TEST_MIN 0.45)"])


def test_no_change_runs_nothing_and_says_so(repo: Path, pytester: pytest.Pytester) -> None:
    result = run(pytester, "--impact")
    result.assert_outcomes()
    result.stdout.fnmatch_lines(["impactlens: selected 0 tests (4 unaffected test files not "
                                 "collected): no Python change in the working tree: nothing "
                                 "to test"])
    assert result.ret == pytest.ExitCode.OK


def test_changed_and_new_test_files_are_never_deselected(
        repo: Path, pytester: pytest.Pytester) -> None:
    misc = repo / "tests/test_misc.py"
    misc.write_text(misc.read_text() + "\n\ndef test_more():\n    assert True\n")
    (repo / "tests/test_new.py").write_text("def test_brand_new():\n    assert True\n")
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester, "--impact")
    kept_misc = {"tests/test_misc.py::test_shout", "tests/test_misc.py::test_plain",
                 "tests/test_misc.py::test_more", "tests/test_new.py::test_brand_new"}
    assert passed_ids(result) == REACHING_PRICE | kept_misc
    result.assert_outcomes(passed=len(REACHING_PRICE | kept_misc))
    assert "4 in changed test files" in result.stdout.str()


def test_impact_rev_and_min_conf(repo: Path, pytester: pytest.Pytester,
                                 git_commit: Callable[..., str]) -> None:
    # a test module that only imports the changed module: confidence 0.45 (IMPORTS)
    git_commit(repo, {"tests/test_module.py": (
        "from shop import pricing\n\n\ndef test_module_name():\n"
        "    assert pricing.__name__ == 'shop.pricing'\n")}, "test the module")
    git_commit(repo, {"src/shop/pricing.py": PRICING_COMPATIBLE}, "price: currency")
    importer = "tests/test_module.py::test_module_name"
    result = run(pytester, "--impact-rev", "HEAD")
    assert passed_ids(result) == REACHING_PRICE | {importer}
    result.stdout.fnmatch_lines(["impactlens: selected 4/6 tests (1 unaffected test file not "
                                 "collected): revision HEAD changes src/shop/pricing.py; 4 in "
                                 "the validation set *"])

    strict = run(pytester, "--impact-rev", "HEAD", "--impact-min-conf", "0.5")
    assert passed_ids(strict) == REACHING_PRICE  # the import-only test is below TEST_MIN
    strict.stdout.fnmatch_lines(["impactlens: selected 3/6 tests (2 * not collected): *"
                                 "(TEST_MIN 0.5)"])


def test_bad_input_is_a_usage_error(repo: Path, pytester: pytest.Pytester) -> None:
    result = run(pytester, "--impact-rev", "no-such-rev")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*impactlens: *no-such-rev*"])
    result = run(pytester, "--impact", "--impact-min-conf", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--impact-min-conf: 2.0 is not within 0..1*"])


def test_unaffected_test_modules_are_not_imported(repo: Path, pytester: pytest.Pytester,
                                                  git_commit: Callable[..., str]) -> None:
    git_commit(repo, {"tests/test_side.py": (
        "from pathlib import Path\n\nPath('imported.txt').write_text('yes')\n\n\n"
        "def test_side():\n    pass\n")}, "a test module with an import side effect")
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester, "--impact")
    assert passed_ids(result) == REACHING_PRICE
    assert not (repo / "imported.txt").exists()
    run(pytester).assert_outcomes(passed=ALL + 1)  # without --impact it is
    assert (repo / "imported.txt").exists()


def test_the_analysis_imports_plainly_and_the_tests_stay_rewritten(
        repo: Path, pytester: pytest.Pytester, git_commit: Callable[..., str]) -> None:
    # pytest would rewrite every impactlens module (its distribution provides a plugin);
    # the analysis imports outside that hook, the test modules still go through it
    git_commit(repo, {"conftest.py": (
        "import sys\n\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    api = sys.modules['impactlens.api']\n"
        "    print('analysis loaded by', type(api.__loader__).__name__)\n")}, "conftest")
    (repo / "src/shop/pricing.py").write_text(
        SHOP["src/shop/pricing.py"].replace("return round(gross, 2)", "return gross + 1"))
    result = run(pytester, "-s", "--impact", "tests/test_pricing.py")
    result.stdout.fnmatch_lines(["analysis loaded by SourceFileLoader"])
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*assert 16.0 == 15", "*where 16.0 = price(10, 0.5)"])


def test_explain_lists_causes_and_a_rerun_reuses_the_selection(
        repo: Path, pytester: pytest.Pytester) -> None:
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    first = run(pytester, "--impact-explain")
    assert passed_ids(first) == REACHING_PRICE
    first.stdout.fnmatch_lines([
        "*= impactlens selection =*",
        "tests/test_orders.py::test_total  TESTS via shop.orders.Order.total (1.00): calls it "
        "directly",
        "tests/test_pricing.py::test_price  TESTS via shop.pricing.price (1.00): calls it "
        "directly",
        "not collected: 2 tests in 1 files (tests/test_misc.py)"])
    assert "no analysis ran" not in first.stdout.str()
    again = run(pytester, "--impact-explain")
    assert passed_ids(again) == REACHING_PRICE
    again.stdout.fnmatch_lines(["(the selection cached for this state of the working tree: "
                                "no analysis ran; *"])
    (repo / "src/shop/text.py").write_text(  # another state: analyzed afresh
        "def shout(s):\n    loud = s.upper()\n    return loud\n")
    third = run(pytester, "--impact-explain")
    assert passed_ids(third) >= REACHING_PRICE | {"tests/test_misc.py::test_shout"}
    assert "no analysis ran" not in third.stdout.str()
    fresh = run(pytester, "--impact-explain", "--impact-no-cache")
    assert passed_ids(fresh) == passed_ids(third)
    assert "no analysis ran" not in fresh.stdout.str()


def test_a_failing_analysis_runs_every_test_and_says_why(
        repo: Path, pytester: pytest.Pytester, tmp_path: Path) -> None:
    import shutil

    from impactlens.index.store import index_path

    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    run(pytester, "--impact")  # builds the index
    state = index_path(repo).parent
    shutil.rmtree(state)
    (tmp_path / "elsewhere").mkdir()
    state.symlink_to(tmp_path / "elsewhere")  # never written through: every analysis fails
    result = run(pytester, "--impact")
    result.assert_outcomes(passed=ALL)
    result.stdout.fnmatch_lines(["impactlens: selected 5/5 tests: the analysis failed "
                                 "(StateDirError: *is a symlink*): every test runs"])
    assert not list((tmp_path / "elsewhere").iterdir())


def test_a_damaged_index_is_rebuilt_and_selects(repo: Path, pytester: pytest.Pytester) -> None:
    from impactlens.index.store import index_path

    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    first = run(pytester, "--impact")  # builds the index
    db = index_path(repo)
    for extra in db.parent.glob(db.name + "-*"):  # its write-ahead log
        extra.unlink()
    db.write_bytes(b"no index at all " * 512)
    again = run(pytester, "--impact")
    assert passed_ids(again) == passed_ids(first)
    assert "the analysis failed" not in again.stdout.str()


def test_a_selection_outside_the_collected_tests_is_a_warning(
        repo: Path, pytester: pytest.Pytester) -> None:
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester, "--impact", "tests/test_misc.py")
    result.assert_outcomes(deselected=2)
    result.stdout.fnmatch_lines(["impactlens: WARNING: none of the 3 tests the change "
                                 "reaches is among the 2 collected (pytest rootdir *"])


def test_a_suite_configured_in_its_own_directory(
        repo: Path, pytester: pytest.Pytester, git_commit: Callable[..., str]) -> None:
    # pytest.ini in tests/: `pytest tests` roots there, its node ids drop the `tests/`
    git_commit(repo, {"tests/pytest.ini": "[pytest]\npythonpath = ../src\n"}, "tests' own ini")
    (repo / "src/shop/pricing.py").write_text(PRICING_COMPATIBLE)
    result = run(pytester, "--impact-explain", "tests")
    result.stdout.fnmatch_lines(["rootdir: */tests", "configfile: pytest.ini"])
    assert passed_ids(result) == REACHING_PRICE  # (the summary names them from the cwd)
    result.stdout.fnmatch_lines(["test_orders.py::test_total  TESTS *",  # pytest's own ids
                                 "test_pricing.py::test_price  TESTS *",
                                 "test_report.py::test_summary  TESTS *",
                                 "not collected: 2 tests in 1 files (tests/test_misc.py)"])
