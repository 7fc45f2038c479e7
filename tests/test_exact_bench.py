"""benchmarks/exact.py: dpdt's side, the child processes, and the agreement of certified fits.

The anchors (pycontree, pystreed, pydl8.5) are optional: every test but the last uses fake
anchors, so that the table, the ratio and the loud mismatch are checked without them.
"""

import os
import time

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import dpdt
import exact  # benchmarks/exact.py (pyproject: pytest pythonpath)
from dpdt import DPDTreeClassifier


class Exhaustive:
    """A fake anchor that certifies the true optimum (dpdt's exhaustive search)."""

    def __init__(self, depth):
        self.model = DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False)

    def fit(self, X, y):
        assert X.dtype == np.int32 and set(np.unique(X)) <= {0, 1}  # binary_input
        self.model.fit(X, y)
        return self

    def predict(self, X):
        return self.model.predict(X)


class Stump:
    """A fake anchor that claims a stump is optimal: a bug the benchmark must shout about."""

    def __init__(self, depth):
        self.model = DecisionTreeClassifier(max_depth=1)

    def fit(self, X, y):
        assert X.dtype == np.float64
        self.model.fit(X, y)
        return self

    def predict(self, X):
        return self.model.predict(X)


class Misbehaving:
    """A fake anchor that raises, crashes its process or overruns, as ``how`` says."""

    def __init__(self, how):
        self.how = how

    def fit(self, X, y):
        if self.how == "raise":
            raise RuntimeError("out of luck")
        if self.how == "crash":
            os._exit(3)
        time.sleep(30)
        return self


def _solver(name, make, certified=True, binary_input=False, kinds=("binary",),
            module="numpy"):
    return exact.Solver(name, name.lower(), module, kinds, lambda depth, limit: make(depth),
                        lambda model, caught: certified, binary_input=binary_input)


GOOD = _solver("Good", Exhaustive, binary_input=True)
BAD = _solver("Bad", Stump, kinds=("binary", "continuous"))
NEVER = _solver("Never", Exhaustive, certified=False, binary_input=True)


def test_load_gives_continuous_splits_and_bundled_binary_sets():
    X, y, kind = exact.load("bank")
    assert kind == "continuous" and X.shape == (1097, 4) and len(y) == 1097
    X, y, kind = exact.load("anneal")
    assert kind == "binary" and X.shape == (812, 93) and set(np.unique(X)) == {0, 1}
    assert set(exact.BINARY_SETS) <= set(exact.binary_names())
    assert exact.continuous_names() == dpdt.datasets.list_datasets("classification")


def test_dpdt_certifies_the_proven_optimum_of_a_bundled_set():
    data = dpdt.datasets.load("bank")
    X, y, _ = exact.load("bank")
    result = exact.fit_solver(exact.DPDT, X, y, 3, 60.0)
    assert result["certified"] and result["seconds"] > 0
    assert result["errors"] == data["optimal_depth3_errors"]
    assert result["accuracy"] == pytest.approx(1 - result["errors"] / len(y))
    # Out of time: the best tree so far, not certified.
    result = exact.fit_solver(exact.DPDT, *exact.load("segment")[:2], 4, 0.05)
    assert not result["certified"] and result["seconds"] < 30


def test_anchor_children_report_their_fit_or_what_went_wrong():
    X, y, _ = exact.load("heart-cleveland")
    result = exact.fit_isolated(GOOD, X, y, 2, 10.0)
    assert result["certified"] and result["errors"] == exact.fit_solver(
        exact.DPDT, X, y, 2, 10.0)["errors"]
    for how, message in [("raise", "RuntimeError: out of luck"),
                         ("crash", "crashed (exit status 3)"), ("sleep", "killed after 0.6 s")]:
        solver = _solver(how, lambda depth, how=how: Misbehaving(how))
        start = time.perf_counter()
        assert exact.fit_isolated(solver, X, y, 2, 0.1, grace=0.5) == {"error": message}
        assert time.perf_counter() - start < 10
    # In this process (as dpdt fits), a fit that raises is a row too.
    broken = exact.Solver("Broken", "broken", "numpy", ("binary",),
                          lambda depth, limit: Misbehaving("raise"), lambda model, caught: True,
                          isolate=False)
    rows = exact.run([("heart-cleveland", 2)], [GOOD, broken], 10.0)
    assert rows[1]["error"] == "RuntimeError: out of luck" and rows[0]["certified"]


def test_run_shouts_when_certified_accuracies_differ():
    cells = [("heart-cleveland", 2), ("bank", 2)]
    rows = exact.run(cells, [GOOD, BAD, exact.DPDT], 10.0)
    # GOOD takes binary data only; BAD and dpdt take both.
    assert [(r["data"], r["solver"]) for r in rows] == [
        ("heart-cleveland", "Good"), ("heart-cleveland", "Bad"), ("heart-cleveland", "dpdt"),
        ("bank", "Bad"), ("bank", "dpdt")]
    assert all(r["certified"] for r in rows)
    heart = rows[:3]
    assert heart[0]["errors"] == heart[2]["errors"] < heart[1]["errors"]
    assert "Bad" in exact.mismatch(heart) and "Good" in exact.mismatch(heart)
    lines = exact.cell_lines(heart, 10.0)
    assert "**MISMATCH on heart-cleveland depth 2" in lines[-1]
    verdicts = exact.summarise(rows, 10.0)
    assert verdicts[0].startswith("certified solvers agree") and ": FAIL (" in verdicts[0]
    assert "heart-cleveland depth 2" in verdicts[0] and "bank depth 2" in verdicts[0]
    assert verdicts[1].endswith("(2 cells): PASS")
    # Agreement: the good anchor alone.
    rows = exact.run(cells[:1], [GOOD, NEVER, exact.DPDT], 10.0)
    assert not exact.mismatch(rows) and exact.summarise(rows, 10.0)[0].endswith(": PASS")
    value, text = exact.ratio(rows, 10.0)
    assert value == pytest.approx(rows[2]["seconds"] / rows[0]["seconds"])
    assert text.endswith("x (Good)")
    assert not any("MISMATCH" in line for line in exact.cell_lines(rows, 10.0))


def _row(solver, certified, seconds, errors=5):
    return dict(data="d", kind="binary", n=100, depth=3, solver=solver, certified=certified,
                seconds=seconds, errors=errors, accuracy=1 - errors / 100)


def test_ratio_and_verdicts_on_every_kind_of_cell():
    fast = [_row("A", True, 2.0), _row("B", True, 1.0), _row("dpdt", True, 0.5)]
    assert exact.ratio(fast, 60) == (0.5, "0.5x (B)")
    assert exact.summarise(fast, 60)[1:] == [
        "dpdt certifies every cell an anchor certifies (1 cells): PASS",
        "dpdt faster than the fastest certified anchor in each of those cells: PASS"]
    slow = [_row("A", True, 1.0), _row("B", False, 0.1), _row("dpdt", True, 3.0)]
    assert exact.ratio(slow, 60) == (3.0, "3.0x (A)")
    assert exact.summarise(slow, 60)[2].endswith("FAIL (d depth 3 3.0x (A))")
    uncertified = [_row("A", True, 1.0), _row("dpdt", False, 60.0)]
    assert exact.ratio(uncertified, 60) == (None, "not certified in 60 s")
    assert exact.summarise(uncertified, 60)[1].endswith("FAIL (d depth 3)")
    alone = [_row("A", False, 60.0), dict(data="d", depth=3, solver="B", error="crashed"),
             _row("dpdt", True, 3.0)]
    assert exact.ratio(alone, 60) == (None, "no certified anchor")
    assert exact.summarise(alone, 60)[1] == (
        "dpdt certifies every cell an anchor certifies (0 cells): PASS")
    assert "| d | 3 | B | failed: crashed |" in exact.cell_lines(alone, 60)[1]
    # dpdt on threads is timed against the anchors, never against dpdt on one thread.
    threaded = [_row("A", True, 1.0), _row("dpdt", True, 0.4), _row("dpdt n_jobs=2", True, 0.5)]
    assert exact.ratio(threaded, 60, "dpdt n_jobs=2") == (0.5, "0.5x (A)")
    assert exact.summarise(threaded, 60, "dpdt n_jobs=2")[2] == (
        "dpdt n_jobs=2 faster than the fastest certified anchor in each of those cells: PASS")
    assert exact.cell_lines(threaded, 60)[2].endswith("| 0.5x (A) |")
    # An uncertified fit's accuracy is not held against the certified ones.
    assert not exact.mismatch([_row("A", True, 1.0), _row("dpdt", False, 60, errors=9)])


def test_main_names_missing_anchors_and_runs_the_rest(monkeypatch, capsys):
    missing = _solver("Gone", Exhaustive, module="no_such_module_for_exact")
    monkeypatch.setattr(exact, "ANCHORS", (GOOD, missing))
    argv = ["--time-limit", "10", "--datasets", "heart-cleveland", "--depths", "2"]
    assert exact.main(argv) == 0
    out = capsys.readouterr().out
    assert "Missing anchors, their rows skipped: Gone (pip install gone)." in out
    assert exact.HEADER in out and "| heart-cleveland | 2 | Good | yes |" in out
    assert "| heart-cleveland | 2 | dpdt | yes |" in out and "x (Good) |" in out
    assert "- certified solvers agree on the training accuracy in every cell: PASS" in out
    assert "- anchors not run: Gone" in out and "Gone |" not in out
    for argv, message in [(["--time-limit", "0"], "must be positive"),
                          (["--depths", "0"], "must be >= 1"),
                          (["--datasets", "nope"], "invalid choice")]:
        with pytest.raises(SystemExit):
            exact.main(argv)
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("anchor", exact.ANCHORS, ids=lambda a: a.name)
def test_installed_anchors_certify_dpdt_s_optimum(anchor):
    if not exact.available(anchor):
        pytest.skip(f"{anchor.package} is not installed (optional, the bench extra)")
    name = "bank" if "continuous" in anchor.kinds else "heart-cleveland"
    X, y, _ = exact.load(name)
    theirs = exact.fit_isolated(anchor, X, y, 2, 30.0)
    ours = exact.fit_solver(exact.DPDT, X, y, 2, 30.0)
    assert theirs["certified"] and ours["certified"]
    assert theirs["errors"] == ours["errors"]
