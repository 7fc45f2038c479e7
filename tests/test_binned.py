"""The histogram engine (``max_bins``) and missing values, against exact fits and brute force."""

import itertools

import numpy as np
import pytest
from _trees import assert_tree_equal
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import dpdt
from dpdt import DPDTreeClassifier, DPDTreeRegressor, _binning, to_sklearn

RNG_SEEDS = range(12)


def _small_problem(seed, n_classes=3, missing=0.0):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(6, 40)), int(rng.integers(1, 4))
    X = rng.integers(0, 7, (n, p)).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, rng.integers(0, n_classes, n), rng.random(n) + 0.1


def _front(model):
    return model.pareto_front_[["train_loss", "complexity"]].tolist()


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
def test_one_bin_per_value_gives_the_exact_optimal_front(seed, complexity):
    # With a bin per distinct value every partition of the exact engine is available, so the
    # exhaustive search is optimal in both and the fronts coincide.
    X, y, w = _small_problem(seed)
    params = dict(max_depth=3, splitter="exhaustive", complexity=complexity,
                  min_samples_leaf=1 + seed % 2)
    exact = DPDTreeClassifier(max_bins=None, **params).fit(X, y, w)
    binned = DPDTreeClassifier(max_bins=16, **params).fit(X, y, w)
    assert np.allclose(_front(exact), _front(binned), rtol=0, atol=1e-12)
    wide = DPDTreeClassifier(max_bins=300, **params).fit(X, y, w)   # uint16 codes
    assert np.allclose(_front(exact), _front(wide), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_regression_one_bin_per_value_gives_the_exact_optimal_front(seed):
    X, _, w = _small_problem(seed)
    rng = np.random.default_rng(seed)
    Y = np.column_stack([X[:, 0] + rng.standard_normal(len(X)), rng.standard_normal(len(X))])
    params = dict(max_depth=2, splitter="exhaustive")
    exact = DPDTreeRegressor(max_bins=None, **params).fit(X, Y, w)
    binned = DPDTreeRegressor(max_bins=16, **params).fit(X, Y, w)
    assert np.allclose(_front(exact), _front(binned), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_histograms_found_by_subtraction_give_the_exact_optimal_front(task):
    # Enough samples that states keep their histograms and children get theirs as parent minus
    # sibling; real-valued weights and targets, so only exact (fixed-point) sums keep the fronts
    # equal and the tree independent of the thread count.
    rng = np.random.default_rng(7)
    n = 1500
    X = rng.integers(0, 8, (n, 3)).astype(float)
    w = rng.random(n) + 0.1
    if task == "classification":
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 4, n)) % 3
        make = DPDTreeClassifier
    else:
        y = X[:, 0] * X[:, 1] + 100.0 + rng.standard_normal(n)
        make = DPDTreeRegressor
    params = dict(max_depth=3, splitter="exhaustive")
    exact = make(max_bins=None, **params).fit(X, y, w)
    binned = make(max_bins=16, n_jobs=1, **params).fit(X, y, w)
    assert np.allclose(_front(exact), _front(binned), rtol=1e-9, atol=1e-12)
    threaded = make(max_bins=16, n_jobs=2, **params).fit(X, y, w)
    for a, b in zip(binned.trees_, threaded.trees_, strict=True):
        assert_tree_equal(a, b)
    greedy = dict(max_depth=6, candidates=(3, 2))
    one = make(max_bins=16, n_jobs=1, **greedy).fit(X, y, w)
    two = make(max_bins=16, n_jobs=2, **greedy).fit(X, y, w)
    assert_tree_equal(one.tree_, two.tree_)


def _brute_force_loss(X, y, w, depth):
    """Least weighted misclassification of a tree of depth <= depth whose every split is a
    threshold between present values with missing values sent left or right."""

    def leaf(idx):
        return w[idx].sum() - max((w[idx][y[idx] == k].sum() for k in np.unique(y[idx])),
                                  default=0.0)

    def best(idx, d):
        value = leaf(idx)
        if d == 0 or value == 0:
            return value
        for f in range(X.shape[1]):
            x = X[idx, f]
            present = np.unique(x[~np.isnan(x)])
            for t, missing_left in itertools.product(present, (False, True)):
                go_left = np.where(np.isnan(x), missing_left, x <= t)
                if go_left.all() or not go_left.any():
                    continue
                value = min(value, best(idx[go_left], d - 1) + best(idx[~go_left], d - 1))
        return value

    return best(np.arange(len(y)), depth) / w.sum()


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("max_bins", [16, None])
def test_missing_values_reach_the_brute_force_optimum(seed, depth, max_bins):
    X, y, w = _small_problem(seed, missing=0.3)
    X = X[:12]
    y, w = y[:12], w[:12]
    model = DPDTreeClassifier(max_depth=depth, splitter="exhaustive", max_bins=max_bins)
    model.fit(X, y, w)
    optimum = _brute_force_loss(X, y, w, depth)
    assert model.pareto_front_["train_loss"][0] == pytest.approx(optimum, abs=1e-12)
    # Prediction routes the missing values as the fit did: the reported loss is the loss.
    wrong = model.set_params(alpha=0.0).predict(X) != y
    assert w[wrong].sum() / w.sum() == pytest.approx(optimum, abs=1e-12)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_missing_values_give_the_same_front_exact_and_binned(seed):
    # Two and more classes (the 0-1 scans differ), and regression: with a bin per value both
    # engines offer the same partitions, missing values on either side.
    X, y, w = _small_problem(seed, n_classes=2 + seed % 2, missing=0.25)
    params = dict(max_depth=3, splitter="exhaustive", min_samples_leaf=1 + seed % 2)
    exact = DPDTreeClassifier(max_bins=None, **params).fit(X, y, w)
    binned = DPDTreeClassifier(max_bins=16, **params).fit(X, y, w)
    assert np.allclose(_front(exact), _front(binned), rtol=0, atol=1e-12)
    target = np.nan_to_num(X[:, 0], nan=3.5) + y
    exact = DPDTreeRegressor(max_bins=None, **params).fit(X, target, w)
    binned = DPDTreeRegressor(max_bins=16, **params).fit(X, target, w)
    assert np.allclose(_front(exact), _front(binned), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(exact.predict(X), to_sklearn(exact).predict(X))


@pytest.mark.parametrize("splitter", ["cart", "topk", "topb", "quantile"])
def test_missing_values_in_the_generators_exact_and_binned(splitter):
    # The generators score both sides for the missing values; with a bin per value the binned
    # and exact engines see the same splits, and the tree predicts what it reports.
    rng = np.random.default_rng(5)
    X = rng.integers(0, 10, (600, 4)).astype(float)
    y = ((X[:, 0] > 4) ^ (X[:, 1] > 5)).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    params = dict(max_depth=4, splitter=splitter, candidates=(3, 2))
    exact = DPDTreeClassifier(max_bins=None, **params).fit(X, y)
    binned = DPDTreeClassifier(max_bins=16, **params).fit(X, y)
    for model in (exact, binned):
        wrong = model.set_params(alpha=0.0).predict(X) != y
        assert wrong.mean() == pytest.approx(model.pareto_front_["train_loss"][0], abs=1e-12)
    assert exact.score(X, y) > 0.9


def test_missing_values_beat_scikit_learn_on_xor():
    rng = np.random.default_rng(0)
    X = rng.random((4000, 4))
    y = (X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)
    X[rng.random(X.shape) < 0.1] = np.nan
    ours = DPDTreeClassifier(max_depth=2).fit(X, y)
    theirs = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    assert ours.n_bins_ is None   # "auto" keeps exact thresholds on small data, NaN or not
    assert ours.score(X, y) > theirs.score(X, y) + 0.1
    binned = DPDTreeClassifier(max_depth=2, max_bins=64).fit(X, y)
    assert binned.score(X, y) > theirs.score(X, y) + 0.1


def test_lookahead_refuses_bins_and_missing_values():
    X, y, _ = _small_problem(0, missing=0.3)
    with pytest.raises(ValueError, match="missing values"):
        DPDTreeClassifier(max_bins=None, splitter="lookahead", candidates=(2,)).fit(X, y)
    with pytest.raises(ValueError, match="max_bins"):
        DPDTreeClassifier(max_bins=8, splitter="lookahead", candidates=(2,)).fit(
            np.nan_to_num(X), y)


def test_missing_at_predict_follows_scikit_learn_rule():
    # Fitted without missing values, a NaN goes to the child with more samples, and the
    # scikit-learn copy of the tree predicts the same.
    rng = np.random.default_rng(3)
    X = rng.random((300, 3))
    y = (X[:, 0] > 0.3).astype(int) + (X[:, 1] > 0.6)
    for max_bins in (None, 64):
        model = DPDTreeClassifier(max_depth=3, max_bins=max_bins).fit(X, y)
        tree = model.tree_
        split = ~tree.is_leaf
        bigger_left = (tree.n_node_samples[tree.children_left[split]]
                       > tree.n_node_samples[tree.children_right[split]])
        np.testing.assert_array_equal(tree.missing_go_to_left[split], bigger_left)
        X_test = rng.random((200, 3))
        X_test[rng.random(X_test.shape) < 0.3] = np.nan
        np.testing.assert_array_equal(model.predict(X_test), to_sklearn(model).predict(X_test))
        np.testing.assert_array_equal(model.decision_path(X_test).indices,
                                      to_sklearn(model).decision_path(X_test).indices)


def test_saved_model_keeps_missing_routes(tmp_path):
    X, y, _ = _small_problem(5, missing=0.3)
    model = DPDTreeClassifier(max_depth=3, max_bins=8).fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = dpdt.load(tmp_path / "m.json")
    assert_tree_equal(model.tree_, loaded.tree_)
    np.testing.assert_array_equal(model.predict(X), loaded.predict(X))


def test_bins_hold_the_values_below_their_thresholds(monkeypatch):
    monkeypatch.setattr(_binning, "BINNING_SAMPLES", 500)   # the sampled-edges path
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.standard_normal(3000), rng.integers(0, 5, 3000),
                         np.round(rng.exponential(size=3000), 1)])
    X[rng.random(X.shape) < 0.05] = np.nan
    for max_bins in (4, 40, 255, 1000):
        codes, n_bins, upper = _binning.bin_features(X, max_bins, np.random.RandomState(0))
        assert codes.dtype == (np.uint8 if max_bins <= 255 else np.uint16)
        assert np.all(n_bins <= max_bins)
        start = 0
        for f in range(X.shape[1]):
            edges = upper[start:start + n_bins[f]]
            start += n_bins[f]
            x, c = X[:, f], codes[:, f].astype(int)
            assert np.all(np.diff(edges) > 0)
            assert np.all(np.isin(edges, x))   # every threshold is a training value
            np.testing.assert_array_equal(c[np.isnan(x)], n_bins[f])
            present = ~np.isnan(x)
            for b in range(n_bins[f]):
                np.testing.assert_array_equal(x[present] <= edges[b], c[present] <= b)


def test_auto_bins_large_data(monkeypatch):
    monkeypatch.setattr(_binning, "AUTO_BINNED_SAMPLES", 1000)
    rng = np.random.default_rng(0)
    X = rng.random((1500, 3))
    y = X[:, 0] > 0.4
    assert DPDTreeClassifier().fit(X[:999], y[:999]).n_bins_ is None
    binned = DPDTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(binned.n_bins_, [255, 255, 255])
    assert binned.score(X, y) == 1.0


@pytest.mark.parametrize("splitter", ["cart", "topk", "topb", "quantile", "exhaustive"])
def test_binned_tree_does_not_depend_on_threads(splitter):
    rng = np.random.default_rng(1)
    X = rng.random((600, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0.9).astype(int) + (X[:, 2] > 0.8)
    params = dict(max_depth=3, candidates=(4, 3), splitter=splitter, max_bins=32)
    if splitter == "exhaustive":
        params["max_depth"] = 2
    one = DPDTreeClassifier(n_jobs=1, **params).fit(X, y)
    two = DPDTreeClassifier(n_jobs=2, **params).fit(X, y)
    for a, b in zip(one.trees_, two.trees_, strict=True):
        assert_tree_equal(a, b)


def test_binned_fit_is_never_worse_than_its_greedy_tree():
    # DPDT's guarantee holds on the bins: the (4, 4) tree's objective is at most that of the
    # (1, 1) tree (the greedy one on the same bins).
    rng = np.random.default_rng(2)
    X = rng.random((2000, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) > 0.5) ^ (np.nan_to_num(X[:, 1]) > 0.5)).astype(int)
    greedy = DPDTreeClassifier(max_depth=3, candidates=(1, 1), max_bins=64).fit(X, y)
    dpdt_tree = DPDTreeClassifier(max_depth=3, candidates=(4, 4), max_bins=64).fit(X, y)
    assert dpdt_tree.pareto_front_["train_loss"][0] <= greedy.pareto_front_["train_loss"][0] + 1e-12


@pytest.mark.parametrize("max_bins", [2, 255, 300])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_core_codes_are_numpy_searchsorted(max_bins, n_threads):
    # The core codes every value as numpy's searchsorted(upper_f, x, side="left") would, NaN
    # (which sorts last) included, whatever the number of threads.
    rng = np.random.default_rng(max_bins)
    X = np.column_stack([rng.standard_normal(40_000), rng.integers(0, 9, 40_000),
                         rng.integers(0, 600, 40_000), np.full(40_000, np.nan)]).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    codes, n_bins, upper = _binning.bin_features(X, max_bins, np.random.RandomState(0),
                                                 n_threads=n_threads)
    assert codes.dtype == (np.uint8 if max_bins <= 255 else np.uint16)
    edges = np.split(upper, np.cumsum(n_bins)[:-1])
    expected = np.column_stack([np.searchsorted(e, x, side="left")
                                for e, x in zip(edges, X.T, strict=True)])
    np.testing.assert_array_equal(codes, expected)


def test_core_codes_refuse_inconsistent_bins():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="offset"):
        dpdt._core.bin_codes(X, np.zeros(3), np.array([0, 1, 2]), wide=False)
    with pytest.raises(ValueError, match="at least one bin"):
        dpdt._core.bin_codes(X, np.zeros(2), np.array([0, 0, 2]), wide=False)
    with pytest.raises(ValueError, match="code type"):
        dpdt._core.bin_codes(X, np.zeros(300), np.array([0, 1, 300]), wide=False)


def _reference_uppers(sample, present_max, max_bins):
    """One feature's bin upper values, by numpy: its distinct values, or its inverted-CDF
    quantiles at k / max_bins, then the largest present value closing the last bin."""
    sample = sample[~np.isnan(sample)]
    distinct = np.unique(sample)
    if distinct.size > max_bins:
        levels = np.arange(1, max_bins + 1) / max_bins
        distinct = np.unique(np.quantile(sample, levels, method="inverted_cdf"))
    if np.isnan(present_max):
        return np.zeros(1)
    if distinct.size == 0 or distinct[-1] < present_max:
        distinct = np.append(distinct[distinct < present_max], present_max)
    if distinct.size > max_bins:
        distinct = np.append(distinct[:max_bins - 1], distinct[-1])
    return distinct


@pytest.mark.parametrize("seed", range(6))
def test_core_bin_edges_are_numpy_quantiles(seed, monkeypatch):
    # The core's edges (sorted per feature on threads) against numpy's own quantiles, on columns
    # with ties, missing values, signed zeros, a single value, none present, and sampled rows.
    monkeypatch.setattr(_binning, "BINNING_SAMPLES", 700)
    rng = np.random.default_rng(seed)
    n = 1000 + 97 * seed
    X = np.column_stack([
        rng.standard_normal(n), rng.integers(0, 7, n), np.round(rng.exponential(size=n), 2),
        rng.choice([-0.0, 0.0, 1.5], n), np.full(n, 3.25), np.full(n, np.nan),
        rng.integers(0, 2000, n) * 0.5, rng.pareto(1.5, n)]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    for max_bins in (2, 3, 16, 255, 300):
        for n_threads in (1, 3):
            state = np.random.RandomState(seed)
            codes, n_bins, upper = _binning.bin_features(X, max_bins, state, n_threads=n_threads)
            rows = np.sort(np.random.RandomState(seed).choice(n, 700, replace=False))
            edges = np.split(upper, np.cumsum(n_bins)[:-1])
            for f in range(X.shape[1]):
                present_max = np.fmax.reduce(X[:, f])
                expected = _reference_uppers(X[rows, f], present_max, max_bins)
                np.testing.assert_array_equal(edges[f], expected, err_msg=f"feature {f}")


@pytest.mark.parametrize("order", ["C", "F"])
def test_binning_leaves_the_data_as_it_was(order):
    # The edges come from sorted copies: a Fortran-ordered X (whose transpose is a C view of it)
    # must not be sorted in place.
    rng = np.random.default_rng(7)
    X = np.asarray(rng.standard_normal((500, 4)), order=order)
    X[rng.random(X.shape) < 0.1] = np.nan
    kept = X.copy()
    _binning.bin_features(X, 16, np.random.RandomState(0))
    np.testing.assert_array_equal(X, kept)
    model = DPDTreeClassifier(max_depth=2, max_bins=16).fit(X, (X[:, 0] > 0).astype(int))
    np.testing.assert_array_equal(X, kept)
    assert model.score(X, (X[:, 0] > 0).astype(int)) > 0.9


def _rare_group_problem(task, where, missing, seed=0):
    # 12 of 12 000 samples stand apart in y, at the top of feature 0's range or in a window
    # inside it: quantile bins of about 47 samples each hold them with others, where CART's
    # thresholds isolate them. Automatic bins start at 10 000 samples from depth 3.
    rng = np.random.default_rng(seed)
    n = 12_000
    X = rng.random((n, 4))
    order = np.argsort(X[:, 0])
    group = order[-12:] if where == "top" else order[5000:5012]
    if where == "two features":
        group = np.intersect1d(np.argsort(X[:, 1])[-400:], order[-400:])
    y = (X[:, 2] > 0.5).astype(int)
    if task == "regression":
        y = y + 0.1 * rng.standard_normal(n)
        y[group] += 50.0
    else:
        y[group] = 2
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("where", ["top", "middle", "two features"])
@pytest.mark.parametrize("depth", [3, 5])
@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_automatic_bins_keep_the_fit_at_least_as_good_as_cart(task, where, depth, missing):
    # The DPDT paper's guarantee, binned: the bins of max_bins="auto" hold the thresholds of
    # scikit-learn's CART of the same depth, which quantile bins alone (an explicit max_bins)
    # lose. The rare group, isolated by CART, sits inside a quantile bin.
    X, y = _rare_group_problem(task, where, missing)
    classify = task == "classification"
    cart = (DecisionTreeClassifier if classify else DecisionTreeRegressor)(
        max_depth=depth, random_state=0).fit(X, y)
    kind = DPDTreeClassifier if classify else DPDTreeRegressor
    auto = kind(max_depth=depth).fit(X, y)
    assert auto.n_bins_ is not None and np.all(auto.n_bins_ <= 255)
    # Within rounding: splits whose losses agree to a relative 1e-9 are ties, which the core
    # and scikit-learn break differently.
    assert auto.score(X, y) >= cart.score(X, y) - 1e-9
    quantiles = kind(max_depth=depth, max_bins=255).fit(X, y)
    if where == "top" and not missing:
        assert quantiles.score(X, y) < cart.score(X, y)


def test_kept_edges_replace_the_nearest_quantiles():
    upper = np.arange(10.0)
    np.testing.assert_array_equal(_binning.keep_edges(upper, np.array([2.5]), 20),
                                  np.union1d(upper, [2.5]))
    kept = _binning.keep_edges(upper, np.array([2.5, 7.5]), 10)
    assert len(kept) == 10 and {2.5, 7.5, 9.0} <= set(kept)
    # the uppers dropped are neighbours of the edges in rank
    assert set(upper) - set(kept) <= {2.0, 3.0, 7.0, 8.0}
    # edges that do not fit leave the feature's uppers as they were
    np.testing.assert_array_equal(_binning.keep_edges(upper, np.arange(10) + 0.5, 10), upper)


@pytest.mark.parametrize("n_values, max_bins, certified", [
    (50, 8, False),      # bins merge values: exhaustive over the bins' thresholds only
    (6, 8, True),        # a bin per distinct value: every threshold
    (50, None, True),    # exact thresholds
])
def test_an_exhaustive_search_on_bins_is_certified_only_over_every_threshold(
        n_values, max_bins, certified):
    rng = np.random.default_rng(3)
    X = rng.integers(0, n_values, size=(300, 2)).astype(float)
    y = ((X[:, 0] * 7 + X[:, 1] * 3) % 5 > 2).astype(int)
    est = DPDTreeClassifier(max_depth=2, splitter="exhaustive", max_bins=max_bins).fit(X, y)
    assert est.is_optimal_ is certified
    if certified:
        # The certificate holds against the search over every threshold.
        exact = DPDTreeClassifier(max_depth=2, splitter="exhaustive", max_bins=None).fit(X, y)
        assert est.objective_ == pytest.approx(exact.objective_)


@pytest.mark.parametrize("seed", range(5))
def test_tree_edges_are_the_largest_values_at_most_each_threshold(seed):
    # Definition: each threshold's edge is np.max of the feature's values at most it (none if
    # no value is); on zeros of both signs, NaN and thresholds below every value.
    from types import SimpleNamespace

    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(300, 3)) * 3, 1)
    X[rng.random(X.shape) < 0.2] = -0.0
    X[rng.random(X.shape) < 0.1] = np.nan
    k = 31
    tree = SimpleNamespace(children_left=np.where(rng.random(k) < 0.8, 1, -1),
                           feature=rng.integers(0, 3, k),
                           threshold=np.r_[rng.normal(size=k - 3) * 3, -1e9, 0.0, -0.0])
    edges = _binning.tree_edges(X, tree)
    split = tree.children_left >= 0
    for f in np.unique(tree.feature[split]):
        column = X[:, f]
        uppers = [np.max(column, where=column <= t, initial=-np.inf)
                  for t in np.unique(tree.threshold[split & (tree.feature == f)])]
        expected = np.unique([u for u in uppers if u > -np.inf])
        assert edges[int(f)].tobytes() == expected.tobytes()
    assert set(edges) == {int(f) for f in np.unique(tree.feature[split])}
