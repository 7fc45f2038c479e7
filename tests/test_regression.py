"""DPDTreeRegressor against ground truth.

The objective (squared error, see ``_bruteforce``) is
    train_loss(T) = sum over leaves of sum_i w_i * ||y_i - mean_w(leaf)||^2 / W_total
    objective(T) = train_loss(T) + alpha * complexity(T), ties -> fewer splits.

- exhaustive splitter == brute force over all trees of depth <= 2 on tiny data (objective,
  tie-break, Pareto front, the tree arrays);
- Theorem 5.1: with CART candidates, DPDT's objective <= scikit-learn's CART and every pruning
  of it, on random data and the bundled regression datasets;
- scikit-learn conformance, sample weights, n_jobs determinism, output shapes,
  set_params(alpha) without refit, invariance to a constant added to the targets.
"""

import functools
import heapq
from types import SimpleNamespace
from unittest import mock

import numpy as np
import pytest
from _bruteforce import (
    COMPLEXITIES,
    RegressionEnumeration,
    as_targets,
    candidate_splits,
    expected_front,
    hull_by_definition,
    lower_hull,
    pareto_set,
    regression_pruning_objectives,
    regression_tree_stats,
    tree_complexity,
    weighted_sse,
)
from _trees import assert_tree_equal
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpdt
from dpdt import DPDTreeRegressor

ALPHAS = (0.0, 0.01, 0.05, 0.2, 1.0)
CART_ALPHAS = (0.0, 0.001, 0.01, 0.05)
ATOL = 1e-9
BUNDLED_REGRESSION = ("carbon", "concrete", "fish", "qsar")
STRUCTURE_ARRAYS = ("children_left", "children_right", "feature", "threshold")
FRONT_FIELDS = ("alpha_min", "alpha_max", "train_loss", "complexity", "n_leaves", "depth")


def _tiny(seed, weighted, costed, n_outputs, zero_cost=False):
    """n in 6..10, p in 1..3; even seeds: integer X and y (many duplicates and exact ties)."""
    rng = np.random.default_rng(300 + seed)
    n, p = int(rng.integers(6, 11)), int(rng.integers(1, 4))
    if seed % 2 == 0:
        X = rng.integers(0, 4, size=(n, p)).astype(float)
        y = rng.integers(0, 4, size=(n, n_outputs)).astype(float)
    else:
        X = rng.random((n, p)).round(1)  # a few duplicates too
        y = rng.normal(size=(n, n_outputs)).round(3)
    costs = rng.uniform(0.5, 2.0, p)
    if zero_cost:  # a free feature: the last row of the front is then not a single leaf
        costs[0] = 0.0
    return SimpleNamespace(
        X=X,
        y=y[:, 0] if n_outputs == 1 else y,
        sample_weight=rng.uniform(0.2, 3.0, n) if weighted else None,
        feature_costs=costs if costed else None,
    )


TINY = {
    f"s{seed}-{'w' if weighted else 'u'}{'-cost' if costed else ''}-k{k}": functools.partial(
        _tiny, seed, weighted, costed, k
    )
    for seed in range(6)
    for weighted in (False, True)
    for costed in (False, True)
    for k in (1, 2)
}
TINY["s1-u-zerocost-k1"] = functools.partial(_tiny, 1, False, True, 1, zero_cost=True)
TINY["s4-w-zerocost-k2"] = functools.partial(_tiny, 4, True, True, 2, zero_cost=True)


def _medium(seed, weighted, n_outputs):
    """n ~ 200-400, p ~ 4-6, float32-exact features (scikit-learn routes them identically)."""
    rng = np.random.default_rng(400 + seed)
    n, p = int(rng.integers(200, 401)), int(rng.integers(4, 7))
    X = rng.random((n, p)).astype(np.float32).astype(np.float64)
    y = (X - 0.5) @ rng.normal(size=(p, n_outputs)) + 0.3 * rng.normal(size=(n, n_outputs))
    y[:, 0] += 2.0 * ((X[:, 0] > 0.3) & (X[:, 1] < 0.6)) - 1.5 * (X[:, 2] > 0.7)
    return SimpleNamespace(
        X=X,
        y=y[:, 0] if n_outputs == 1 else y,
        sample_weight=rng.uniform(0.1, 3.0, n) if weighted else None,
        feature_costs=None,
    )


MEDIUM = {
    f"m{seed}-{'w' if weighted else 'u'}-k{k}": functools.partial(_medium, seed, weighted, k)
    for seed, k in ((0, 1), (1, 1), (2, 2), (3, 2))
    for weighted in (False, True)
}


@functools.cache
def tiny_data(name):
    return TINY[name]()


@functools.cache
def medium_data(name):
    return MEDIUM[name]()


@functools.cache
def bundled(name):
    return dpdt.datasets.load(name)


@functools.cache
def bundled_float32(name):
    """Bundled training split with float32-rounded features: CART's thresholds route alike."""
    ds = bundled(name)
    return SimpleNamespace(
        X=ds.X_train.astype(np.float32).astype(np.float64),
        y=ds.y_train,
        sample_weight=None,
        feature_costs=None,
    )


@functools.cache
def tiny_enum(name, depth):
    data = tiny_data(name)
    return RegressionEnumeration(data.X, data.y, data.sample_weight, depth)


def fit(data, **params):
    reg = DPDTreeRegressor(feature_costs=data.feature_costs, **params)
    return reg.fit(data.X, data.y, sample_weight=data.sample_weight)


def fit_tiny(name, depth, **params):
    return fit(tiny_data(name), splitter="exhaustive", max_depth=depth, **params)


def stats(data, tree):
    """Contract quantities of ``tree`` recomputed by routing the data."""
    return regression_tree_stats(tree, data.X, data.y, data.sample_weight, data.feature_costs)


def objective(s, alpha, complexity):
    return s["train_loss"] + alpha * tree_complexity(s, complexity)


def nondegenerate(front):
    return front[front["alpha_max"] > front["alpha_min"]]


def alpha_inside(row):
    """An alpha strictly inside a row's interval."""
    a0, a1 = float(row["alpha_min"]), float(row["alpha_max"])
    return (a0 + a1) / 2 if np.isfinite(a1) else 2 * a0 + 0.5


# --------------------------------------------------------------------------------------------
# The brute force itself
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["s0-w-cost-k1", "s3-u-k2", "s4-w-zerocost-k2"])
def test_bruteforce_regression_is_consistent(name):
    data = tiny_data(name)
    enum = tiny_enum(name, 2)
    Y, w = as_targets(data.y), data.sample_weight
    weights = np.ones(len(Y)) if w is None else w
    # leaf loss against scikit-learn's metric (a single leaf predicts the weighted mean)
    mean = np.average(Y, axis=0, weights=weights)
    mse = mean_squared_error(Y, np.tile(mean, (len(Y), 1)), sample_weight=weights)
    assert weighted_sse(Y, weights) / weights.sum() == pytest.approx(mse * Y.shape[1], rel=1e-12)
    assert enum.train_loss.max() == pytest.approx(mse * Y.shape[1], rel=1e-12)
    # every tree rebuilt in tree_ layout and re-evaluated by routing gives the enumerated values
    for k in np.random.default_rng(0).choice(len(enum), min(40, len(enum)), replace=False):
        s = stats(data, enum.tree(k))
        assert s["train_loss"] == pytest.approx(enum.train_loss[k], abs=1e-12)
        for complexity in COMPLEXITIES:
            assert tree_complexity(s, complexity) == pytest.approx(
                enum.complexity(complexity, data.feature_costs)[k], abs=1e-12
            )
    for complexity in COMPLEXITIES:
        points = enum.points(complexity, data.feature_costs)
        assert_allclose(lower_hull(points), hull_by_definition(points), atol=1e-10)


# --------------------------------------------------------------------------------------------
# Exhaustive splitter == brute force
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("name", TINY)
def test_exhaustive_objective_is_optimal(name, depth, complexity, alpha):
    """Optimal objective; among optimal trees, the fewest splits."""
    data = tiny_data(name)
    reg = fit_tiny(name, depth, alpha=alpha, complexity=complexity)
    s = stats(data, reg.tree_)
    best, n_splits = tiny_enum(name, depth).lexicographic_optimum(
        alpha, complexity, data.feature_costs
    )
    assert s["depth"] <= depth
    assert objective(s, alpha, complexity) == pytest.approx(best, abs=ATOL)
    assert s["n_splits"] == n_splits


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", TINY)
def test_exhaustive_tie_break_at_breakpoints(name, complexity):
    """At an alpha where two front trees tie (a row boundary), the fewer splits win."""
    data = tiny_data(name)
    reg = fit_tiny(name, 2, complexity=complexity)
    enum = tiny_enum(name, 2)
    ends = np.concatenate([reg.pareto_front_["alpha_min"], reg.pareto_front_["alpha_max"]])
    for alpha in np.unique(ends[np.isfinite(ends)]):
        reg.set_params(alpha=float(alpha))
        s = stats(data, reg.tree_)
        obj, n_splits = enum.lexicographic_optimum(alpha, complexity, data.feature_costs)
        assert objective(s, alpha, complexity) == pytest.approx(obj, abs=ATOL), f"alpha={alpha}"
        assert s["n_splits"] == n_splits, f"alpha={alpha}"


@pytest.mark.parametrize("name", TINY)
def test_tree_arrays_match_routed_samples(name):
    """value = weighted leaf means (n_nodes, n_outputs, 1), impurity = weighted node MSE."""
    data = tiny_data(name)
    reg = fit_tiny(name, 2)
    n_outputs = as_targets(data.y).shape[1]
    assert reg.n_outputs_ == n_outputs
    for k, tree in enumerate(reg.trees_):
        s = stats(data, tree)
        msg = f"trees_[{k}]"
        assert np.asarray(tree.value).shape == (tree.node_count, n_outputs, 1)
        assert_allclose(np.asarray(tree.value)[:, :, 0], s["node_mean"], atol=1e-12, err_msg=msg)
        assert_allclose(tree.impurity, s["node_mse"], atol=1e-12, err_msg=msg)
        assert_allclose(tree.weighted_n_node_samples, s["node_weight"], rtol=1e-12, err_msg=msg)
        assert_array_equal(tree.n_node_samples, s["node_count"], err_msg=msg)
        assert tree.max_depth == s["depth"] and tree.n_leaves == s["n_leaves"]


# --------------------------------------------------------------------------------------------
# Pareto front
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", TINY)
def test_pareto_set_and_budgets_are_brute_force(name, complexity):
    data = tiny_data(name)
    reg = fit_tiny(name, 2, complexity=complexity, front="pareto")
    enum = tiny_enum(name, 2)
    C = enum.complexity(complexity, data.feature_costs)
    # regression breaks ties by fewer splits only
    keep = pareto_set(C, enum.train_loss, np.zeros(len(C)), enum.n_splits)
    front = reg.pareto_front_[::-1]
    assert len(front) == len(keep), f"{front}\nvs\n{np.column_stack([C, enum.train_loss])[keep]}"
    assert_allclose(front["complexity"], C[keep], atol=ATOL)
    assert_allclose(front["train_loss"], enum.train_loss[keep], atol=ATOL)
    for budget in np.unique(C):
        reg.select_tree(max_complexity=budget)
        best = enum.train_loss[C <= budget + ATOL].min()
        assert stats(data, reg.tree_)["train_loss"] == pytest.approx(best, abs=ATOL), budget


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("name", TINY)
def test_pareto_front_is_brute_force_hull(name, depth, complexity):
    data = tiny_data(name)
    reg = fit_tiny(name, depth, complexity=complexity)
    front = reg.pareto_front_
    assert set(FRONT_FIELDS) <= set(front.dtype.names)
    hull = lower_hull(tiny_enum(name, depth).points(complexity, data.feature_costs))
    amin, amax, C, L = expected_front(hull)

    rows = nondegenerate(front)
    assert len(rows) == len(hull), f"front {front} vs hull {hull}"
    assert_allclose(rows["complexity"], C, atol=ATOL)
    assert_allclose(rows["train_loss"], L, atol=ATOL)
    assert_allclose(rows["alpha_min"], amin, rtol=1e-9, atol=ATOL)
    assert_allclose(rows["alpha_max"], amax, rtol=1e-9, atol=ATOL)

    assert front["alpha_min"][0] == 0.0 and front["alpha_max"][-1] == np.inf
    assert_array_equal(front["alpha_max"][:-1], front["alpha_min"][1:])
    assert front["complexity"][-1] == 0.0
    if data.feature_costs is None or np.all(data.feature_costs > 0):
        assert front["n_leaves"][-1] == 1
    assert len(reg.trees_) == len(front)
    # A zero-width row is the tree the tie-break selects at exactly alpha = 0: as accurate as
    # the next row, with fewer splits but more complexity (costly features).
    if front["alpha_max"][0] == 0.0:
        assert front["train_loss"][0] == pytest.approx(front["train_loss"][1], abs=ATOL)
        assert front["complexity"][0] > front["complexity"][1]
    for k in np.flatnonzero(front["alpha_max"] == front["alpha_min"]):
        reg.set_params(alpha=float(front["alpha_min"][k]))
        assert_tree_equal(reg.tree_, reg.trees_[k], f"zero-width row {k} is not selected")


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("name", TINY)
def test_pareto_rows_match_their_trees(name, depth, complexity):
    data = tiny_data(name)
    reg = fit_tiny(name, depth, complexity=complexity)
    for k, (row, tree) in enumerate(zip(reg.pareto_front_, reg.trees_, strict=True)):
        s = stats(data, tree)
        assert row["train_loss"] == pytest.approx(s["train_loss"], abs=ATOL), k
        assert row["complexity"] == pytest.approx(tree_complexity(s, complexity), abs=ATOL), k
        assert row["n_leaves"] == s["n_leaves"], k
        assert row["depth"] == s["depth"], k


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", list(TINY)[::4])
def test_front_does_not_depend_on_alpha(name, complexity):
    a = fit_tiny(name, 2, complexity=complexity, alpha=0.0)
    b = fit_tiny(name, 2, complexity=complexity, alpha=0.2)
    assert_array_equal(a.pareto_front_, b.pareto_front_)
    for k, (ta, tb) in enumerate(zip(a.trees_, b.trees_, strict=True)):
        assert_tree_equal(ta, tb, f"trees_[{k}]")


# --------------------------------------------------------------------------------------------
# set_params(alpha=...) after fit
# --------------------------------------------------------------------------------------------
def check_set_alpha_without_refit(data, **params):
    reg = fit(data, alpha=0.0, **params)
    front = reg.pareto_front_
    for k in np.flatnonzero(front["alpha_max"] > front["alpha_min"]):
        alpha = alpha_inside(front[k])
        with mock.patch.object(DPDTreeRegressor, "fit", side_effect=AssertionError("refit")):
            reg.set_params(alpha=alpha)
            assert_tree_equal(reg.tree_, reg.trees_[k], f"alpha={alpha}: row {k}")
            predicted = reg.predict(data.X)
        fresh = fit(data, alpha=alpha, **params)
        assert_tree_equal(reg.tree_, fresh.tree_, f"alpha={alpha}: fresh fit")
        assert_array_equal(predicted, fresh.predict(data.X))
    reg.set_params(alpha=0.0)
    assert_tree_equal(reg.tree_, reg.trees_[0], "alpha=0")


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", list(TINY)[::3])
def test_set_alpha_after_fit_exhaustive(name, complexity):
    check_set_alpha_without_refit(
        tiny_data(name), splitter="exhaustive", max_depth=2, complexity=complexity
    )


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", MEDIUM)
def test_set_alpha_after_fit_cart(name, complexity):
    check_set_alpha_without_refit(medium_data(name), max_depth=3, complexity=complexity)


# --------------------------------------------------------------------------------------------
# Theorem 5.1: DPDT (CART candidates) <= CART and every pruning of CART
# --------------------------------------------------------------------------------------------
@functools.cache
def medium_cart(name, depth):
    data = medium_data(name)
    return DecisionTreeRegressor(max_depth=depth, random_state=0).fit(
        data.X, data.y, sample_weight=data.sample_weight
    )


@functools.cache
def bundled_cart(name, depth):
    data = bundled_float32(name)
    return DecisionTreeRegressor(max_depth=depth, random_state=0).fit(data.X, data.y)


@functools.cache
def bundled_dpdt(name, depth):
    data = bundled_float32(name)
    return DPDTreeRegressor(max_depth=depth).fit(data.X, data.y)


def check_cart_and_prunings(data, sk, reg, alpha, complexity):
    """DPDT's objective <= that of CART and of each of its prunings (recomputed by routing)."""
    sk_stats = stats(data, sk.tree_)
    # the routed CART loss is scikit-learn's own training loss (sum over outputs)
    w = np.ones(len(data.X)) if data.sample_weight is None else data.sample_weight
    err = (as_targets(sk.predict(data.X)) - as_targets(data.y)) ** 2
    assert sk_stats["train_loss"] == pytest.approx(np.sum(w @ err) / w.sum(), rel=1e-9)
    cart_objs = regression_pruning_objectives(
        sk.tree_, data.X, data.y, data.sample_weight, alpha, complexity
    )
    assert cart_objs[-1] == pytest.approx(objective(sk_stats, alpha, complexity), rel=1e-9)
    dpdt_obj = objective(stats(data, reg.tree_), alpha, complexity)
    # relative slack: the losses are sums of thousands of squares
    assert dpdt_obj <= cart_objs.min() * (1 + 1e-9) + ATOL, (dpdt_obj, cart_objs.min())


class CartGeneratorSearch:
    """Brute force over the trees whose splits come from a best-first regression CART.

    At a state with two or more levels left, the candidates are the splits of a CART grown
    best-first on the state's samples until it has ``budget`` splits (ties cannot occur on these
    continuous targets), each applied to the whole state; with one level left, every split.
    """

    def __init__(self, X, Y, w, max_depth, budget):
        self.X, self.Y, self.w = X, Y, w
        self.max_depth, self.budget = max_depth, budget
        self.W_total = float(w.sum())

    def sse(self, idx):
        return weighted_sse(self.Y[idx], self.w[idx])

    def best_split(self, idx):
        parent = self.sse(idx)
        scored = [
            (parent - self.sse(left) - self.sse(right), f, t, left, right)
            for f, t, left, right in candidate_splits(self.X, idx)
        ]
        return max(scored, key=lambda s: s[0]) if scored else None

    def generator_splits(self, idx):
        heap, order, out = [], 0, []

        def consider(node):
            nonlocal order
            if len(node) >= 2 and self.sse(node) > 1e-9 and (split := self.best_split(node)):
                heapq.heappush(heap, (-split[0], order, split))
                order += 1

        consider(idx)
        while heap and len(out) < self.budget:
            _, _, (_, f, t, left, right) = heapq.heappop(heap)
            out.append((f, t))
            consider(left)
            consider(right)
        return out

    def optimum(self, alpha, complexity, idx=None, depth=0):
        idx = np.arange(len(self.X)) if idx is None else idx
        best = self.sse(idx) / self.W_total
        remaining = self.max_depth - depth
        if remaining == 0 or len(idx) < 2:
            return best
        if remaining == 1:
            splits = [(f, t) for f, t, _, _ in candidate_splits(self.X, idx)]
        else:
            splits = self.generator_splits(idx)
        cost = alpha * (self.w[idx].sum() / self.W_total if complexity == "expected_tests" else 1.0)
        for f, t in splits:
            go_left = self.X[idx, f] <= t
            best = min(
                best,
                cost
                + self.optimum(alpha, complexity, idx[go_left], depth + 1)
                + self.optimum(alpha, complexity, idx[~go_left], depth + 1),
            )
        return best


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("seed", range(4))
def test_cart_generator_is_brute_force_over_its_candidates(seed, complexity):
    # Budget 3 at depth 3: the generators' scans of a state's children are reused for the
    # states they are (the solver's split memo), which this checks against a search without it.
    rng = np.random.default_rng(700 + seed)
    n_outputs = 1 + seed % 2
    X = rng.random((40, 3)).round(2)
    Y = rng.normal(size=(40, n_outputs)) + 2.0 * (X[:, :1] > 0.5)
    w = rng.uniform(0.2, 3.0, 40) if seed >= 2 else np.ones(40)
    data = SimpleNamespace(X=X, y=Y[:, 0] if n_outputs == 1 else Y, sample_weight=w,
                           feature_costs=None)
    reg = fit(data, max_depth=3, splitter="cart", candidates=3, complexity=complexity)
    ref = CartGeneratorSearch(X, Y, w, 3, 3)
    for alpha in ALPHAS:
        reg.set_params(alpha=alpha)
        got = objective(stats(data, reg.tree_), alpha, complexity)
        assert got == pytest.approx(ref.optimum(alpha, complexity), rel=1e-9, abs=ATOL), alpha


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", MEDIUM)
def test_train_mse_at_most_cart(name, depth):
    data = medium_data(name)
    reg = fit(data, max_depth=depth)
    sk = medium_cart(name, depth)
    w = data.sample_weight
    assert mean_squared_error(data.y, reg.predict(data.X), sample_weight=w) <= mean_squared_error(
        data.y, sk.predict(data.X), sample_weight=w
    ) * (1 + 1e-9)


@pytest.mark.parametrize("alpha", CART_ALPHAS)
@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", MEDIUM)
def test_at_least_as_good_as_cart_and_its_prunings(name, depth, complexity, alpha):
    data = medium_data(name)
    reg = fit(data, max_depth=depth, alpha=alpha, complexity=complexity)
    check_cart_and_prunings(data, medium_cart(name, depth), reg, alpha, complexity)


def test_bundled_regression_datasets_listed():
    assert dpdt.datasets.list_datasets("regression") == list(BUNDLED_REGRESSION)
    assert bundled("carbon").y_train.shape[1] == 3


@pytest.mark.parametrize("depth", [3, 5])
@pytest.mark.parametrize("name", BUNDLED_REGRESSION)
def test_bundled_train_mse_at_most_cart(name, depth):
    data = bundled_float32(name)
    reg, sk = bundled_dpdt(name, depth), bundled_cart(name, depth)
    dp_mse = mean_squared_error(data.y, reg.predict(data.X))
    sk_mse = mean_squared_error(data.y, sk.predict(data.X))
    assert dp_mse <= sk_mse * (1 + 1e-9), (dp_mse, sk_mse)
    # the front's first row reports the same loss (summed over outputs)
    n_outputs = as_targets(data.y).shape[1]
    assert reg.pareto_front_["train_loss"][0] == pytest.approx(dp_mse * n_outputs, rel=1e-9)


@pytest.mark.parametrize("alpha", CART_ALPHAS)
@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("name", BUNDLED_REGRESSION)
def test_bundled_at_least_as_good_as_cart_prunings(name, complexity, alpha):
    data = bundled_float32(name)
    reg = bundled_dpdt(name, 3)
    if complexity != reg.complexity:
        reg = DPDTreeRegressor(max_depth=3, complexity=complexity).fit(data.X, data.y)
    reg.set_params(alpha=alpha)
    check_cart_and_prunings(data, bundled_cart(name, 3), reg, alpha, complexity)


# --------------------------------------------------------------------------------------------
# scikit-learn conformance
# --------------------------------------------------------------------------------------------
# No expected failures: every check applies to a single-tree regressor and passes.
@parametrize_with_checks(
    [
        DPDTreeRegressor(),
        DPDTreeRegressor(max_depth=2, splitter="exhaustive"),
        DPDTreeRegressor(complexity="n_splits", alpha=0.01, candidates=(3, 1), max_depth=4),
        DPDTreeRegressor(splitter=["quantile", "cart"], candidates=(5, 2), n_jobs=2),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# Weights, threads, shapes
# --------------------------------------------------------------------------------------------
WEIGHT_CASES = {
    "medium-k1": lambda: medium_data("m0-u-k1"),
    "medium-k2": lambda: medium_data("m2-u-k2"),
    "tiny-exhaustive": lambda: tiny_data("s1-u-k2"),
}


def _weight_case_params(case):
    return dict(splitter="exhaustive", max_depth=2) if case.startswith("tiny") else {}


@pytest.mark.parametrize("case", WEIGHT_CASES)
def test_integer_weight_equals_duplicated_rows(case):
    data = WEIGHT_CASES[case]()
    params = _weight_case_params(case)
    k = np.random.default_rng(1).integers(1, 4, len(data.X))
    weighted = DPDTreeRegressor(**params).fit(data.X, data.y, sample_weight=k.astype(float))
    repeated = DPDTreeRegressor(**params).fit(
        np.repeat(data.X, k, axis=0), np.repeat(data.y, k, axis=0)
    )
    # n_node_samples counts rows, which duplication changes; everything else is identical
    assert len(weighted.trees_) == len(repeated.trees_)
    for j, (a, b) in enumerate(zip(weighted.trees_, repeated.trees_, strict=True)):
        assert_tree_equal(a, b, f"trees_[{j}]", skip=("n_node_samples",), rtol=1e-10)
    for field in FRONT_FIELDS:
        assert_allclose(
            weighted.pareto_front_[field], repeated.pareto_front_[field], rtol=1e-9, err_msg=field
        )


@pytest.mark.parametrize("case", WEIGHT_CASES)
def test_zero_weight_equals_removed_row(case):
    data = WEIGHT_CASES[case]()
    params = _weight_case_params(case)
    rng = np.random.default_rng(2)
    sw = rng.uniform(0.5, 2.0, len(data.X))
    sw[rng.choice(len(sw), len(sw) // 4, replace=False)] = 0.0
    kept = sw > 0
    # zero-weight rows get extreme features and targets: they must not shape anything
    X = data.X.copy()
    y = np.array(data.y, dtype=float)
    X[~kept] = 1e3
    y[~kept] = -1e3
    with_zeros = DPDTreeRegressor(**params).fit(X, y, sample_weight=sw)
    removed = DPDTreeRegressor(**params).fit(X[kept], y[kept], sample_weight=sw[kept])
    assert_array_equal(with_zeros.pareto_front_, removed.pareto_front_)
    for j, (a, b) in enumerate(zip(with_zeros.trees_, removed.trees_, strict=True)):
        assert_tree_equal(a, b, f"trees_[{j}]")


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("case", ["m1-w-k1", "m3-w-k2", "carbon", "qsar"])
def test_n_jobs_gives_identical_trees(case, complexity):
    if case in MEDIUM:
        data = medium_data(case)
        X, y, sw = data.X, data.y, data.sample_weight
    else:
        ds = bundled(case)
        X, y, sw = ds.X_train, ds.y_train, None
    a, b = (
        DPDTreeRegressor(max_depth=4, complexity=complexity, n_jobs=n_jobs).fit(
            X, y, sample_weight=sw
        )
        for n_jobs in (1, 2)
    )
    assert_array_equal(a.pareto_front_, b.pareto_front_)
    for k, (ta, tb) in enumerate(zip(a.trees_, b.trees_, strict=True)):
        assert_tree_equal(ta, tb, f"trees_[{k}]")


@pytest.mark.parametrize("n_outputs", [1, 2, 3])
def test_prediction_shapes_and_values(n_outputs):
    data = medium_data("m2-u-k2")
    y = np.column_stack([data.y, data.y[:, :1] ** 2])[:, :n_outputs]
    for target, shape in ((y, (len(y), n_outputs)), (y[:, 0], (len(y),))):
        reg = DPDTreeRegressor(max_depth=3).fit(data.X, target)
        pred = reg.predict(data.X)
        expected_shape = (len(y),) if n_outputs == 1 or target.ndim == 1 else shape
        assert pred.shape == expected_shape
        # each prediction is the stored mean of the sample's leaf
        leaves = reg.apply(data.X)
        assert_array_equal(as_targets(pred), reg.tree_.value[leaves, :, 0])
        sk = DecisionTreeRegressor(max_depth=3, random_state=0).fit(data.X, target)
        assert pred.shape == sk.predict(data.X).shape
        # DPDT's objective (Theorem 5.1): the squared error summed over outputs, which the
        # variance-weighted R^2 orders (score's uniform average of per-output R^2 need not).
        assert (r2_score(target, pred, multioutput="variance_weighted")
                >= r2_score(target, sk.predict(data.X), multioutput="variance_weighted") - 1e-12)


# --------------------------------------------------------------------------------------------
# Numerical robustness: a constant added to the targets changes nothing but the leaf values
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("offset", [1e3, 1e6])
@pytest.mark.parametrize("name", ["m0-u-k1", "m3-w-k2"])
def test_target_offset_changes_only_the_leaf_values(name, offset):
    data = medium_data(name)
    base = fit(data, max_depth=3)
    shifted_data = SimpleNamespace(**{**vars(data), "y": data.y + offset})
    shifted = fit(shifted_data, max_depth=3)
    for array in STRUCTURE_ARRAYS:
        assert_array_equal(getattr(shifted.tree_, array), getattr(base.tree_, array), err_msg=array)
    # the loss of the shifted fit, as reported and as recomputed, is the unshifted one
    loss = stats(data, base.tree_)["train_loss"]
    assert stats(shifted_data, shifted.tree_)["train_loss"] == pytest.approx(loss, rel=1e-6)
    assert shifted.pareto_front_["train_loss"][0] == pytest.approx(loss, rel=1e-6)
    check_cart_and_prunings(
        shifted_data,
        DecisionTreeRegressor(max_depth=3, random_state=0).fit(
            shifted_data.X, shifted_data.y, sample_weight=data.sample_weight
        ),
        shifted,
        0.0,
        "expected_tests",
    )


def test_centre_of_the_targets_is_the_mean_whatever_the_order_or_parts():
    from dpdt._objectives import SQUARED_ERROR

    rng = np.random.default_rng(7)
    y = np.column_stack([rng.normal(3.0, 1.0, 5000), rng.lognormal(0.0, 2.0, 5000) * 1e-3])
    w = rng.uniform(0.01, 1.0, 5000)
    scale = SQUARED_ERROR.scale_of(y, w)
    assert_allclose(scale.offset, np.average(y, axis=0, weights=w), rtol=1e-13)
    order = rng.permutation(5000)
    assert_array_equal(SQUARED_ERROR.scale_of(y[order], w[order]).offset, scale.offset)
    # As a fit over machines finds it: the same reductions, over parts of the rows.
    cuts = [(0, 1), (1, 1), (1, 3333), (3333, 5000)]
    kept = [dict(SQUARED_ERROR.kept_summary(y[a:b], w[a:b]), rows=b - a) for a, b in cuts]
    parted = SQUARED_ERROR.fit_scale(
        kept, lambda function, *args: [function(y[a:b], w[a:b], *args) for a, b in cuts])
    assert (parted.first, parted.shift) == (scale.first, scale.shift)
    assert_array_equal(parted.centre, scale.centre)
    assert_array_equal(SQUARED_ERROR.scale_of(np.zeros((3, 1)), np.ones(3)).offset, [0.0])
