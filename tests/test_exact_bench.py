"""benchmarks/exact.py: dpdt's side, the child processes and their memory, the wide corpus, the
agreement of certified fits and the verdicts on stopped ones.

The anchors (pycontree, pystreed, pydl8.5) are optional: every test but the last uses fake
anchors, so that the table, the ratio and the loud mismatch are checked without them.
"""

import functools
import json
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


def _corpus(folder):
    """Write a small wide corpus: two classification sets (one too large) and a regression set."""
    rng = np.random.default_rng(0)

    def save(name, task, n, y):
        X = rng.integers(0, 4, size=(n, 3)).astype(np.float64)
        X[::7, 1] = np.nan
        X[:, 2] = np.nan  # a feature missing everywhere
        np.savez(folder / f"{name}.npz", X_train=X, X_test=X[:5], y_train=y, y_test=y[:5],
                 task=task, feature_names=np.array(["a", "b", "c"]),
                 categorical=np.array([True, False, False]))

    save("small", "classification", 40, np.arange(40) % 3)
    save("large", "classification", 80, np.arange(80) % 2)
    save("amount", "regression", 40, rng.normal(size=40))
    return folder


def test_wide_sets_are_the_classification_sets_within_the_rows_without_nan(tmp_path):
    names, skipped = exact.add_wide(_corpus(tmp_path), max_rows=50)
    assert (names, skipped) == (["small"], ["large"])
    X, y, kind = exact.load("small")
    raw = exact._WIDE["small"].X_train
    assert kind == "wide" and X.shape == (40, 3) and not np.isnan(X).any()
    # Missing values sit below every observed value of their feature, the rest is untouched.
    seen = ~np.isnan(raw[:, 1])
    assert np.all(X[~seen, 1] == raw[seen, 1].min() - 1) and np.all(X[seen, 1] == raw[seen, 1])
    assert np.all(X[:, 2] == 0) and np.array_equal(X[:, 0], raw[:, 0])
    assert exact.describe(X, y) == dict(n=40, p=3, classes=3, distinct_max=5,
                                        distinct_median=4.0, thresholds=7)


def test_dpdt_certifies_the_proven_optimum_of_a_bundled_set():
    data = dpdt.datasets.load("bank")
    X, y, _ = exact.load("bank")
    result = exact.fit_solver(exact.DPDT, X, y, 3, 60.0)
    assert result["certified"] and result["seconds"] > 0
    assert result["errors"] == data["optimal_depth3_errors"]
    assert result["accuracy"] == pytest.approx(1 - result["errors"] / len(y))
    assert result["lower_bound"] == pytest.approx(1 - result["accuracy"])
    assert result["stats"]["states"] > 0 and result["stats"]["stopped_by"] is None
    # Out of time: the best tree so far, not certified, with a bound no tree beats.
    result = exact.fit_solver(exact.DPDT, *exact.load("segment")[:2], 4, 0.05)
    assert not result["certified"] and result["seconds"] < 30
    assert np.isfinite(result["lower_bound"]) and 1 - result["lower_bound"] >= result["accuracy"]
    assert result["stats"]["stopped_by"] == "time_limit"
    row = dict(result, solver="dpdt")
    assert exact.bound_text(row).startswith(f"<= {1 - result['lower_bound']:.4f} (gap ")


def test_anchor_children_report_their_fit_or_what_went_wrong():
    X, y, _ = exact.load("heart-cleveland")
    result = exact.fit_isolated(GOOD, X, y, 2, 10.0)
    assert result["certified"] and result["errors"] == exact.fit_solver(
        exact.DPDT, X, y, 2, 10.0)["errors"]
    for how, message in [("raise", "RuntimeError: out of luck"),
                         ("crash", "crashed (exit status 3)"), ("sleep", "killed after 0.6 s")]:
        solver = _solver(how, lambda depth, how=how: Misbehaving(how))
        start = time.perf_counter()
        result = exact.fit_isolated(solver, X, y, 2, 0.1, grace=0.5)
        assert set(result) == {"error", "peak_mb"} and result["error"] == message
        assert time.perf_counter() - start < 10
    # A failed fit is a row of the table, the run goes on; dpdt fits in a child too.
    broken = _solver("Broken", lambda depth: Misbehaving("raise"))
    rows = exact.run([("heart-cleveland", 2)], [GOOD, broken, exact.DPDT], 10.0)
    assert rows[1]["error"] == "RuntimeError: out of luck" and rows[0]["certified"]
    assert rows[2]["certified"] and rows[2]["peak_mb"] >= 0
    # Not every fit certified: DPDT's default tree is fitted last, for the stopped fits' check.
    assert rows[3]["solver"] == "DPDT default" and not rows[3]["certified"]


class Hungry:
    """A fake anchor that holds ``megabytes`` of memory while it fits (for ``seconds`` more)."""

    def __init__(self, megabytes, seconds=0.0):
        self.megabytes = megabytes
        self.seconds = seconds

    def fit(self, X, y):
        self.held = np.ones(self.megabytes << 17)  # 8-byte floats, all pages touched
        # A solver that swells stays swollen while it searches: without this, a fit that ends
        # between two of the parent's memory samples (on a loaded machine) is never seen swollen.
        time.sleep(self.seconds)
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_peak_memory_is_the_fit_s_own_and_a_swollen_child_is_killed():
    X, y, _ = exact.load("bank")
    idle = exact.baseline_kb()
    small = exact.fit_isolated(_solver("S", lambda depth: Hungry(1)), X, y, 1, 10.0,
                               baseline_kb=idle)
    large = exact.fit_isolated(_solver("L", lambda depth: Hungry(300)), X, y, 1, 10.0,
                               baseline_kb=idle)
    assert 0 <= small["peak_mb"] < 30 and 300 <= large["peak_mb"] < 340
    swollen = _solver("H", lambda depth: Hungry(400, seconds=5.0))
    fit = functools.partial(exact.fit_solver, swollen, X, y, 1, 10.0)
    result = exact.isolated(fit, 10.0, memory_cap_mb=200)
    assert result["error"] == "killed at 200 MB of resident memory"
    assert result["peak_kb"] > 200 * 1024


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
    assert [r["solver"] for r in rows] == ["Good", "Never", "dpdt", "DPDT default"]
    assert not exact.mismatch(rows) and exact.summarise(rows, 10.0)[0].endswith(": PASS")
    value, text = exact.ratio(rows, 10.0)
    assert value == pytest.approx(rows[2]["seconds"] / rows[0]["seconds"])
    assert text.endswith("x (Good)")
    value, text = exact.memory_ratio(rows)
    assert value == pytest.approx(rows[2]["peak_mb"] / max(rows[0]["peak_mb"], 1.0))
    assert not any("MISMATCH" in line for line in exact.cell_lines(rows, 10.0))


def _row(solver, certified, seconds, errors=5, peak_mb=10.0, **more):
    return dict(data="d", kind="binary", n=100, depth=3, solver=solver, certified=certified,
                seconds=seconds, errors=errors, accuracy=1 - errors / 100, peak_mb=peak_mb,
                **more)


def test_ratio_and_verdicts_on_every_kind_of_cell():
    fast = [_row("A", True, 2.0), _row("B", True, 1.0, peak_mb=20), _row("dpdt", True, 0.5)]
    assert exact.ratio(fast, 60) == (0.5, "0.5x (B)")
    assert exact.memory_ratio(fast) == (0.5, "0.5x (B)")
    assert exact.summarise(fast, 60)[1:] == [
        "dpdt certifies every cell an anchor certifies (1 cells): PASS",
        "dpdt certified no slower than the fastest certified anchor in each of those it "
        "certified: PASS",
        "dpdt's peak memory, the fit's own, within 2x of the anchor's in every cell: PASS",
        "dpdt's process's peak memory (the fit's own and an idle child's, as a user measures a "
        "process) within 2x of the anchor's in every cell: PASS",
        "dpdt stopped by its limit (0 cells) returns a tree at least as accurate as DPDT's "
        "default and as each anchor stopped at the same limit, with a finite lower bound above 0: "
        "PASS"]
    slow = [_row("A", True, 1.0), _row("B", False, 0.1), _row("dpdt", True, 3.0, peak_mb=90)]
    assert exact.ratio(slow, 60) == (3.0, "3.0x (A)")
    assert exact.summarise(slow, 60)[2].endswith("FAIL (d depth 3 3.0x (A))")
    assert exact.summarise(slow, 60)[3].endswith("FAIL (d depth 3 90 MB, 9.0x (A))")
    # As fast counts as no slower. The fit's own memory five times the anchor's, the process's
    # within twice: the two verdicts say so.
    even = [_row("A", True, 1.0, peak_mb=4, baseline_mb=100),
            _row("dpdt", True, 1.0, peak_mb=20, baseline_mb=100)]
    assert exact.summarise(even, 60)[2].endswith(": PASS")
    assert exact.summarise(even, 60)[3].endswith(": FAIL (d depth 3 20 MB, 5.0x (A))")
    assert exact.memory_ratio(even, whole=True) == (pytest.approx(120 / 104), "1.15x (A)")
    assert exact.summarise(even, 60)[4].endswith(": PASS")
    even[1]["peak_mb"] = 120
    assert exact.summarise(even, 60)[4].endswith(": FAIL (d depth 3 2.12x (A))")
    uncertified = [_row("A", True, 1.0), _row("dpdt", False, 60.0)]
    assert exact.ratio(uncertified, 60) == (None, "not certified in 60 s")
    assert exact.summarise(uncertified, 60)[1].endswith("FAIL (d depth 3)")
    # Stopped: held against DPDT's default and an anchor stopped alike, and its bound.
    stopped = [_row("A", False, 60.0, errors=4), _row("dpdt", False, 60.0, lower_bound=0.01),
               _row("DPDT default", False, 0.1, errors=6)]
    assert exact.bound_text(stopped[1]) == "<= 0.9900 (gap 4.00 pts)"
    assert exact.summarise(stopped, 60)[5].endswith(
        "(1 cells) returns a tree at least as accurate as DPDT's default and as each anchor "
        "stopped at the same limit, with a finite lower bound above 0: FAIL (d depth 3: 0.9600 "
        "by A against 0.9500)")
    stopped[0]["errors"], stopped[0]["accuracy"] = 5, 0.95
    assert exact.summarise(stopped, 60)[5].endswith(": PASS")
    stopped[1]["lower_bound"] = 0.0
    assert exact.summarise(stopped, 60)[5].endswith(
        "FAIL (d depth 3: lower bound 0, nothing proven)")
    stopped[1]["lower_bound"] = float("nan")
    assert exact.bound_text(stopped[1]) == "no bound (NaN)"
    assert exact.summarise(stopped, 60)[5].endswith("FAIL (d depth 3: no finite lower bound)")
    stopped[2]["accuracy"] = 0.99
    assert "0.9900 by DPDT default against 0.9500" in exact.summarise(stopped, 60)[5]
    alone = [_row("A", False, 60.0), dict(data="d", depth=3, solver="B", error="crashed"),
             _row("dpdt", True, 3.0)]
    assert exact.ratio(alone, 60) == (None, "no certified anchor")
    assert exact.summarise(alone, 60)[1] == (
        "dpdt certifies every cell an anchor certifies (0 cells): PASS")
    assert "| d | 3 | - | B | failed: crashed | - | - |" in exact.cell_lines(alone, 60)[1]
    # dpdt on threads is timed against the anchors, never against dpdt on one thread.
    threaded = [_row("A", True, 1.0), _row("dpdt", True, 0.4), _row("dpdt n_jobs=2", True, 0.5)]
    assert exact.ratio(threaded, 60, "dpdt n_jobs=2") == (0.5, "0.5x (A)")
    assert exact.summarise(threaded, 60, "dpdt n_jobs=2")[2] == (
        "dpdt n_jobs=2 certified no slower than the fastest certified anchor in each of those "
        "it certified: PASS")
    assert exact.cell_lines(threaded, 60)[2].endswith("| 0.5x (A) | 1.0x (A) |")
    # An uncertified fit's accuracy is not held against the certified ones.
    assert not exact.mismatch([_row("A", True, 1.0), _row("dpdt", False, 60, errors=9)])


def test_main_names_missing_anchors_and_runs_the_rest(monkeypatch, capsys):
    missing = _solver("Gone", Exhaustive, module="no_such_module_for_exact")
    monkeypatch.setattr(exact, "ANCHORS", (GOOD, missing))
    argv = ["--time-limit", "10", "--datasets", "heart-cleveland", "--depths", "2"]
    assert exact.main(argv) == 0
    out = capsys.readouterr().out
    assert "Missing anchors, their rows skipped: Gone (pip install gone)." in out
    assert exact.HEADER in out and "| heart-cleveland | 2 | 296 x 95 | Good | yes |" in out
    assert "| heart-cleveland | 2 | 296 x 95 | dpdt | yes |" in out and "x (Good) |" in out
    assert "- certified solvers agree on the training accuracy in every cell: PASS" in out
    assert "- anchors not run: Gone" in out and "Gone |" not in out
    for argv, message in [(["--time-limit", "0"], "must be positive"),
                          (["--depths", "0"], "must be >= 1"),
                          (["--datasets", "nope"], "invalid choice: nope"),
                          (["--data", "/no/such/corpus"], "no corpus folder")]:
        with pytest.raises(SystemExit):
            exact.main(argv)
        assert message in capsys.readouterr().err


def test_main_adds_the_wide_sets_at_depth_3_and_saves_its_rows(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(exact, "ANCHORS", (GOOD,))
    monkeypatch.setattr(exact, "WIDE_MAX_ROWS", 50)
    out = tmp_path / "rows.json"
    argv = ["--time-limit", "10", "--datasets", "bank", "--data", str(_corpus(tmp_path)),
            "--json", str(out)]
    assert exact.main(argv) == 0
    printed = capsys.readouterr().out
    assert "the 1 classification sets of at most 50 training rows" in printed
    assert "not run (more rows): large." in printed
    rows = json.loads(out.read_text())
    assert [(r["data"], r["depth"], r["solver"]) for r in rows] == [
        ("bank", 3, "dpdt"), ("bank", 4, "dpdt"), ("small", 3, "dpdt")]
    assert rows[2]["kind"] == "wide" and rows[2]["certified"] and "stats" in rows[2]
    assert "| small | 3 | 40 x 3 | dpdt | yes |" in printed
    # The saved rows print the same table and verdicts again.
    assert exact.main(["--load", str(out)]) == 0
    again = capsys.readouterr().out
    table = [line for line in printed.splitlines() if line.startswith(("| ", "- "))]
    assert [line for line in again.splitlines() if line.startswith(("| ", "- "))] == table


def test_heldout_problems_are_the_regression_and_causal_sets_made_classification(tmp_path):
    folder = _corpus(tmp_path)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    arms = np.arange(30) % 3
    np.savez(folder / "trial.npz", X_train=X, X_test=X[:5], y_train=rng.normal(size=30),
             y_test=np.zeros(5), t_train=arms, t_test=arms[:5], task="causal")
    np.savez(folder / "huge.npz", X_train=np.zeros((90, 1)), X_test=np.zeros((5, 1)),
             y_train=np.arange(90.0), y_test=np.zeros(5), task="regression")
    assert exact.add_heldout(folder, max_rows=50) == ["amount>median", "trial:treatment"]
    X, y, kind = exact.load("amount>median")
    target = np.load(folder / "amount.npz")["y_train"]
    assert kind == "wide" and X.shape == (40, 3) and not np.isnan(X).any()
    assert np.array_equal(y, target > np.median(target)) and y.sum() == 20
    X, y, _ = exact.load("trial:treatment")
    assert np.array_equal(X, np.load(folder / "trial.npz")["X_train"])
    assert np.array_equal(y, arms)  # the arms are the classes; the outcome is not read


def test_main_runs_the_heldout_problems_alone(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(exact, "ANCHORS", (GOOD,))
    monkeypatch.setattr(exact, "WIDE_MAX_ROWS", 50)
    out = tmp_path / "rows.json"
    assert exact.main(["--time-limit", "10", "--heldout", "--data", str(_corpus(tmp_path)),
                       "--json", str(out)]) == 0
    assert "Held-out check" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    assert [(r["data"], r["depth"], r["solver"]) for r in rows] == [("amount>median", 3, "dpdt")]
    with pytest.raises(SystemExit):
        exact.main(["--heldout", "--data", str(tmp_path / "nowhere")])
    assert "no corpus folder" in capsys.readouterr().err


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
