"""verbose=1 reports a running fit's progress on the ``dpdt`` logger, and changes nothing else."""

import logging
import re

import numpy as np
import pytest
from _trees import assert_tree_equal

import dpdt._classes
from dpdt import DPDTreeClassifier, DPDTreeRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.random((6000, 8))
    return X, (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int)


def _progress_reports(make, X, y, monkeypatch, caplog):
    """Fit quietly and with verbose=1; check the reports; return their (done, total) pairs."""
    monkeypatch.setattr(dpdt._classes, "REPORT_SECONDS", 0.0)   # report at every poll
    with caplog.at_level(logging.INFO, logger="dpdt"):
        quiet = make(verbose=0).fit(X, y)
        assert not caplog.records
        loud = make(verbose=1).fit(X, y)
    assert_tree_equal(quiet.tree_, loud.tree_)
    pattern = re.compile(rf"{type(loud).__name__}: (\d+) states solved, "
                         r"(?:(\d+)/(\d+) root subproblems|expanding the root), [\d.]+ s")
    reports = [pattern.fullmatch(r.getMessage()) for r in caplog.records]
    assert reports and all(reports), [r.getMessage() for r in caplog.records]
    states = [int(m.group(1)) for m in reports]
    assert states == sorted(states) and states[-1] <= loud.stats_["states"]
    done = [(int(m.group(2)), int(m.group(3))) for m in reports if m.group(2) is not None]
    assert [d for d, _ in done] == sorted(d for d, _ in done)   # done only grows
    return done


@pytest.mark.parametrize("Estimator", [DPDTreeClassifier, DPDTreeRegressor])
def test_verbose_reports_progress_and_keeps_the_tree(Estimator, monkeypatch, caplog):
    X, y = _data()
    done = _progress_reports(lambda verbose: Estimator(max_depth=4, n_jobs=2, verbose=verbose),
                             X, y, monkeypatch, caplog)
    # two subproblems (one per side) for each root candidate
    assert all(0 <= d <= t and t > 0 and t % 2 == 0 for d, t in done)


def test_verbose_reports_the_bounded_search(monkeypatch, caplog):
    X, y = _data()
    X, y = X[:1500, :4], y[:1500]
    done = _progress_reports(
        lambda verbose: DPDTreeClassifier(max_depth=3, splitter="exhaustive", full_front=False,
                                          n_jobs=2, verbose=verbose),
        X, y, monkeypatch, caplog)
    # The root one level shallower, then one subproblem per feature.
    assert done and all(0 <= d <= t == 1 + X.shape[1] for d, t in done)
