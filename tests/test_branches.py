"""BranchesClassifier (BRANCHES, Chaouki, Read and Bifet, ICML 2025) against ground truth.

- brute force over every multiway tree on tiny categorical data: the best
  H = weighted accuracy - lam * splits equals ``objective_`` and is certified
  (``is_optimal_``, ``upper_bound_ == objective_``), with and without sample weights and
  ``max_depth``, for penalties from 0 to one that forces a single leaf;
- the tree returned achieves ``objective_`` when the training samples are routed through
  ``tree_``, and its node statistics (``n_node_samples``, ``value``, edges) are those of the
  routed samples;
- on binary features a multiway split is a binary split: BRANCHES with ``max_depth=D`` reaches
  the optimum of DPDT's exhaustive search with ``complexity="n_splits"``;
- unknown categories at predict, DataFrames of strings and categories, numeric binning,
  ``time_limit`` and scikit-learn conformance.
"""

import functools
import math
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpdt
import dpdt._branches
import dpdt._export
from dpdt import BranchesClassifier, DPDTreeClassifier, MultiwayGreedyClassifier
from dpdt._branches import ManyValuesWarning

DATA = Path(__file__).parent / "data"
ATOL = 1e-9
LAMS = (0.0, 0.01, 0.05, 0.1, 0.25, 1.0)   # 1.0 exceeds any gain in accuracy: a single leaf
DEPTHS = (None, 1, 2)
# Best objective the published BRANCHES reached on one-hot tic-tac-toe with lam = 0.005
# (benchmarks/data/categorical/branches_reference.csv, rounded to 6 decimals): a tree of that
# value exists, so a certified upper bound cannot be below it.
TICTACTOE_LAM = 0.005
TICTACTOE_BEST_KNOWN = 0.816221


# --------------------------------------------------------------------------------------------
# Brute force
# --------------------------------------------------------------------------------------------
def tree_values(X, y, w, n_classes, depth=None, idx=None, dedupe=True):
    """Return (weighted correct, n_splits) of every multiway tree on the samples ``idx``.

    A tree is a leaf, predicting the weighted majority of its samples, or a split of its
    samples on one feature with at least two categories among them into one subtree per
    category present; ``depth`` (None: unlimited) bounds the number of splits on a path. Every
    tree is enumerated: the candidate subtrees of the children are combined in every way.
    With ``dedupe`` the result is a set (trees of equal accuracy and size have equal
    objectives), else a list with one entry per tree.
    """
    if idx is None:
        idx = np.arange(len(y))
    leaf = np.bincount(y[idx], weights=w[idx], minlength=n_classes).max()
    values = [(leaf, 0)]
    if depth != 0:
        child_depth = None if depth is None else depth - 1
        for f in range(X.shape[1]):
            categories = np.unique(X[idx, f])
            if len(categories) < 2:
                continue
            combined = [(0.0, 1)]
            for c in categories:
                child = tree_values(X, y, w, n_classes, child_depth, idx[X[idx, f] == c], dedupe)
                combined = [(a + b, s + t) for a, s in combined for b, t in child]
                combined = set(combined) if dedupe else combined
            values.extend(combined)
    return set(values) if dedupe else values


def best_objective(values, total, lam):
    return max(correct / total - lam * splits for correct, splits in values)


def internal_codes(X, kept=None):
    """Category codes as the estimator assigns them: positions among the sorted distinct values
    of the training samples (``kept``: those of positive weight); other values get -1."""
    kept = np.ones(len(X), dtype=bool) if kept is None else kept
    codes = []
    for column in X.T:
        table = np.unique(column[kept])
        position = np.clip(np.searchsorted(table, column), 0, len(table) - 1)
        codes.append(np.where(table[position] == column, position, -1))
    return np.column_stack(codes)


def route(tree, codes):
    """Nodes visited by each row of ``codes``, walking the edge arrays (not ``tree.apply``)."""
    paths = []
    for row in codes:
        node, path = 0, [0]
        while tree.feature[node] >= 0:
            edges = range(tree.edge_begin[node], tree.edge_begin[node + 1])
            nxt = [tree.edge_child[e] for e in edges
                   if tree.edge_category[e] == row[tree.feature[node]]]
            if not nxt:
                break
            assert len(nxt) == 1, f"node {node}: two edges for one category"
            node = int(nxt[0])
            path.append(node)
        paths.append(path)
    return paths


def check_routed_tree(clf, X, y, sample_weight, lam, max_depth=None, codes=None):
    """The tree achieves ``objective_`` on the routed training samples and its node arrays are
    those of the samples reaching each node."""
    tree = clf.tree_
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    kept = w > 0
    codes = internal_codes(np.asarray(X), kept) if codes is None else codes
    y_idx = np.searchsorted(clf.classes_, y)
    n_classes = len(clf.classes_)
    paths = route(tree, codes)
    leaves = np.array([path[-1] for path in paths])
    # A sample of zero weight is no training sample: it may stop at a split node.
    assert np.all(tree.feature[leaves[kept]] == -1), "a training sample stopped at a split node"
    assert_array_equal(leaves, tree.apply(codes))
    assert_array_equal(leaves, clf.apply(X))

    assert tree.node_count == len(tree.feature) == len(tree.edge_begin) - 1
    assert tree.n_splits == int(np.sum(tree.feature >= 0))
    assert tree.n_leaves == tree.node_count - tree.n_splits
    assert tree.max_depth == max(len(paths[i]) for i in np.flatnonzero(kept)) - 1
    if max_depth is not None:
        assert tree.max_depth <= max_depth
    for node in range(tree.node_count):
        members = np.array([i for i, path in enumerate(paths) if node in path and kept[i]],
                           dtype=int)
        assert members.size > 0, f"node {node} reached by no training sample"
        assert tree.n_node_samples[node] == members.size, f"n_node_samples of node {node}"
        counts = np.bincount(y_idx[members], weights=w[members], minlength=n_classes)
        assert_allclose(tree.value[node], counts / counts.sum(), atol=ATOL,
                        err_msg=f"value of node {node}")
        edges = slice(tree.edge_begin[node], tree.edge_begin[node + 1])
        if tree.feature[node] < 0:
            assert tree.edge_begin[node] == tree.edge_begin[node + 1]
            continue
        present = np.unique(codes[members, tree.feature[node]])
        assert present.size >= 2, f"node {node} splits a feature with one category"
        assert_array_equal(np.sort(tree.edge_category[edges]), present)
        assert np.all(tree.edge_child[edges] > node), "nodes are not in preorder"

    predicted = np.argmax(tree.value[leaves], axis=1)   # ties: the lowest class
    accuracy = np.sum(w * (predicted == y_idx)) / w.sum()
    assert clf.score(X, y, sample_weight=w) == pytest.approx(accuracy, abs=ATOL)
    assert accuracy - lam * tree.n_splits == pytest.approx(clf.objective_, abs=ATOL)


# --------------------------------------------------------------------------------------------
# Tiny categorical data
# --------------------------------------------------------------------------------------------
def _tiny(seed, weighted):
    """n in 6..12, 1-3 features of 2-3 categories, 2-3 classes; labels partly a function of
    the features, so that deep trees can pay; odd seeds use non-contiguous codes."""
    rng = np.random.default_rng(300 + seed)
    q = min(3, 1 + seed % 4)
    n = int(rng.integers(6, 13))
    k = 2 + seed % 2
    X = rng.integers(0, rng.integers(2, 4, size=q), size=(n, q))
    y = np.where(rng.random(n) < 0.6, (X[:, 0] + X[:, -1]) % k, rng.integers(0, k, n))
    y[:2] = [0, 1]
    if seed % 2:
        X = 2 * X + 1
    weight = rng.uniform(0.2, 3.0, n) if weighted else None
    return SimpleNamespace(X=X, y=y, sample_weight=weight)


def _tiny_many_classes(seed, weighted):
    """n in 10..16, 3 features (binary for even seeds), 4-5 classes: the class bound (s splits
    reach at most 1 + s (C - 1) leaves, so at most that many classes) prunes here."""
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(10, 17))
    k = 4 + seed % 2
    X = rng.integers(0, 2 if seed % 2 == 0 else 3, size=(n, 3))
    y = np.where(rng.random(n) < 0.7, (X[:, 0] + 2 * X[:, 1] + X[:, 2]) % k, rng.integers(0, k, n))
    weight = rng.uniform(0.2, 3.0, n) if weighted else None
    return SimpleNamespace(X=X, y=y, sample_weight=weight)


TINY = {f"t{seed}-{'w' if weighted else 'u'}": functools.partial(_tiny, seed, weighted)
        for seed in range(12) for weighted in (False, True)}
TINY |= {f"c{seed}-{'w' if weighted else 'u'}":
         functools.partial(_tiny_many_classes, seed, weighted)
         for seed in range(6) for weighted in (False, True)}


@functools.cache
def tiny_data(name):
    return TINY[name]()


@functools.cache
def tiny_values(name, depth):
    data = tiny_data(name)
    w = np.ones(len(data.y)) if data.sample_weight is None else data.sample_weight
    classes, y_idx = np.unique(data.y, return_inverse=True)
    return tree_values(data.X, y_idx, w, len(classes), depth), w.sum()


def test_brute_force_enumerates_every_tree():
    # 3 features of 3 categories, every combination present once. A branch with j unused
    # features has T(j) = 1 + j * T(j - 1)**3 trees: T(0) = 1, T(1) = 2, T(2) = 17, T(3) = 14740.
    X = np.array([[a, b, c] for a in range(3) for b in range(3) for c in range(3)])
    y = (X.sum(axis=1) % 2).astype(int)
    w = np.ones(len(X))
    trees = tree_values(X, y, w, 2, dedupe=False)
    assert len(trees) == 1 + 3 * 17**3
    assert max(s for _, s in trees) == 1 + 3 + 9
    assert max(c for c, _ in trees) == len(X)               # the full tree is pure
    assert sum(s == 0 for _, s in trees) == 1
    assert sum(s == 1 for _, s in trees) == 3
    assert len(tree_values(X, y, w, 2, depth=1, dedupe=False)) == 1 + 3
    assert set(trees) == tree_values(X, y, w, 2)


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name", TINY)
def test_objective_equals_brute_force(name, depth, lam):
    data = tiny_data(name)
    values, total = tiny_values(name, depth)
    clf = BranchesClassifier(lam=lam, max_depth=depth).fit(data.X, data.y,
                                                           sample_weight=data.sample_weight)
    assert clf.objective_ == pytest.approx(best_objective(values, total, lam), abs=ATOL)
    assert clf.is_optimal_
    assert clf.upper_bound_ == clf.objective_
    assert clf.n_iterations_ >= 1 and clf.n_branches_ >= 1
    check_routed_tree(clf, data.X, data.y, data.sample_weight, lam, depth)
    if lam >= 1.0:
        assert clf.tree_.n_splits == 0 and clf.tree_.node_count == 1


@pytest.mark.parametrize("name", ["t3-u", "t6-w", "t11-w"])
def test_generous_time_limit_changes_nothing(name):
    data = tiny_data(name)
    free = BranchesClassifier(lam=0.01).fit(data.X, data.y, sample_weight=data.sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        limited = BranchesClassifier(lam=0.01, time_limit=60).fit(
            data.X, data.y, sample_weight=data.sample_weight)
    assert limited.is_optimal_
    assert limited.objective_ == free.objective_
    for name_ in ("feature", "edge_begin", "edge_category", "edge_child", "value",
                  "n_node_samples"):
        assert_array_equal(getattr(limited.tree_, name_), getattr(free.tree_, name_))


@pytest.mark.parametrize("name", ["t2-w", "t7-w", "t10-w"])
def test_zero_weight_is_a_removed_sample(name):
    data = tiny_data(name)
    w = data.sample_weight.copy()
    w[::3] = 0.0
    kept = w > 0
    zeroed = BranchesClassifier(lam=0.02).fit(data.X, data.y, sample_weight=w)
    removed = BranchesClassifier(lam=0.02).fit(data.X[kept], data.y[kept],
                                               sample_weight=w[kept])
    assert zeroed.objective_ == pytest.approx(removed.objective_, abs=ATOL)
    assert_array_equal(zeroed.predict(data.X[kept]), removed.predict(data.X[kept]))
    check_routed_tree(zeroed, data.X, data.y, w, 0.02)


def test_zero_weight_samples_do_not_shape_the_bins():
    rng = np.random.default_rng(1)
    X = rng.random((60, 2))
    y = (X[:, 0] + 0.3 * rng.random(60) > 0.6).astype(int)
    w = np.where(np.arange(60) < 20, 0.0, rng.uniform(0.5, 2.0, 60))
    kept = w > 0
    zeroed = BranchesClassifier(lam=0.0, max_depth=2, max_bins=4).fit(X, y, sample_weight=w)
    removed = BranchesClassifier(lam=0.0, max_depth=2, max_bins=4).fit(X[kept], y[kept],
                                                                      sample_weight=w[kept])
    assert zeroed.objective_ == pytest.approx(removed.objective_, abs=ATOL)
    assert_array_equal(zeroed.predict(X), removed.predict(X))


# --------------------------------------------------------------------------------------------
# Binary features: BRANCHES is the exhaustive binary search with n_splits complexity
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_binary_features_match_dpdt_exhaustive(seed, depth):
    rng = np.random.default_rng(400 + seed)
    n, q, k = int(rng.integers(6, 13)), int(rng.integers(2, 5)), 2 + seed % 2
    X = rng.integers(0, 2, size=(n, q))
    y = np.where(rng.random(n) < 0.6, (X[:, 0] ^ X[:, 1]) % k, rng.integers(0, k, n))
    y[:2] = [0, 1]
    w = rng.uniform(0.2, 3.0, n) if seed % 2 else None
    dpdt = DPDTreeClassifier(splitter="exhaustive", complexity="n_splits", max_depth=depth)
    dpdt.fit(X, y, sample_weight=w)
    assert dpdt.is_optimal_
    for lam in (0.0, 0.02, 0.1, 0.3):
        dpdt.set_params(alpha=lam)
        loss = 1 - dpdt.score(X, y, sample_weight=w)
        splits = dpdt.tree_.node_count - dpdt.tree_.n_leaves
        front = dpdt.pareto_front_
        assert loss + lam * splits == pytest.approx(
            np.min(front["train_loss"] + lam * front["complexity"]), abs=ATOL)
        clf = BranchesClassifier(lam=lam, max_depth=depth).fit(X, y, sample_weight=w)
        assert clf.is_optimal_
        assert clf.objective_ == pytest.approx(1 - (loss + lam * splits), abs=ATOL), lam
        check_routed_tree(clf, X, y, w, lam, depth)


# --------------------------------------------------------------------------------------------
# Prediction: unknown categories, DataFrames, numeric columns
# --------------------------------------------------------------------------------------------
def _shop():
    """Colour decides, except red, where size decides; red never has size L.

    13 rows, 7 "no" (the root's majority), red has 3 "yes" and 2 "no" (its majority "yes").
    The optimal tree for small lam: colour at the root, size under red (two splits).
    """
    rows = ([("green", size, "no") for size in "SMLSM"] + [("blue", size, "yes") for size in "SML"]
            + [("red", "S", "yes")] * 3 + [("red", "M", "no")] * 2)
    X = pd.DataFrame([row[:2] for row in rows], columns=["colour", "size"])
    y = np.array([row[2] for row in rows])
    new = pd.DataFrame([("purple", "S"), ("red", "L"), ("red", "XL"), ("green", "XL"),
                        ("blue", "S"), ("red", "M")], columns=["colour", "size"])
    return X, y, new


def _as(kind, X, new):
    if kind == "frame":
        return X, new
    if kind == "category":
        dtype = pd.CategoricalDtype(sorted(set(X["colour"]) | set(X["size"]) | {"purple", "XL"}))
        return X.astype(dtype), new.astype(dtype)
    if kind == "strings":
        return X.to_numpy().astype(str), new.to_numpy().astype(str)
    # Integer codes; 7 and 9 never occur in training.
    table = {"blue": 0, "green": 1, "red": 2, "purple": 7, "S": 0, "M": 1, "L": 2, "XL": 9}
    return (X.apply(lambda c: c.map(table)).to_numpy(),
            new.apply(lambda c: c.map(table)).to_numpy())


@pytest.mark.parametrize("kind", ["frame", "category", "strings", "codes"])
def test_unknown_categories_stop_at_their_node(kind):
    X, y, new = _shop()
    X, new = _as(kind, X, new)
    clf = BranchesClassifier(lam=0.01).fit(X, y)
    assert clf.is_optimal_
    assert_array_equal(clf.classes_, ["no", "yes"])
    assert_array_equal(clf.predict(X), y)            # round trip
    assert clf.score(X, y) == 1.0
    tree = clf.tree_
    assert tree.n_splits == 2 and tree.feature[0] == 0
    red = [child for _, child in tree.children(0) if tree.feature[child] >= 0]
    assert len(red) == 1 and tree.feature[red[0]] == 1
    red = red[0]
    leaves = clf.apply(X)
    green, blue, red_m = leaves[0], leaves[5], leaves[11]
    # purple: unseen anywhere -> root; red L: L seen, but not among red -> red node;
    # red XL, green XL: unseen size -> red node / green leaf (no test there).
    assert_array_equal(clf.apply(new), [0, red, red, green, blue, red_m])
    assert_array_equal(clf.predict(new), ["no", "yes", "yes", "no", "yes", "no"])
    proba = clf.predict_proba(new)
    assert_allclose(proba[0], [7 / 13, 6 / 13])
    assert_allclose(proba[1], [2 / 5, 3 / 5])
    if kind in ("frame", "category"):
        assert_array_equal(clf.feature_names_in_, ["colour", "size"])
    check_routed_tree(clf, X, y, None, 0.01)


def test_max_bins_bins_numeric_columns():
    x = np.arange(100, dtype=float)
    y = (x >= 50).astype(int)
    X = x[:, None]
    unseen = np.array([[10.5], [60.3], [1000.0], [-5.0], [74.0]])
    binned = BranchesClassifier(lam=0.01, max_bins=4).fit(X, y)
    assert binned.is_optimal_ and binned.score(X, y) == 1.0
    assert 2 <= len(binned.tree_.children(0)) <= 4
    assert_array_equal(binned.predict(unseen), [0, 1, 1, 0, 1])
    assert np.all(binned.apply(unseen) != 0)         # a bin, never an unknown category

    with pytest.warns(ManyValuesWarning, match="feature 0 \\(100\\)"):
        exact = BranchesClassifier(lam=0.01).fit(X, y)   # every distinct value is a category
    assert len(exact.tree_.children(0)) == 100
    assert_array_equal(exact.apply(unseen[:4]), 0)   # unseen values stop at the root
    assert_array_equal(exact.predict(unseen[:4]), 0)  # 50/50: the lowest class
    assert_array_equal(exact.predict(unseen[4:]), 1)  # 74.0 was seen


def assert_same_encoding_and_tree(a, b):
    """Two fits encoded the features alike and found the same tree."""
    for (kind_a, table_a), (kind_b, table_b) in zip(a._codes.encoders_, b._codes.encoders_,
                                                    strict=True):
        assert kind_a == kind_b
        assert_array_equal(table_a, table_b)
    assert a.objective_ == b.objective_
    assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert_array_equal(a.tree_.edge_category, b.tree_.edge_category)


@pytest.mark.parametrize("max_bins", [None, 3, 40])
@pytest.mark.parametrize("values", ["ties", "continuous", "signed_zeros"])
def test_float_arrays_encode_as_their_columns_one_by_one(values, max_bins):
    # A float array is encoded all columns at once; a DataFrame column by column. Same codes,
    # tables and trees (bins where a column has more than max_bins values).
    rng = np.random.default_rng(2)
    X = rng.integers(-3, 4, size=(50, 4)).astype(float) / 2
    if values == "continuous":
        X[:, 1:] = rng.normal(size=(50, 3))
    elif values == "signed_zeros":
        X[:, 0] = np.where(rng.random(50) < 0.5, -0.0, 0.0)
    y = (X[:, 1] > np.median(X[:, 1])).astype(int) ^ (rng.random(50) < 0.2)
    weight = rng.integers(0, 3, size=50).astype(float)   # zero weights: rows not encoded
    with warnings.catch_warnings():
        # Continuous columns without bins are a category per value, as this test wants.
        if values == "continuous" and max_bins is None:
            warnings.simplefilter("ignore", ManyValuesWarning)
        from_array = BranchesClassifier(lam=0.01, max_bins=max_bins, max_depth=2).fit(
            X, y, sample_weight=weight)
        from_columns = BranchesClassifier(lam=0.01, max_bins=max_bins, max_depth=2).fit(
            pd.DataFrame(X), y, sample_weight=weight)
    assert_same_encoding_and_tree(from_array, from_columns)
    unseen = rng.normal(size=(20, 4))
    assert_array_equal(from_array.predict(unseen), from_columns.predict(pd.DataFrame(unseen)))


@pytest.mark.parametrize("max_bins", [None, 3])
@pytest.mark.parametrize("values", ["codes", "negative", "sparse", "extreme", "unsigned", "huge"])
def test_integer_arrays_encode_as_their_float_copies(values, max_bins):
    # Integer arrays take their own vectorised encoding, float arrays another. Both must give
    # the same codes, bins, trees and predictions, on every kind of integer column.
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(60, 3))
    if values == "negative":
        X = X - 2
    elif values == "sparse":
        X = X * 10**6
    elif values == "extreme":
        X[:, 0] = np.where(X[:, 0] > 1, np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    elif values == "unsigned":
        X = X.astype(np.uint64) + np.uint64(2**53 - 4)
    elif values == "huge":   # distinct integers, one float: encoded as the floats they become
        X = X.astype(np.uint64) + np.uint64(2**63)
    y = (X[:, 1] > np.median(X[:, 1])).astype(int) ^ (rng.random(60) < 0.2)
    weight = rng.integers(0, 3, size=60).astype(float)   # zero weights: rows not encoded
    as_int = BranchesClassifier(lam=0.01, max_bins=max_bins).fit(X, y, sample_weight=weight)
    as_float = BranchesClassifier(lam=0.01, max_bins=max_bins).fit(X.astype(float), y,
                                                                   sample_weight=weight)
    assert_same_encoding_and_tree(as_int, as_float)
    assert_array_equal(as_int.apply(X), as_float.apply(X.astype(float)))


def test_dataframe_mixing_strings_and_numbers():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"city": rng.choice(["lyon", "oslo", "rome"], n),
                          "age": rng.normal(40, 12, n),
                          "member": rng.random(n) < 0.5})
    y = np.where(frame["city"] == "oslo", "stay", np.where(frame["age"] > 45, "stay", "leave"))
    clf = BranchesClassifier(lam=0.005, max_bins=8).fit(frame, y)
    assert clf.is_optimal_
    assert clf.score(frame, y) - 0.005 * clf.tree_.n_splits == pytest.approx(clf.objective_,
                                                                               abs=ATOL)
    new = pd.DataFrame({"city": ["oslo", "paris", "rome"], "age": [99.5, 30.1, 60.7],
                        "member": [True, False, True]})
    predicted = clf.predict(new)
    assert set(predicted) <= {"leave", "stay"}
    assert predicted[0] == "stay"
    assert clf.score(frame, y) >= 0.9


@pytest.mark.parametrize("estimator", [BranchesClassifier(lam=0.0), MultiwayGreedyClassifier()])
def test_missing_values_are_one_category_whatever_their_kind(estimator):
    # NaN in a numeric column and None, NaN or NA in a column of strings are each one category,
    # the same for every kind of missing value, at fit and at predict.
    rng = np.random.default_rng(3)
    n = 60
    city = rng.choice(["lyon", "oslo", "rome", "?"], n)
    size = rng.choice([1.0, 2.0, 3.0, np.nan], n)
    y = (city == "?") ^ np.isnan(size)
    kinds = np.array([None, np.nan, pd.NA], dtype=object)[np.arange(n) % 3]
    frame = pd.DataFrame({"city": np.where(city == "?", kinds, city).astype(object),
                          "size": size})
    model = estimator.fit(frame, y)
    assert model.score(frame, y) == 1.0
    # The same tree as with the missing values spelt out as a category and a number.
    spelt = frame.assign(city=np.where(city == "?", "nan", city), size=np.nan_to_num(size, nan=9))
    reference = type(estimator)(**estimator.get_params()).fit(spelt, y)
    assert_array_equal(model.tree_.feature, reference.tree_.feature)
    assert_array_equal(model.tree_.edge_category, reference.tree_.edge_category)
    assert_array_equal(model.apply(frame), reference.apply(spelt))
    # Each kind alone at predict goes where the others went.
    for kind in (None, np.nan, pd.NA):
        row = pd.DataFrame({"city": pd.Series([kind], dtype=object), "size": [np.nan]})
        assert_array_equal(model.apply(row), reference.apply(
            pd.DataFrame({"city": ["nan"], "size": [9.0]})))


@pytest.mark.parametrize("max_bins", [None, 2])
def test_numeric_missing_values_survive_binning_and_saving(max_bins, tmp_path):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 5, size=(80, 2)).astype(float)
    X[rng.random(80) < 0.2, 0] = np.nan
    y = np.isnan(X[:, 0]) | (X[:, 1] > 2)
    clf = BranchesClassifier(lam=0.0, max_bins=max_bins).fit(X, y)
    assert clf.score(X, y) == 1.0
    kind, table = clf._codes.encoders_[0]
    assert np.isnan(table[-1]) and not np.isnan(table[:-1]).any()
    codes = clf._codes.transform(X)[:, 0]
    assert np.unique(codes[np.isnan(X[:, 0])]).tolist() == [clf._codes.n_codes()[0] - 1]
    assert not np.isin(codes[~np.isnan(X[:, 0])], codes[np.isnan(X[:, 0])]).any()
    clf.save(tmp_path / "model.json")
    assert_array_equal(dpdt.load(tmp_path / "model.json").predict(X), clf.predict(X))
    # A column without missing values in training has no code for them: unseen, -1.
    clean = BranchesClassifier(lam=0.0, max_bins=max_bins).fit(np.nan_to_num(X), y)
    assert clean._codes.transform(X)[np.isnan(X[:, 0]), 0].tolist() == [-1] * np.isnan(
        X[:, 0]).sum()


def test_labels_name_the_missing_values_code():
    X = np.array([[1.0, 0.5], [2, np.nan], [3, 0.5], [4, 1.5], [np.nan, 1.5], [6, np.nan]])
    clf = BranchesClassifier(max_bins=2).fit(X, [0, 0, 1, 1, 2, 1])
    assert clf._codes.labels(0) == ["in (-inf, 3]", "in (3, inf]", "= nan"]
    assert clf._codes.labels(1) == ["= 0.5", "= 1.5", "= nan"]
    assert [len(clf._codes.labels(j)) for j in range(2)] == clf._codes.n_codes().tolist()
    # Without missing values, the labels export_text has always shown.
    clean = BranchesClassifier(max_bins=2).fit(np.nan_to_num(X), [0, 0, 1, 1, 2, 1])
    assert [clean._codes.labels(j) for j in range(2)] == [
        dpdt._export.category_names(clean, j) for j in range(2)]


def test_infinity_is_refused():
    X = np.array([[0.0], [1.0], [np.inf]])
    with pytest.raises(ValueError, match="infinity"):
        BranchesClassifier().fit(X, [0, 1, 1])
    clf = BranchesClassifier().fit(X[:2], [0, 1])
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(X)


@pytest.mark.parametrize("estimator", [BranchesClassifier, MultiwayGreedyClassifier])
def test_continuous_features_warn(estimator):
    from sklearn.datasets import load_wine
    X, y = load_wine(return_X_y=True, as_frame=True)
    with pytest.warns(UserWarning, match=r"'alcohol' \(126\).*KBinsDiscretizer.*DPDTreeClassifier"):
        estimator(max_depth=1).fit(X, y)
    with pytest.warns(UserWarning, match=r"numeric features 0 \(126\)"):
        estimator(max_depth=1).fit(X.to_numpy(), y)
    # Binned, the values are no longer categories of their own.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimator(max_depth=1, max_bins=8).fit(X, y)


@pytest.mark.parametrize("name", ["tictactoe", "zoo-o", "mushroom-o", "nursery-o", "monk1-o"])
def test_categorical_data_does_not_warn(name):
    data = np.load(Path(__file__).parents[1] / "benchmarks" / "data" / "categorical"
                   / f"{name}.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MultiwayGreedyClassifier(max_depth=2).fit(data["X"], data["y"])
        BranchesClassifier(max_depth=1).fit(data["X"], data["y"])


# --------------------------------------------------------------------------------------------
# time_limit, max_branches
# --------------------------------------------------------------------------------------------
@functools.cache
def tictactoe():
    data = np.load(DATA / "tictactoe.npz")
    return data["X"], data["y"]


def test_time_limit_returns_best_tree_and_certified_bound():
    X, y = tictactoe()
    clf = BranchesClassifier(lam=TICTACTOE_LAM, time_limit=0.5)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        clf.fit(X, y)
    assert time.perf_counter() - start < 20     # the limit is honoured (generous margin)
    assert not clf.is_optimal_
    assert clf.upper_bound_ >= clf.objective_
    assert clf.upper_bound_ >= TICTACTOE_BEST_KNOWN - 1e-6
    leaf = np.bincount(y).max() / len(y)
    assert clf.objective_ >= leaf - ATOL
    check_routed_tree(clf, X, y, None, TICTACTOE_LAM)


@pytest.mark.parametrize("lam", [0.01, 0.05, 0.1, 0.25])
@pytest.mark.parametrize("name", [n for n in TINY if n.endswith("-u")])
def test_shallow_searches_certify_by_split_count(monkeypatch, name, lam):
    # The full search is made to run out of time with a poor tree; the depth-limited searches
    # then run as they are. One proven at a depth >= ceil((1 - best) / lam) - 1 certifies the
    # optimum (a better tree has fewer splits than that, hence no more depth); otherwise the
    # result must not claim optimality.
    real = dpdt._core.fit_branches

    def full_search_times_out(codes, y, w, params, **kwargs):
        if params.max_depth:
            return real(codes, y, w, params, **kwargs)
        params.max_depth = 1
        stump = real(codes, y, w, params, **kwargs)
        return dict(stump, optimal=False, upper_bound=1.0)

    monkeypatch.setattr(dpdt._core, "fit_branches", full_search_times_out)
    data = tiny_data(name)
    values, total = tiny_values(name, None)
    optimum = best_objective(values, total, lam)
    clf = BranchesClassifier(lam=lam, time_limit=100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(data.X, data.y)
    assert clf.objective_ == pytest.approx(optimum, abs=ATOL)   # every depth was searched
    n_features = data.X.shape[1]
    splits_to_beat = math.ceil((1 - optimum) / lam + 1e-9) - 1
    assert clf.is_optimal_ == (splits_to_beat <= n_features)
    assert clf.upper_bound_ >= optimum - ATOL
    check_routed_tree(clf, data.X, data.y, None, lam)


def pruned_value(tree, n, lam, node=0):
    """H of a multiway tree pruned bottom-up wherever a leaf is worth more (unit weights)."""
    leaf = (tree.value[node] * tree.n_node_samples[node]).max() / n
    if tree.feature[node] < 0:
        return leaf
    return max(leaf, -lam + sum(pruned_value(tree, n, lam, child)
                                for _, child in tree.children(node)))


@pytest.mark.parametrize("lam", [0.002, TICTACTOE_LAM, 0.02])
def test_time_limited_search_is_never_worse_than_pruned_id3(lam):
    # ID3's tree, pruned for the objective, is the search's first incumbent: however early
    # the clock stops it, the result is at least worth that tree.
    X, y = tictactoe()
    id3 = MultiwayGreedyClassifier(criterion="entropy").fit(X, y)
    floor = pruned_value(id3.tree_, len(y), lam)
    assert floor > np.bincount(y).max() / len(y)   # better than a leaf: the bound bites
    clf = BranchesClassifier(lam=lam, time_limit=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    assert clf.objective_ >= floor - ATOL
    check_routed_tree(clf, X, y, None, lam)


@pytest.mark.parametrize("max_branches", [1, 100, 1000])
@pytest.mark.parametrize("time_limit", [None, 100.0])
def test_max_branches_stops_the_search_as_the_time_limit_does(max_branches, time_limit):
    # The search ends at max_branches with the best tree found, never worse than pruned ID3
    # (the greedy seed), and a certified upper bound; no MemoryError.
    X, y = tictactoe()
    lam = TICTACTOE_LAM
    floor = pruned_value(MultiwayGreedyClassifier(criterion="entropy").fit(X, y).tree_, len(y), lam)
    full = BranchesClassifier(lam=lam).fit(X, y)
    assert full.n_branches_ > 10 * max_branches
    clf = BranchesClassifier(lam=lam, max_branches=max_branches, time_limit=time_limit)
    with pytest.warns(ConvergenceWarning, match=f"max_branches={max_branches} reached"):
        clf.fit(X, y)
    assert not clf.is_optimal_
    assert clf.objective_ >= floor - ATOL
    assert clf.upper_bound_ >= full.objective_ - ATOL
    assert clf.objective_ <= full.objective_ + ATOL
    check_routed_tree(clf, X, y, None, lam)


# --------------------------------------------------------------------------------------------
# scikit-learn conformance
# --------------------------------------------------------------------------------------------
@parametrize_with_checks([BranchesClassifier(max_bins=16),
                          BranchesClassifier(lam=0.0, max_depth=2, max_bins=8)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
