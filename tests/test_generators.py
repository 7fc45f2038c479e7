"""Split generators of DPDTreeClassifier: Top-k, Top-B, CART's best split, gain_ratio.

- every generator (and per-depth lists of them) on tiny data == brute force over the trees built
  from an independent reimplementation of its candidates, with the exact last level (objective
  for several alphas, Pareto front, tie-break, number of candidates generated);
- Top-k with k = 1 is the greedy tree (splitter="cart", candidates 1); Top-k / Top-B are
  exhaustive only where they offer every split;
- C4.5's gain ratio picks another root than the information gain on a hand-computed example;
- the greediness hierarchy of Blanc et al. (NeurIPS 2023, Theorem 2): Top-K learns a noisy
  parity hidden behind K - 1 distractor features, Top-k with k < K does not.
"""

import functools
import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from _bruteforce import (
    COMPLEXITIES,
    SCORE_CRITERIA,
    GeneratorSearch,
    effective_weights,
    encode_labels,
    expected_front,
    lower_hull,
    scored_splits,
    tie_impurity,
    tree_complexity,
    tree_stats,
    weighted_impurity,
)
from _trees import assert_tree_equal
from numpy.testing import assert_array_equal
from sklearn.tree import DecisionTreeClassifier

from dpdt import DPDTreeClassifier, datasets

ALPHAS = (0.0, 0.01, 0.05, 0.2, 1.0)
ATOL = 1e-9


def assert_same_fit(a, b, msg=""):
    """Two fitted classifiers have the same Pareto front and the same trees."""
    assert_array_equal(a.pareto_front_, b.pareto_front_, err_msg=msg)
    for k, (ta, tb) in enumerate(zip(a.trees_, b.trees_, strict=True)):
        assert_tree_equal(ta, tb, f"{msg}: trees_[{k}]")


# --------------------------------------------------------------------------------------------
# Registries: tiny datasets, generator configurations
# --------------------------------------------------------------------------------------------
def _tiny(seed, weighted, costed):
    """n in 6..10, p in 2..3, 2-3 classes; even seeds have many tied values (and scores)."""
    rng = np.random.default_rng(300 + seed)
    n, p, k = int(rng.integers(6, 11)), int(rng.integers(2, 4)), int(rng.integers(2, 4))
    if seed % 2 == 0:
        X = rng.integers(0, 4, size=(n, p)).astype(float)
    else:
        X = rng.random((n, p)).round(3)
    y = rng.integers(0, k, n)
    y[:2] = [0, 1]
    return SimpleNamespace(
        X=X,
        y=y,
        sample_weight=rng.uniform(0.2, 3.0, n) if weighted else None,
        feature_costs=rng.uniform(0.5, 2.0, p) if costed else None,
    )


TINY = {
    f"g{seed}-{'w' if weighted else 'u'}": functools.partial(_tiny, seed, weighted, False)
    for seed in range(6)
    for weighted in (False, True)
}
TINY["g6-u-cost"] = functools.partial(_tiny, 6, False, True)
TINY["g7-w-cost"] = functools.partial(_tiny, 7, True, True)

# name -> (splitter, candidates); lists are per depth, beyond them "cart" with budget 1.
GENERATORS = {
    "topk1": ("topk", 1),
    "topk2": ("topk", 2),
    "topb1": ("topb", 1),
    "topb3": ("topb", 3),
    "cart1": ("cart", 1),
    "topb3,topk2": (["topb", "topk"], (3, 2)),
    "topk2,topb2": (["topk", "topb"], (2, 2)),
    "exhaustive,topk1": (["exhaustive", "topk"], (1, 1)),
    "topk2,(cart)": (["topk"], (2,)),
    "lookahead1": ("lookahead", 1),
    "lookahead1,topk2": (["lookahead", "topk"], (1, 2)),
}


@functools.cache
def tiny_data(name):
    return TINY[name]()


def truth(data):
    classes, y_idx = encode_labels(data.y)
    return classes, y_idx, effective_weights(y_idx, len(classes), data.sample_weight)


@functools.cache
def reference(name, generator, depth, criterion):
    data = tiny_data(name)
    classes, y_idx, w = truth(data)
    splitter, candidates = GENERATORS[generator]
    return GeneratorSearch(data.X, y_idx, w, len(classes), depth, splitter, candidates, criterion)


def fit(data, **params):
    clf = DPDTreeClassifier(feature_costs=data.feature_costs, **params)
    return clf.fit(data.X, data.y, sample_weight=data.sample_weight)


@functools.cache
def fit_generator(name, generator, depth, criterion, complexity):
    splitter, candidates = GENERATORS[generator]
    return fit(
        tiny_data(name),
        max_depth=depth,
        splitter=splitter,
        candidates=candidates,
        criterion=criterion,
        complexity=complexity,
    )


def routed_stats(clf, data, tree=None):
    _, y_idx, w = truth(data)
    tree = clf.tree_ if tree is None else tree
    return tree_stats(tree, data.X, y_idx, w, len(clf.classes_), data.feature_costs)


# --------------------------------------------------------------------------------------------
# The reference generators themselves, on cases small enough to check by eye
# --------------------------------------------------------------------------------------------
def test_reference_generators_by_hand():
    # x0 = 0..3 with labels 0 1 1 0: thresholds 0.5 and 2.5 tie (each isolates one 0), 1.5 is
    # worthless; x1 separates {0, 1} from {1, 0}, also worthless.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0], [3.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    w = np.ones(4)
    idx = np.arange(4)
    scores = {(f, t): s for s, f, t, _, _ in scored_splits(X, y, w, 2, idx, "gini")}
    # gini: W*g(parent) = 4 * 0.5 = 2; isolating one 0 leaves 3 * (1 - 1/9 - 4/9) = 4/3
    assert scores == pytest.approx({(0, 0.5): 2 / 3, (0, 1.5): 0.0, (0, 2.5): 2 / 3, (1, 0.5): 0.0})
    search = GeneratorSearch(X, y, w, 2, 2, "topb", 3, "gini")
    assert [(f, t) for f, t, _, _ in search.offers(idx, 0)] == [(0, 0.5), (0, 2.5), (0, 1.5)]
    search = GeneratorSearch(X, y, w, 2, 2, "topk", 2, "gini")
    assert [(f, t) for f, t, _, _ in search.offers(idx, 0)] == [(0, 0.5), (1, 0.5)]
    # the depth-2 tree through 0.5 then 2.5 is perfect
    assert search.optimum(0.0) == 0.0
    assert search.optimum(1.0, "n_splits") == pytest.approx(0.5)  # the leaf: 2 errors of 4


# --------------------------------------------------------------------------------------------
# Every generator == brute force over its candidates, with the exact last level
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("name", TINY)
def test_generator_objective_is_brute_force(name, generator, depth, criterion, complexity):
    data = tiny_data(name)
    ref = reference(name, generator, depth, criterion)
    clf = fit_generator(name, generator, depth, criterion, complexity)
    assert clf.stats_["candidates"] == ref.n_generated, "candidates generated"
    for alpha in ALPHAS:
        clf.set_params(alpha=alpha)
        s = routed_stats(clf, data)
        got = s["train_loss"] + alpha * tree_complexity(s, complexity)
        best = ref.optimum(alpha, complexity, data.feature_costs)
        assert s["depth"] <= depth
        assert got == pytest.approx(best, abs=ATOL), f"alpha={alpha}"


@pytest.mark.parametrize("complexity", COMPLEXITIES)
@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("name", TINY)
def test_generator_front_and_tie_break_are_brute_force(name, generator, criterion, complexity):
    """Depth 2: the whole front is the hull of the generator's trees; alpha = 0 tie-break."""
    data = tiny_data(name)
    enum = reference(name, generator, 2, criterion).enumeration()
    clf = fit_generator(name, generator, 2, criterion, complexity)
    front = clf.pareto_front_
    rows = front[front["alpha_max"] > front["alpha_min"]]
    amin, amax, C, L = expected_front(lower_hull(enum.points(complexity, data.feature_costs)))
    assert len(rows) == len(C), f"front {front} vs hull {C}, {L}"
    np.testing.assert_allclose(rows["complexity"], C, atol=ATOL)
    np.testing.assert_allclose(rows["train_loss"], L, atol=ATOL)
    np.testing.assert_allclose(rows["alpha_min"], amin, rtol=1e-9, atol=ATOL)
    np.testing.assert_allclose(rows["alpha_max"], amax, rtol=1e-9, atol=ATOL)

    clf.set_params(alpha=0.0)
    s = routed_stats(clf, data)
    impurity = tie_impurity(criterion)  # gain_ratio breaks ties with the entropy
    loss, imp, n_splits = enum.lexicographic_optimum(0.0, complexity, data.feature_costs, impurity)
    assert s["train_loss"] == pytest.approx(loss, abs=ATOL)
    assert s[impurity] == pytest.approx(imp, abs=ATOL)
    assert s["n_splits"] == n_splits


@pytest.mark.parametrize("splitter", ["topk", "topb", "cart"])
def test_ties_go_to_lower_feature_then_lower_threshold(splitter):
    # x0 = 0..3 with labels 0 1 1 0: thresholds 0.5 and 2.5 of x0 tie; x1 is a copy of x0.
    # With one candidate, the root must be (x0, 0.5); the exact level below finishes the tree.
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    y = np.array([0, 1, 1, 0])
    for criterion in SCORE_CRITERIA:
        clf = DPDTreeClassifier(
            max_depth=2, splitter=splitter, candidates=(1, 1), criterion=criterion
        ).fit(X, y)
        assert (clf.tree_.feature[0], clf.tree_.threshold[0]) == (0, 0.5), criterion
        assert clf.score(X, y) == 1.0


@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
@pytest.mark.parametrize("splitter", ["topk", "topb"])
def test_integer_weights_are_repeated_samples(splitter, criterion):
    # Scores of k copies and of one sample of weight k are the same real numbers: same ranking,
    # same ties, same trees.
    rng = np.random.default_rng(7)
    X = rng.random((60, 3)).round(2)
    y = rng.integers(0, 3, 60)
    k = rng.integers(1, 4, 60)
    params = dict(max_depth=3, splitter=splitter, candidates=(3, 3, 3), criterion=criterion)
    weighted = DPDTreeClassifier(**params).fit(X, y, sample_weight=k.astype(float))
    repeated = DPDTreeClassifier(**params).fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    assert_array_equal(weighted.pareto_front_, repeated.pareto_front_)
    for a, b in zip(weighted.trees_, repeated.trees_, strict=True):
        assert_array_equal(a.feature, b.feature)
        assert_array_equal(a.threshold, b.threshold)


@pytest.mark.parametrize("splitter", ["topk", "topb"])
def test_n_jobs_gives_identical_trees(splitter):
    seg = datasets.load("segment")
    params = dict(splitter=splitter, candidates=(4, 4, 4), criterion="gain_ratio")
    one = DPDTreeClassifier(**params).fit(seg.X_train, seg.y_train)
    two = DPDTreeClassifier(n_jobs=2, **params).fit(seg.X_train, seg.y_train)
    assert_same_fit(one, two, "n_jobs=2")


# --------------------------------------------------------------------------------------------
# What Top-k and Top-B are equal to
# --------------------------------------------------------------------------------------------
def _medium(seed):
    rng = np.random.default_rng(400 + seed)
    n, p = 300, 5
    X = rng.random((n, p)).round(2)
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) > 0.7).astype(int)
    y[X[:, 3] > 0.9] = 2
    return SimpleNamespace(
        X=X, y=y, sample_weight=rng.uniform(0.5, 2.0, n) if seed else None, feature_costs=None
    )


K1_CASES = {
    **{name: functools.partial(tiny_data, name) for name in TINY},
    "medium0": functools.partial(_medium, 0),
    "medium1-w": functools.partial(_medium, 1),
}


@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("case", K1_CASES)
def test_topk1_is_the_greedy_tree(case, depth, criterion):
    """Top-1 offers the single best split, as CART with budget 1: the same search, same trees."""
    data = K1_CASES[case]()
    params = dict(max_depth=depth, candidates=(1,) * depth, criterion=criterion)
    topk = fit(data, splitter="topk", **params)
    assert_same_fit(topk, fit(data, splitter="cart", **params), "topk1 vs cart1")
    assert_same_fit(topk, fit(data, splitter="topb", **params), "topk1 vs topb1")


def test_topk1_is_the_greedy_tree_on_bank():
    bank = datasets.load("bank")
    params = dict(max_depth=3, candidates=(1, 1, 1))
    topk = DPDTreeClassifier(splitter="topk", **params).fit(bank.X_train, bank.y_train)
    cart = DPDTreeClassifier(splitter="cart", **params).fit(bank.X_train, bank.y_train)
    assert_same_fit(topk, cart, "bank")


@pytest.mark.parametrize("splitter", ["topk", "topb", "cart"])
@pytest.mark.parametrize("name", TINY)
def test_depth1_is_exact_whatever_the_generator(name, splitter):
    # At depth 1 the root is the last level: searched exactly, the generator is never called.
    data = tiny_data(name)
    got = fit(data, max_depth=1, splitter=splitter, candidates=1)
    assert_same_fit(got, fit(data, max_depth=1, splitter="exhaustive"), splitter)
    assert got.stats_["candidates"] == 0


@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_topk_with_every_feature_is_exhaustive_on_binary_features(seed, depth, criterion):
    # A binary feature has one threshold: its best split is its only split, so Top-k with k = p
    # (and Top-B with B = p) offer every split at every state, as the exhaustive splitter does.
    rng = np.random.default_rng(500 + seed)
    n, p = 40, 3 + seed
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int)) | (rng.random(n) < 0.2)
    exhaustive = fit(
        SimpleNamespace(X=X, y=y, sample_weight=None, feature_costs=None),
        max_depth=depth,
        splitter="exhaustive",
        criterion=criterion,
    )
    for splitter in ("topk", "topb"):
        got = fit(
            SimpleNamespace(X=X, y=y, sample_weight=None, feature_costs=None),
            max_depth=depth,
            splitter=splitter,
            candidates=p,
            criterion=criterion,
        )
        assert_same_fit(got, exhaustive, splitter)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", TINY)
def test_topb_with_every_pair_is_exhaustive(name, depth):
    data = tiny_data(name)
    got = fit(data, max_depth=depth, splitter="topb", candidates=100)
    assert_same_fit(got, fit(data, max_depth=depth, splitter="exhaustive"), "topb100")


def test_topk_with_every_feature_is_not_exhaustive():
    # One feature, x = 0..7, labels 0 0 1 1 0 0 0 1: the perfect depth-2 tree splits at 3.5, then
    # 1.5 and 6.5; the best gini split of x (its only Top-k candidate) is elsewhere, and no
    # depth-2 tree below it is perfect.
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([0, 0, 1, 1, 0, 0, 0, 1])
    scores = scored_splits(X, y, np.ones(8), 2, np.arange(8), "gini")
    best_t = max(scores, key=lambda s: s[0])[2]
    assert best_t != 3.5
    topk = DPDTreeClassifier(max_depth=2, splitter="topk", candidates=(1, 1)).fit(X, y)
    exhaustive = DPDTreeClassifier(max_depth=2, splitter="exhaustive").fit(X, y)
    assert topk.tree_.threshold[0] == best_t
    assert exhaustive.score(X, y) == 1.0
    assert topk.score(X, y) == 0.75


# --------------------------------------------------------------------------------------------
# gain_ratio (C4.5)
# --------------------------------------------------------------------------------------------
def test_gain_ratio_and_gain_pick_different_roots():
    # 16 samples, 8 of each class.
    #   x0 isolates two class-1 samples:   L = (0, 2), R = (8, 6)
    #   x1 halves the data:                 L = (2, 6), R = (6, 2)
    # Gain (bits, weight units): x0: 16 - 14 H(6/14) = 2.2068; x1: 16 - 16 H(1/4) = 3.0196.
    # Split information: x0: H(2/16) = 0.5436; x1: H(1/2) = 1.
    # Gain ratio: x0: 4.0599 > x1: 3.0196. Gini decrease: x0: 1.143 < x1: 2.
    y = np.array([1] * 8 + [0] * 8)
    x0 = np.array([0, 0] + [1] * 14)
    x1 = np.array([0] * 6 + [1] * 2 + [0] * 2 + [1] * 6)
    X = np.column_stack([x0, x1]).astype(float)

    def H(q):
        return -(q * math.log2(q) + (1 - q) * math.log2(1 - q))

    gain = {0: 16 - 14 * H(6 / 14), 1: 16 - 16 * H(1 / 4)}
    ratio = {0: gain[0] / H(2 / 16), 1: gain[1] / 1.0}
    assert gain == pytest.approx({0: 2.2068, 1: 3.0196}, abs=1e-4)
    assert ratio == pytest.approx({0: 4.0599, 1: 3.0196}, abs=1e-4)
    # the reference scores agree with the hand computation
    ref = {
        c: {f: s for s, f, _, _, _ in scored_splits(X, y, np.ones(16), 2, np.arange(16), c)}
        for c in SCORE_CRITERIA
    }
    assert ref["entropy"] == pytest.approx(gain, abs=1e-12)
    assert ref["gain_ratio"] == pytest.approx(ratio, abs=1e-12)
    assert ref["gini"] == pytest.approx({0: 16 / 14, 1: 2.0}, abs=1e-12)

    # A greedy root (one candidate at depth 0; depth 1 is the exact last level).
    def root(criterion, splitter="cart"):
        clf = DPDTreeClassifier(
            max_depth=2, candidates=(1, 1), splitter=splitter, criterion=criterion
        ).fit(X, y)
        return int(clf.tree_.feature[0])

    for splitter in ("cart", "topk", "topb"):
        assert root("gain_ratio", splitter) == 0, splitter
        assert root("entropy", splitter) == 1, splitter
        assert root("gini", splitter) == 1, splitter


@pytest.mark.parametrize("name", TINY)
def test_gain_ratio_breaks_ties_with_the_entropy(name):
    # Without a generator (exhaustive splitter) only the tie-break and the reported impurity see
    # the criterion: for gain_ratio both are the entropy (bits).
    data = tiny_data(name)
    a = fit(data, max_depth=2, splitter="exhaustive", criterion="gain_ratio")
    b = fit(data, max_depth=2, splitter="exhaustive", criterion="entropy")
    assert_same_fit(a, b, "exhaustive: gain_ratio == entropy")
    node_class_weight = routed_stats(a, data)["node_class_weight"]
    for node, counts in enumerate(node_class_weight):
        expected = weighted_impurity(counts, "entropy") / counts.sum()
        assert a.tree_.impurity[node] == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------------------------
# Greediness hierarchy (Blanc et al., NeurIPS 2023, Theorem 2)
# --------------------------------------------------------------------------------------------
EPS = 0.05
H_PARITY = 3  # the label is the parity of x0, x1, x2 ...
DISTRACTORS = (3, 4)  # ... except with probability EPS, when it is x3 or x4 (EPS / 2 each)
K = len(DISTRACTORS) + 1


@functools.cache
def noisy_parity():
    """x uniform on {0,1}^5, exactly: every point repeated 40 times (n = 1280).

    Of the 40 copies, 38 (1 - EPS) carry the parity of x0, x1, x2 and one each the value of a
    distractor. The empirical distribution is the population one, so the impurity gains are
    exact: 0 for a parity feature on any node that fixes fewer than all but one of them, > 0 for
    a distractor. (Sampled data, e.g. n = 4000, does not give this ranking reliably: the
    distractors' gains are about EPS^2 / 8 per sample, the same order as the sampling noise of
    the zero gains.) There are no pure-noise features: with exact zero gains they would tie
    with the parity features and the tie-break (lower index) would decide the hierarchy.
    """
    p = H_PARITY + len(DISTRACTORS)
    cells = np.array(list(itertools.product([0, 1], repeat=p)))
    parity = cells[:, :H_PARITY].sum(axis=1) % 2
    copies = round(len(DISTRACTORS) / EPS)
    labels = np.column_stack(
        [parity] * (copies - len(DISTRACTORS)) + [cells[:, d] for d in DISTRACTORS]
    )
    X = np.repeat(cells, copies, axis=0).astype(float)
    return X, labels.reshape(-1)


def gains(X, y, idx, criterion):
    """Best generator score of each feature at the node ``idx`` (-inf if constant there)."""
    out = np.full(X.shape[1], -np.inf)
    for s, f, _, _, _ in scored_splits(X, y, np.ones(len(y)), 2, idx, criterion):
        out[f] = max(out[f], s)
    return out


@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
def test_noisy_parity_ranks_distractors_first(criterion):
    X, y = noisy_parity()
    root = np.arange(len(y))
    parity = list(range(H_PARITY))

    def check(idx, free_parity, free_distractors):
        g = gains(X, y, idx, criterion)
        tol = 1e-9 * len(idx)
        assert np.all(np.abs(g[free_parity]) <= tol), g
        assert np.all(g[free_distractors] > 1e-3), g
        return g

    check(root, parity, list(DISTRACTORS))
    for f in range(X.shape[1]):
        for side in (0.0, 1.0):
            child = root[X[:, f] == side]
            if f in parity:  # a parity root: K - 1 distractors, then a parity feature
                check(child, [q for q in parity if q != f], list(DISTRACTORS))
            else:  # a distractor root: the other distractor first
                check(child, parity, [d for d in DISTRACTORS if d != f])


@pytest.mark.parametrize("criterion", SCORE_CRITERIA)
def test_greediness_hierarchy(criterion):
    X, y = noisy_parity()
    accuracy = {}
    for k in range(1, X.shape[1] + 1):
        clf = DPDTreeClassifier(
            max_depth=H_PARITY, splitter="topk", candidates=(k,) * H_PARITY, criterion=criterion
        ).fit(X, y)
        accuracy[k] = clf.score(X, y)
        if k >= K:
            assert set(clf.tree_.feature[clf.tree_.feature >= 0]) == set(range(H_PARITY)), k
    # Top-K: a parity feature at the root and at depth 1, the last one found by the exact level.
    # Accuracy (1 - EPS) + EPS / 2: the distractor labels agree with the parity half the time.
    for k in range(K, X.shape[1] + 1):
        assert accuracy[k] >= 1 - EPS - 0.02, accuracy
        assert accuracy[k] == pytest.approx(1 - EPS / 2), accuracy
    # Top-k, k < K: a distractor at the root; below it two levels cannot express the parity of
    # three bits, so the parity part is right half of the time whatever the exact last level does.
    for k in range(1, K):
        assert accuracy[k] <= 0.5 + EPS + 0.02, accuracy


@pytest.mark.parametrize(
    "limits",
    [
        dict(min_weight_fraction_leaf=0.2),
        dict(min_samples_leaf=25),
        dict(min_weight_fraction_leaf=0.3, min_samples_leaf=5),
    ],
)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_cart_generator_respects_leaf_limits_as_sklearn(seed, n_classes, criterion, limits):
    # With budget 1 the root's only candidate is CART's split, which must be scikit-learn's under
    # the same leaf limits. The classes other than 0 live in thin tails of one feature, so the best
    # split without limits, cutting off a tail, breaks them.
    rng = np.random.default_rng(700 + seed)
    n = 150
    X = rng.random((n, 3)).astype(np.float32).astype(float)
    tail = np.minimum(X[:, seed], 1 - X[:, seed]) < 0.06
    y = np.where(tail, rng.integers(1, n_classes, n), 0)
    noise = rng.random(n) < 0.1
    y[noise] = rng.integers(0, n_classes, noise.sum())
    w = rng.uniform(0.2, 3.0, n)
    sk = DecisionTreeClassifier(max_depth=1, criterion=criterion, random_state=0, **limits)
    sk.fit(X, y, sample_weight=w)
    clf = DPDTreeClassifier(max_depth=2, splitter="cart", candidates=(1, 1), criterion=criterion)
    clf.set_params(**limits).fit(X, y, sample_weight=w)
    roots = {(t.feature[0], t.threshold[0]) for t in clf.trees_ if t.feature[0] >= 0}
    assert len(roots) == 1
    ((feature, threshold),) = roots
    assert feature == sk.tree_.feature[0]
    assert_array_equal(X[:, feature] <= threshold, X[:, feature] <= sk.tree_.threshold[0])
