"""verbose=1 reports a running fit's progress, verbose=0 nothing, and neither changes the fit.

Every estimator family reports through one reporter (``dpdt._progress``): log lines on the
``dpdt`` logger naming the estimator, a count of units done out of the total (root
subproblems, fits, rounds; BRANCHES: branches expanded) and a final line, or a tqdm bar on a
terminal.
"""

import logging
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _trees import assert_tree_equal
from numpy.testing import assert_array_equal
from sklearn.exceptions import ConvergenceWarning

import dpdt._progress
from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
)
from dpdt._cli import main

DATA = Path(__file__).parent / "data"
SECONDS = r"[\d.]+ s"


@pytest.fixture(autouse=True)
def log_lines(monkeypatch):
    """Report at every call, as log lines (even when the tests run on a terminal)."""
    monkeypatch.setattr(dpdt._progress, "REPORT_SECONDS", 0.0)
    monkeypatch.setattr(dpdt._progress, "_to_terminal", lambda: False)


def _data():
    rng = np.random.default_rng(0)
    X = rng.random((6000, 8))
    return X, (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int)


def _messages(caplog, name):
    """The messages of the ``dpdt`` logger, each checked to come from the estimator ``name``."""
    messages = [r.getMessage() for r in caplog.records if r.name == "dpdt"]
    assert all(m.startswith(f"{name}: ") for m in messages), messages
    return messages


def _fit_quiet_and_loud(make, X, y, caplog, capfd):
    """Fit with verbose=0 (checked silent) and verbose=1; return both and the loud messages."""
    with caplog.at_level(logging.DEBUG):
        quiet = make(verbose=0).fit(X, y)
        assert not caplog.records
        assert capfd.readouterr() == ("", "")
        loud = make(verbose=1).fit(X, y)
    return quiet, loud, _messages(caplog, type(loud).__name__)


def _counts(messages, pattern):
    """The (done, total) of each message, all of which must match ``pattern``."""
    matches = [re.fullmatch(pattern, m) for m in messages]
    assert messages and all(matches), messages
    return [(int(m.group("done")), int(m.group("total"))) for m in matches]


# ------------------------------------------------------------------------------ the reporter

def test_log_lines_are_at_most_one_per_report_seconds_and_a_final_one(monkeypatch, caplog):
    clock = iter([0.0, 0.3, 0.9, 1.0, 1.5, 1.9, 2.2, 2.4])
    monkeypatch.setattr(dpdt._progress.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(dpdt._progress, "REPORT_SECONDS", 1.0)
    with caplog.at_level(logging.INFO):
        progress = dpdt._progress.reporter(1, "Estimator", "rounds", total=6)
        for done in range(1, 7):
            progress.update(done, notes=[f"note {done}"])
        progress.finish()
    assert [r.getMessage() for r in caplog.records] == [
        "Estimator: 3/6 rounds, note 3, 1.0 s",
        "Estimator: 6/6 rounds, note 6, 2.2 s",
        "Estimator: 6/6 rounds, note 6, 2.4 s"]


def test_verbose_0_builds_no_reporter_and_gives_the_core_no_callback(monkeypatch):
    monkeypatch.setattr(dpdt._progress, "Reporter", None)   # never made
    silent = dpdt._progress.reporter(0, "Estimator", "rounds", total=6)
    assert silent.tree_callback is None
    silent.update(3)
    silent.finish()


# ------------------------------------------------------------------------------ single trees

TREE_LINE = (r"(?:(?P<done>\d+)/(?P<total>\d+) root subproblems|expanding the root), "
             rf"(?P<states>\d+) states, {SECONDS}")


def _tree_reports(make, X, y, caplog, capfd):
    """Check the reports of a tree's fit; return their (done, total) pairs."""
    quiet, loud, messages = _fit_quiet_and_loud(make, X, y, caplog, capfd)
    assert_tree_equal(quiet.tree_, loud.tree_)
    pattern = re.compile(rf"{type(loud).__name__}: {TREE_LINE}")
    reports = [pattern.fullmatch(m) for m in messages]
    assert reports and all(reports), messages
    states = [int(m.group("states")) for m in reports]
    assert states == sorted(states) and states[-1] == loud.stats_["states"]
    done = [(int(m.group("done")), int(m.group("total")))
            for m in reports if m.group("done") is not None]
    assert [d for d, _ in done] == sorted(d for d, _ in done)   # done only grows
    assert done[-1][0] == done[-1][1] > 0                        # the final line: all of them
    return done


@pytest.mark.parametrize("Estimator", [DPDTreeClassifier, DPDTreeRegressor])
def test_verbose_reports_progress_and_keeps_the_tree(Estimator, caplog, capfd):
    X, y = _data()
    done = _tree_reports(lambda verbose: Estimator(max_depth=4, n_jobs=2, verbose=verbose),
                         X, y, caplog, capfd)
    # two subproblems (one per side) for each root candidate
    assert all(0 <= d <= t and t > 0 and t % 2 == 0 for d, t in done)


def test_verbose_reports_the_bounded_search(caplog, capfd):
    X, y = _data()
    X, y = X[:1500, :4], y[:1500]
    done = _tree_reports(
        lambda verbose: DPDTreeClassifier(max_depth=3, splitter="exhaustive", full_front=False,
                                          n_jobs=2, verbose=verbose),
        X, y, caplog, capfd)
    # The root one level shallower, then per feature its seed cut, its first cuts and its search.
    assert len(done) > 1 and all(0 <= d <= t == 1 + 3 * X.shape[1] for d, t in done)


# ------------------------------------------------------------------------------------ the CVs

@pytest.mark.parametrize("Estimator", [DPDTreeClassifierCV, DPDTreeRegressorCV])
def test_cv_reports_its_fits_and_not_theirs(Estimator, caplog, capfd):
    X, y = _data()
    X, y = X[:800], y[:800] if Estimator is DPDTreeClassifierCV else X[:800, 0] + y[:800]
    quiet, loud, messages = _fit_quiet_and_loud(
        lambda verbose: Estimator(max_depths=[2, 3], cv=3, n_jobs=2, verbose=verbose),
        X, y, caplog, capfd)
    assert_array_equal(quiet.validation_curve_, loud.validation_curve_)
    assert_tree_equal(quiet.tree_, loud.tree_)
    # One line per fit (the fits' own progress is not reported), and the final one.
    counts = _counts(messages, rf"{Estimator.__name__}: (?P<done>\d+)/(?P<total>\d+) fits, "
                               rf"depth [23], {SECONDS}")
    assert counts == [(k, 8) for k in range(1, 9)] + [(8, 8)]


# ------------------------------------------------------------------------------------ boosting

def test_boosting_reports_rounds_and_train_loss(caplog, capfd):
    X, y = _data()
    X, y = X[:2000], y[:2000]
    quiet, loud, messages = _fit_quiet_and_loud(
        lambda verbose: DPDTGradientBoostingClassifier(n_estimators=12, verbose=verbose),
        X, y, caplog, capfd)
    assert_array_equal(quiet.predict_proba(X), loud.predict_proba(X))
    name = "DPDTGradientBoostingClassifier"
    counts = _counts(messages, rf"{name}: (?P<done>\d+)/(?P<total>\d+) rounds, "
                               rf"train loss [-\d.e+]+, {SECONDS}")
    # One line per round, and the final one.
    assert counts == [(k, 12) for k in range(1, 13)] + [(12, 12)]
    assert f"train loss {loud.train_score_[-1]:.6g}, " in messages[-1]


def test_boosting_reports_the_validation_loss_and_early_stopping(caplog, capfd):
    X, y = _data()
    # In y's unit: the core sees y divided by a power of two, the reports must not.
    y = 1e6 * (X[:2000, 0] + X[:2000, 1] * X[:2000, 2])
    X = X[:2000]
    quiet, loud, messages = _fit_quiet_and_loud(
        lambda verbose: DPDTGradientBoostingRegressor(n_estimators=500, n_iter_no_change=2,
                                                      learning_rate=0.5, random_state=0,
                                                      verbose=verbose),
        X, y, caplog, capfd)
    assert_array_equal(quiet.predict(X), loud.predict(X))
    rounds = loud.n_estimators_
    assert rounds < 500
    name = "DPDTGradientBoostingRegressor"
    line = (rf"{name}: (?P<done>\d+)/(?P<total>\d+) rounds, train loss [-\d.e+]+, "
            rf"validation loss [-\d.e+]+")
    counts = _counts(messages[:-1], rf"{line}, {SECONDS}")
    assert [d for d, _ in counts] == list(range(1, rounds))    # the last round ends the loop
    assert re.fullmatch(rf"{line}, stopped early, {SECONDS}", messages[-1])
    assert messages[-1].startswith(
        f"{name}: {rounds}/500 rounds, train loss {loud.train_score_[-1]:.6g}, "
        f"validation loss {loud.validation_score_[-1]:.6g}, ")


# ------------------------------------------------------------------------------------ BRANCHES

BRANCHES_LINE = r"BranchesClassifier: (?P<done>\d+) branches expanded"


def _tictactoe():
    data = np.load(DATA / "tictactoe.npz")
    return data["X"], data["y"]


def test_branches_reports_the_branches_expanded(caplog, capfd):
    X, y = _tictactoe()
    quiet, loud, messages = _fit_quiet_and_loud(
        lambda verbose: BranchesClassifier(lam=0.02, verbose=verbose), X, y, caplog, capfd)
    assert loud.is_optimal_
    assert_array_equal(quiet.tree_.feature, loud.tree_.feature)
    assert quiet.n_iterations_ == loud.n_iterations_
    counts = [int(re.fullmatch(rf"{BRANCHES_LINE}, {SECONDS}", m).group("done"))
              for m in messages[:-1]]
    assert counts == sorted(counts) and all(c <= loud.n_iterations_ for c in counts)
    assert re.fullmatch(rf"BranchesClassifier: {loud.n_iterations_} branches expanded, "
                        rf"objective {loud.objective_:.6g}, optimal, {SECONDS}", messages[-1])


def test_branches_counts_every_search_of_a_time_limit(caplog):
    # Under a time limit the full search, depth-limited ones and the full search again run in
    # turn: the count goes on across them and ends at n_iterations_.
    X, y = _tictactoe()
    clf = BranchesClassifier(lam=0.005, time_limit=0.5, verbose=1)
    with caplog.at_level(logging.INFO), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    assert not clf.is_optimal_
    messages = _messages(caplog, "BranchesClassifier")
    counts = [int(re.match(BRANCHES_LINE, m).group("done")) for m in messages]
    assert counts == sorted(counts) and counts[-1] == clf.n_iterations_
    assert any(re.search(r", search at depth \d+, ", m) for m in messages)
    assert re.search(rf"upper bound {clf.upper_bound_:.6g}, {SECONDS}$", messages[-1])


# ------------------------------------------------------------------------------- the CLI

def test_cli_verbose_reports_the_fit(caplog, capsys):
    with caplog.at_level(logging.DEBUG):
        assert main(["fit", "--dataset", "bank", "--max-depth", "4"]) == 0
        assert not caplog.records and capsys.readouterr().err == ""
        assert main(["fit", "--dataset", "bank", "--max-depth", "4", "-v"]) == 0
    messages = _messages(caplog, "DPDTreeClassifier")
    done = re.fullmatch(rf"DPDTreeClassifier: {TREE_LINE}", messages[-1])
    assert done and done.group("done") == done.group("total")


def test_cli_verbose_writes_to_stderr_without_logging_configured(tmp_path):
    # A fresh interpreter, no logging configured, stderr a pipe: the lines on stderr.
    run = subprocess.run([sys.executable, "-m", "dpdt._cli", "fit", "--dataset", "bank",
                          "--verbose"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert lines and all(line.startswith("[dpdt] DPDTreeClassifier: ") for line in lines), lines
    done = re.fullmatch(rf"\[dpdt\] DPDTreeClassifier: {TREE_LINE}", lines[-1])
    assert done and done.group("done") == done.group("total")
    quiet = subprocess.run([sys.executable, "-m", "dpdt._cli", "fit", "--dataset", "bank"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout.split("fitted in")[1].split("\n", 1)[1] == \
        run.stdout.split("fitted in")[1].split("\n", 1)[1]


# ---------------------------------------------------------------------------- the tqdm bar

@pytest.mark.parametrize("make, total", [
    (lambda: DPDTGradientBoostingClassifier(n_estimators=5, verbose=1), 5),
    (lambda: DPDTreeClassifierCV(cv=2, verbose=1), 3),
    (lambda: DPDTreeClassifier(max_depth=4, verbose=1), None),   # the root's subproblems
    (lambda: BranchesClassifier(lam=0.02, verbose=1), None),     # no total
], ids=["boosting", "cv", "tree", "branches"])
def test_a_terminal_gets_a_tqdm_bar_instead_of_log_lines(make, total, monkeypatch, caplog,
                                                        capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(dpdt._progress, "_to_terminal", lambda: True)
    estimator = make()
    X, y = _tictactoe() if isinstance(estimator, BranchesClassifier) else _data()
    with caplog.at_level(logging.DEBUG):
        estimator.fit(X[:3000], y[:3000])
    assert not caplog.records
    bar = capsys.readouterr().err
    last = bar.rstrip("\n").rsplit("\r", 1)[-1]   # the bar as last drawn
    assert last.startswith(f"{type(estimator).__name__}: "), bar
    if isinstance(estimator, BranchesClassifier):
        assert f": {estimator.n_iterations_} branches expanded " in last, bar
    else:
        assert "100%|" in last, bar
        if total is not None:
            assert f"| {total}/{total} " in last, bar
