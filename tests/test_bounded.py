"""The branch and bound of ``splitter="exhaustive", full_front=False`` against ground truth.

- the Bellman recursion over every threshold (tests/_bruteforce.py) on small data, depths 1-4,
  both complexities, several alphas, weights and three classes;
- the dynamic programme's exhaustive front, whose row at alpha it must match, on larger data;
- the proven optimal depth-3 accuracies of the bundled datasets (Quant-BnB's);
- the same tree whatever n_jobs; time_limit and configurations the bounds do not serve.
"""

import functools
import re
import warnings

import numpy as np
import pytest
from _bruteforce import COMPLEXITIES, encode_labels, optimum_by_recursion, tree_stats
from _trees import assert_tree_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier

import dpdt
from dpdt import DPDTreeClassifier

ALPHAS = (0.0, 0.004, 0.03, 0.2)


@functools.cache
def small(seed):
    """n in 14..26, p in 1..3, 2-3 classes; odd seeds have many duplicated values, some weights."""
    rng = np.random.default_rng(500 + seed)
    n, p, k = int(rng.integers(14, 27)), int(rng.integers(1, 4)), 2 + seed % 2
    if seed % 2:
        X = rng.integers(0, 5, size=(n, p)).astype(float)
    else:
        X = rng.random((n, p)).round(3)
    y = (X.sum(axis=1) * 3 + rng.normal(scale=1.0, size=n)).astype(int) % k
    w = rng.uniform(0.2, 3.0, n) if seed % 3 == 0 else None
    return X, y, w


def objective(clf, X, y, w, alpha, complexity):
    _, y_idx = encode_labels(y, clf.classes_)
    weights = np.ones(len(y)) if w is None else w
    s = tree_stats(clf.tree_, X, y_idx, weights, len(clf.classes_))
    return s["train_loss"] + alpha * s[complexity]


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", range(12))
def test_bounded_search_reaches_the_recursions_optimum(seed, depth, complexity):
    X, y, w = small(seed)
    _, y_idx = encode_labels(y)
    weights = np.ones(len(y)) if w is None else w
    for alpha in ALPHAS:
        clf = DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False,
                                alpha=alpha, complexity=complexity).fit(X, y, sample_weight=w)
        best = optimum_by_recursion(X, y_idx, weights, depth, alpha, complexity)
        assert clf.is_optimal_
        assert clf.get_depth() <= depth
        assert objective(clf, X, y, w, alpha, complexity) == pytest.approx(best, abs=1e-9)
        assert clf.lower_bound_ == clf.objective_ == pytest.approx(best, abs=1e-9)
        row = clf.pareto_front_[0]
        assert len(clf.pareto_front_) == 1 and row["alpha_min"] == row["alpha_max"] == alpha
        assert row["train_loss"] + alpha * row["complexity"] == pytest.approx(best, abs=1e-9)


def medium(seed, n=300, p=5):
    rng = np.random.default_rng(700 + seed)
    X = rng.random((n, p)).round(2)   # ties between values too
    score = np.sin(6 * X[:, 0]) + X[:, 1] * X[:, 2 % p] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, [0.4, 0.7] if seed % 2 else [0.5]))
    return X, y


def assert_front_row_reached(X, y, alpha, **params):
    """The bounded search's objective equals that of the exhaustive front's tree at alpha."""
    front = DPDTreeClassifier(splitter="exhaustive", alpha=alpha, **params).fit(X, y)
    bounded = DPDTreeClassifier(splitter="exhaustive", alpha=alpha, full_front=False,
                                **params).fit(X, y)
    expected = front.pareto_front_[front._front_index(alpha)]
    got = bounded.pareto_front_[0]
    assert got["train_loss"] + alpha * got["complexity"] == pytest.approx(
        expected["train_loss"] + alpha * expected["complexity"], abs=1e-12)


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("alpha", [0.0, 0.01])
@pytest.mark.parametrize("seed", range(4))
def test_bounded_search_matches_the_exhaustive_front(seed, alpha, complexity):
    X, y = medium(seed)
    assert_front_row_reached(X, y, max_depth=2, alpha=alpha, complexity=complexity)


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("seed", [4, 38, 48])
def test_similarity_bound_counts_the_tests_of_moved_samples(seed, alpha):
    # Noise labels at depth 3: moving a sample between children changes an optimum by its
    # misclassification and by alpha times the tests it passes; bounds that forget the tests
    # prune the optimum on these seeds.
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(20, 60)), int(rng.integers(1, 4))
    X, y = rng.random((n, p)).round(2), rng.integers(0, 2, n)
    assert_front_row_reached(X, y, max_depth=3, alpha=alpha)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_bounded_search_gives_one_tree_whatever_n_jobs(seed, weighted):
    X, y = medium(seed, n=200, p=4)
    w = np.random.default_rng(seed).uniform(0.1, 3.0, len(y)) if weighted else None
    trees = [DPDTreeClassifier(max_depth=3, splitter="exhaustive", full_front=False,
                               n_jobs=n_jobs).fit(X, y, sample_weight=w).tree_
             for n_jobs in (1, 2, 3)]
    for tree in trees[1:]:
        assert_tree_equal(tree, trees[0])


# The bundled sets the bounded search certifies in a second or so; fault, page and rice take
# longer and are checked against ConTree's certified optima by benchmarks/exact.py.
@pytest.mark.parametrize("name", ["bank", "occupancy", "raisin", "segment", "wilt"])
def test_bounded_search_certifies_the_proven_optimal_depth3_accuracy(name):
    data = dpdt.datasets.load(name)
    X, y = data.X_train, data.y_train
    clf = DPDTreeClassifier(max_depth=3, splitter="exhaustive", full_front=False).fit(X, y)
    assert clf.is_optimal_
    assert np.sum(clf.predict(X) != y) == data.optimal_depth3_errors
    assert round(clf.score(X, y), 3) == data.optimal_depth3_accuracy
    assert clf.lower_bound_ == clf.objective_ == data.optimal_depth3_errors / len(y)
    # Never worse than any tree of the DPDT search, whose candidates it includes.
    assert clf.score(X, y) >= DPDTreeClassifier(max_depth=3).fit(X, y).score(X, y)


def test_time_limit_returns_the_best_tree_found():
    X, y = medium(0, n=2000, p=8)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        clf = DPDTreeClassifier(max_depth=4, splitter="exhaustive", full_front=False,
                                time_limit=0.05).fit(X, y)
    assert not clf.is_optimal_
    assert clf.get_depth() <= 4
    # CART's tree is the first incumbent, found before the search starts.
    cart = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert clf.score(X, y) >= cart.score(X, y)


def one_feature(n=400):
    rng = np.random.default_rng(1)
    X = rng.random((n, 1)).round(3)
    y = (np.sin(9 * X[:, 0]) + X[:, 0] + 0.5 * rng.normal(size=n) > 0.5).astype(int)
    return X, y


def binary_features(n=2000, p=12):
    rng = np.random.default_rng(3)
    X = (rng.random((n, p)) < 0.5).astype(float)
    return X, (X[:, :5].sum(axis=1) + rng.integers(0, 3, n)) % 2


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("alpha", [0.0, 0.002])
@pytest.mark.parametrize("data", [one_feature, binary_features])
def test_stopped_search_certifies_a_lower_bound_of_the_optimum(data, alpha, complexity):
    # Stopped at any point (the limits below, fractions of the whole search's time on this
    # machine, fall at various stages of it), the bound never passes the optimum; and it is no
    # constant: with one feature, the stopped root's bound comes from its interrupted subtrees,
    # and with alpha > 0 every split costs. (With many features at alpha = 0, a root feature not
    # yet started bounds nothing, docs/guarantees.md: whether a stop falls after the last one
    # started is a matter of timing, so no positive bound is asserted there.)
    X, y = data()
    params = dict(max_depth=4, splitter="exhaustive", full_front=False, alpha=alpha,
                  complexity=complexity)
    full = DPDTreeClassifier(**params).fit(X, y)
    assert full.is_optimal_ and full.lower_bound_ == full.objective_
    optimum, seconds = full.objective_, full.stats_["seconds"]
    bounds = []
    for n_jobs in (1, 2):
        for time_limit in (0.001, 0.05 * seconds, 0.3 * seconds, 0.8 * seconds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                clf = DPDTreeClassifier(**params, time_limit=time_limit, n_jobs=n_jobs).fit(X, y)
            assert clf.lower_bound_ <= optimum + 1e-12
            assert clf.objective_ >= optimum - 1e-12
            assert clf.objective_ == pytest.approx(
                objective(clf, X, y, None, alpha, complexity), abs=1e-12)
            if clf.is_optimal_:
                assert clf.lower_bound_ == clf.objective_
            bounds.append(clf.lower_bound_)
    if data is one_feature or alpha > 0:
        assert max(bounds) > 0.0


@pytest.mark.parametrize("alpha", [0.0, 0.01])
@pytest.mark.parametrize("name", ["segment", "fault"])
def test_stopped_search_is_never_worse_than_the_heuristic(name, alpha):
    # The bounded search needs minutes on these at depth 4; stopped after one second, the tree
    # it found (CART's at worst) is worse than DPDT's heuristic tree, which the fit then keeps.
    data = dpdt.datasets.load(name)
    X, y = data.X_train, data.y_train
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        stopped = DPDTreeClassifier(max_depth=4, splitter="exhaustive", full_front=False,
                                    alpha=alpha, time_limit=1.0).fit(X, y)
    heuristic = DPDTreeClassifier(max_depth=4, alpha=alpha, full_front=False).fit(X, y)
    assert not stopped.is_optimal_
    assert stopped.objective_ <= heuristic.objective_ + 1e-12
    assert stopped.lower_bound_ <= stopped.objective_
    assert stopped.objective_ == pytest.approx(
        objective(stopped, X, y, None, alpha, "expected_tests"))


def test_lower_bound_is_nan_without_a_certificate():
    X, y = medium(0)
    assert np.isnan(DPDTreeClassifier(max_depth=2).fit(X, y).lower_bound_)
    exhaustive = DPDTreeClassifier(max_depth=2, splitter="exhaustive").fit(X, y)
    assert exhaustive.is_optimal_
    for alpha in (0.0, 0.01, 0.05):
        exhaustive.set_params(alpha=alpha)
        row = exhaustive.pareto_front_[exhaustive._front_index(alpha)]
        assert exhaustive.lower_bound_ == exhaustive.objective_ == pytest.approx(
            row["train_loss"] + alpha * row["complexity"])


def test_changing_alpha_needs_a_refit():
    X, y = medium(1)
    clf = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False,
                            alpha=0.01).fit(X, y)
    clf.predict(X)
    clf.set_params(alpha=0.02)
    with pytest.raises(ValueError, match="refit"):
        clf.predict(X)


@pytest.mark.parametrize("params", [
    dict(min_samples_leaf=3),
    dict(min_samples_split=10),
    dict(splitter=("exhaustive", "cart")),
    dict(max_bins=16),
    dict(feature_costs=[1.0, 2.0, 1.0, 1.0, 0.5]),
])
def test_configurations_without_bounds_keep_the_fronts_row(params):
    X, y = medium(2)
    base = dict(max_depth=2, splitter="exhaustive", alpha=0.01) | params
    full = DPDTreeClassifier(**base).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        single = DPDTreeClassifier(full_front=False, **base).fit(X, y)
    assert len(single.pareto_front_) == 1
    assert_tree_equal(single.tree_, full.tree_)


def test_missing_values_fall_back_to_the_front():
    X, y = medium(3)
    X[::7, 1] = np.nan
    full = DPDTreeClassifier(max_depth=2, splitter="exhaustive").fit(X, y)
    single = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False).fit(X, y)
    assert_tree_equal(single.tree_, full.tree_)


def test_deep_limits():
    # Depth 40 (a limit of 70 on 40 samples): the bounded search, about 800 frames deep.
    X, y = medium(0, n=40, p=2)
    deep = DPDTreeClassifier(max_depth=70, splitter="exhaustive", full_front=False).fit(X, y)
    assert deep.is_optimal_ and deep.score(X, y) == 1.0
    # Beyond 64 levels the front's search serves, and keeps the row of alpha.
    X, y = np.arange(66.0).reshape(-1, 1), np.arange(66) // 3 % 2
    deeper = DPDTreeClassifier(max_depth=70, splitter="exhaustive", full_front=False).fit(X, y)
    assert deeper.is_optimal_ and deeper.score(X, y) == 1.0
    assert len(deeper.pareto_front_) == 1


def fixed_bytes(X, y, **params):
    """The bytes a fit needs before its search (what a memory_limit of 1 is refused with)."""
    with pytest.raises(ValueError) as refused:
        DPDTreeClassifier(memory_limit=1, **params).fit(X, y)
    return int(re.search(r"below the (\d+) bytes", str(refused.value)).group(1))


def fit_limited(X, y, w, limit, **params):
    """A fit stopped by ``limit`` (or not): the model, and the limits its warnings name."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = DPDTreeClassifier(**params, **limit).fit(X, y, sample_weight=w)
    named = [str(c.message).split("=")[0] for c in caught
             if issubclass(c.category, ConvergenceWarning)]
    return clf, named


def assert_certified_gap(clf, named, optimum, true_objective, limit):
    """What a fit stopped by `limit` promises: a tree, its objective and a valid bound."""
    assert named == ([] if clf.is_optimal_ else [limit])
    assert clf.stats_["stopped_by"] in (None, limit)
    assert np.isfinite(clf.lower_bound_)
    assert clf.lower_bound_ <= optimum + 1e-9
    assert clf.objective_ == pytest.approx(true_objective, abs=1e-9)
    assert clf.objective_ >= optimum - 1e-9
    assert clf.stats_["gap"] == pytest.approx(clf.objective_ - clf.lower_bound_, abs=1e-12)
    assert clf.stats_["gap"] >= 0.0


@pytest.mark.parametrize("limit", ["max_states", "memory_limit"])
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_every_limit_returns_a_tree_with_a_certified_bound(seed, depth, limit):
    # Stopped anywhere by its state or memory budget (below what the whole search takes), the
    # bounded search returns a tree and a bound of the optimum, which the recursion over every
    # threshold gives; never an exception.
    X, y, w = small(seed)
    _, y_idx = encode_labels(y)
    weights = np.ones(len(y)) if w is None else w
    stopped = tried = 0
    for alpha in (0.0, 0.03):
        params = dict(max_depth=depth, splitter="exhaustive", full_front=False, alpha=alpha)
        optimum = optimum_by_recursion(X, y_idx, weights, depth, alpha, "expected_tests")
        full = DPDTreeClassifier(**params).fit(X, y, sample_weight=w)
        if limit == "max_states":
            values = range(1, full.stats_["states"])
        else:
            fixed = fixed_bytes(X, y, **params)
            peak = full.stats_["state_bytes"]
            values = [fixed + int(peak * share) for share in (0.1, 0.5, 0.9, 0.99)]
        for value in values:
            clf, named = fit_limited(X, y, w, {limit: value}, **params)
            assert_certified_gap(clf, named, optimum,
                                 objective(clf, X, y, w, alpha, "expected_tests"), limit)
            stopped += clf.stats_["stopped_by"] == limit
            tried += 1
    # (A search of one state has no smaller state budget.)
    assert stopped > 0 or tried == 0


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("limit", ["time_limit", "max_states", "memory_limit"])
def test_a_limit_stops_a_longer_search_with_a_certified_bound(limit, n_jobs):
    # The same on data whose search takes a second or so, each limit at fractions of what
    # the whole search took, against that search's optimum.
    X, y = medium(0, n=1500, p=6)
    params = dict(max_depth=3, splitter="exhaustive", full_front=False, n_jobs=n_jobs)
    full = DPDTreeClassifier(**params).fit(X, y)
    assert full.is_optimal_
    if limit == "time_limit":
        values = [share * full.stats_["seconds"] for share in (0.001, 0.1, 0.5)]
    elif limit == "max_states":
        values = [max(1, int(share * full.stats_["states"])) for share in (0.001, 0.1, 0.5)]
    else:
        fixed = fixed_bytes(X, y, **params)
        values = [fixed + int(share * full.stats_["state_bytes"]) for share in (0.1, 0.6, 0.9)]
    stopped = 0
    for value in values:
        clf, named = fit_limited(X, y, None, {limit: value}, **params)
        assert_certified_gap(clf, named, full.objective_,
                             objective(clf, X, y, None, 0.0, "expected_tests"), limit)
        stopped += clf.stats_["stopped_by"] == limit
    assert stopped > 0


@pytest.mark.parametrize(("seed", "n", "p"), [(1, 600, 8), (2, 1500, 6)])
def test_a_search_stopped_early_bounds_every_root_feature(seed, n, p):
    # Each root feature's first cuts are evaluated before any feature's search goes further,
    # so a search stopped a third of the way through has a bound from every feature: at
    # alpha = 0, where a feature not reached bounds nothing (any split might be perfect), the
    # gap is already well below 100 %.
    X, y = medium(seed, n=n, p=p)
    params = dict(max_depth=3, splitter="exhaustive", full_front=False, n_jobs=1)
    full = DPDTreeClassifier(**params).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_states"):
        stopped = DPDTreeClassifier(**params, max_states=full.stats_["states"] // 3).fit(X, y)
    assert stopped.stats_["stopped_by"] == "max_states"
    assert 0.4 * full.objective_ <= stopped.lower_bound_ <= full.objective_


def test_the_exact_search_keeps_every_threshold_on_large_data():
    # max_bins="auto" bins from 10 000 rows at depth 3; the exact search asked for by
    # splitter="exhaustive", full_front=False then became the front's search on 255 bins: no
    # certificate (lower_bound_ NaN), a worse tree, 33 s instead of 2.
    rng = np.random.default_rng(0)
    X = rng.random((10_000, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=len(X)) > 0.8).astype(int)
    clf = DPDTreeClassifier(max_depth=3, splitter="exhaustive", full_front=False).fit(X, y)
    assert clf.n_bins_ is None
    assert clf.is_optimal_ and clf.lower_bound_ == clf.objective_
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert clf.objective_ <= 1.0 - cart.score(X, y) + 1e-12
