"""Brute-force ground truth for DPDT on tiny data (pure Python + numpy, no dpdt import).

Classification follows docs/api_contract.md literally:

- w_i = sample_weight_i * class_weight[y_i], W_total = sum of w_i;
- train_loss(T) = weight of misclassified samples / W_total, a leaf predicting the class of largest
  weight (ties -> lowest class index; the tie rule does not change the loss);
- "expected_tests" complexity = sum over split nodes s of (W_s / W_total) * cost[feature_s];
- "n_splits" complexity = sum over split nodes s of cost[feature_s];
- tie-break = sum over leaves of W_leaf * impurity(leaf), then number of splits;
- thresholds are midpoints between consecutive distinct values of the node's samples,
  ``x[feature] <= threshold`` goes left.

Regression (``DPDTreeRegressor``) replaces the loss by the weighted squared error of leaves
predicting their weighted mean, ``sum_i w_i * ||y_i - mean_w(leaf)||^2 / W_total`` summed over
outputs; the complexities are the same, and ties between equal objectives go to fewer splits.

The enumerator lists *every* tree of depth <= D, so it is only usable for n <= 10, p <= 3,
D <= 2 (a few thousand trees). Impurity sums are returned divided by W_total, which does not
change the order they define.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace

import numpy as np

# Two objectives (or impurity sums) closer than this are the same real number: the values are
# O(1) and only differ by rounding when they are mathematically equal.
TIE_TOL = 1e-12

COMPLEXITIES = ("expected_tests", "n_splits")
CRITERIA = ("gini", "entropy")


# --------------------------------------------------------------------------------------------
# Data helpers
# --------------------------------------------------------------------------------------------
def encode_labels(y, classes=None):
    """Class indices of ``y`` (into ``classes``, default the sorted distinct labels)."""
    y = np.asarray(y)
    if classes is None:
        classes = np.unique(y)
    classes = np.asarray(classes)
    y_idx = np.searchsorted(classes, y)
    assert np.all(classes[y_idx] == y), "label not in classes"
    return classes, y_idx


def effective_weights(y_idx, n_classes, sample_weight=None, class_weight=None):
    """w_i = sample_weight_i * class_weight[y_i]; ``class_weight`` is an array per class index."""
    n = len(y_idx)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float).copy()
    if class_weight is not None:
        w = w * np.asarray(class_weight, dtype=float)[y_idx]
    assert w.shape == (n,) and np.all(w > 0)
    return w


def resolve_costs(costs, p):
    return np.ones(p) if costs is None else np.asarray(costs, dtype=float)


def class_weight_sums(y_idx, w, n_classes):
    return np.bincount(y_idx, weights=w, minlength=n_classes).astype(float)


def weighted_impurity(counts, criterion):
    """W * impurity(class proportions) for a vector of class weight sums."""
    total = counts.sum()
    if total <= 0:
        return 0.0
    prop = counts / total
    if criterion == "gini":
        return float(total * (1.0 - np.sum(prop**2)))
    if criterion == "entropy":
        nz = prop[prop > 0]
        return float(total * -np.sum(nz * np.log2(nz)))
    raise ValueError(criterion)


def as_targets(y):
    """Regression targets as a float array (n, n_outputs)."""
    y = np.asarray(y, dtype=float)
    return y.reshape(len(y), -1)


def weighted_mean(Y, w):
    """Weighted mean of each column of ``Y`` (m, k)."""
    return np.asarray(w, dtype=float) @ Y / np.sum(w)


def weighted_sse(Y, w):
    """sum_i w_i * ||y_i - weighted mean||^2, summed over outputs (two-pass, no cancellation)."""
    w = np.asarray(w, dtype=float)
    if w.size == 0 or w.sum() <= 0:
        return 0.0
    return float(np.sum(w[:, None] * (Y - weighted_mean(Y, w)) ** 2))


def midpoint_thresholds(values):
    """Midpoints between consecutive distinct values (each strictly separates the two)."""
    distinct = np.unique(values)
    mids = (distinct[:-1] + distinct[1:]) / 2.0
    assert np.all((distinct[:-1] <= mids) & (mids < distinct[1:]))
    return mids


def candidate_splits(X, idx):
    """Every (feature, threshold, left_idx, right_idx) at the node holding samples ``idx``."""
    for f in range(X.shape[1]):
        col = X[idx, f]
        for t in midpoint_thresholds(col):
            go_left = col <= t
            yield f, float(t), idx[go_left], idx[~go_left]


# --------------------------------------------------------------------------------------------
# Sets of trees as parallel arrays
# --------------------------------------------------------------------------------------------
@dataclass
class TreeSet:
    """Trees over one sample subset. All sums are raw (not divided by W_total).

    structures[k] is ``("leaf",)`` or ``(feature, threshold, left_structure, right_structure)``.
    """

    structures: list
    loss: np.ndarray  # (T,) weight of misclassified samples
    split_weight: np.ndarray  # (T, p) sum of W_s over split nodes s testing feature f
    split_count: np.ndarray  # (T, p) number of split nodes testing feature f
    gini: np.ndarray  # (T,) sum over leaves of W_leaf * gini
    entropy: np.ndarray  # (T,)
    n_leaves: np.ndarray  # (T,)
    depth: np.ndarray  # (T,)

    def __len__(self):
        return len(self.structures)

    @staticmethod
    def leaf(counts, p):
        return TreeSet(
            structures=[("leaf",)],
            loss=np.array([counts.sum() - counts.max()]),
            split_weight=np.zeros((1, p)),
            split_count=np.zeros((1, p)),
            gini=np.array([weighted_impurity(counts, "gini")]),
            entropy=np.array([weighted_impurity(counts, "entropy")]),
            n_leaves=np.array([1]),
            depth=np.array([0]),
        )

    @staticmethod
    def regression_leaf(Y, w, p):
        """A leaf over targets ``Y`` (m, k) predicting their weighted mean; loss = weighted SSE.

        Regression has no impurity tie-break, so ``gini``/``entropy`` are zero.
        """
        return TreeSet(
            structures=[("leaf",)],
            loss=np.array([weighted_sse(Y, w)]),
            split_weight=np.zeros((1, p)),
            split_count=np.zeros((1, p)),
            gini=np.zeros(1),
            entropy=np.zeros(1),
            n_leaves=np.array([1]),
            depth=np.array([0]),
        )

    @staticmethod
    def split(feature, threshold, node_weight, left, right):
        """Every tree with this root split and a left/right subtree from ``left``/``right``."""
        nl, nr = len(left), len(right)
        li = np.repeat(np.arange(nl), nr)
        ri = np.tile(np.arange(nr), nl)
        onehot = np.zeros(left.split_weight.shape[1])
        onehot[feature] = 1.0
        return TreeSet(
            structures=[
                (feature, threshold, left.structures[a], right.structures[b])
                for a, b in zip(li, ri, strict=True)
            ],
            loss=left.loss[li] + right.loss[ri],
            split_weight=left.split_weight[li] + right.split_weight[ri] + node_weight * onehot,
            split_count=left.split_count[li] + right.split_count[ri] + onehot,
            gini=left.gini[li] + right.gini[ri],
            entropy=left.entropy[li] + right.entropy[ri],
            n_leaves=left.n_leaves[li] + right.n_leaves[ri],
            depth=1 + np.maximum(left.depth[li], right.depth[ri]),
        )

    @staticmethod
    def concat(sets):
        return TreeSet(
            structures=[s for ts in sets for s in ts.structures],
            **{
                name: np.concatenate([getattr(ts, name) for ts in sets])
                for name in (
                    "loss",
                    "split_weight",
                    "split_count",
                    "gini",
                    "entropy",
                    "n_leaves",
                    "depth",
                )
            },
        )


def _enumerate_trees(X, w, idx, depth, leaf):
    """Every tree of depth <= ``depth`` over samples ``idx``; ``leaf(idx)`` is the leaf's set."""
    sets = [leaf(idx)]
    if depth > 0:
        for f, t, left, right in candidate_splits(X, idx):
            sets.append(
                TreeSet.split(
                    f,
                    t,
                    w[idx].sum(),
                    _enumerate_trees(X, w, left, depth - 1, leaf),
                    _enumerate_trees(X, w, right, depth - 1, leaf),
                )
            )
    return TreeSet.concat(sets)


def _enumerate(X, y_idx, w, n_classes, idx, depth):
    def leaf(node_idx):
        return TreeSet.leaf(class_weight_sums(y_idx[node_idx], w[node_idx], n_classes), X.shape[1])

    return _enumerate_trees(X, w, idx, depth, leaf)


def _check_tiny(n, p, max_depth):
    """Fail on a problem too large to enumerate in a test (16 samples: 14 classes fit)."""
    assert n <= 16 and p <= 3 and max_depth <= 2, "brute force is for tiny problems only"


class Enumeration:
    """All binary trees of depth <= ``max_depth`` on (X, y, w), with their contract quantities.

    ``y`` is given as class indices 0..n_classes-1 (see :func:`encode_labels`), ``w`` are the
    effective weights (see :func:`effective_weights`).
    """

    def __init__(self, X, y_idx, w, max_depth, n_classes=None):
        X = np.asarray(X, dtype=float)
        y_idx = np.asarray(y_idx)
        n, p = X.shape
        _check_tiny(n, p, max_depth)
        self.X, self.y_idx, self.w = X, y_idx, np.asarray(w, dtype=float)
        self.n_classes = int(y_idx.max()) + 1 if n_classes is None else n_classes
        self.max_depth = max_depth
        self.W_total = float(self.w.sum())
        self.trees = _enumerate(X, y_idx, self.w, self.n_classes, np.arange(n), max_depth)

    def __len__(self):
        return len(self.trees)

    @cached_property
    def train_loss(self):
        return self.trees.loss / self.W_total

    @cached_property
    def n_splits(self):
        return self.trees.split_count.sum(axis=1).astype(int)

    def complexity(self, complexity="expected_tests", costs=None):
        c = resolve_costs(costs, self.X.shape[1])
        if complexity == "expected_tests":
            return self.trees.split_weight @ c / self.W_total
        if complexity == "n_splits":
            return self.trees.split_count @ c
        raise ValueError(complexity)

    def impurity(self, criterion="gini"):
        return getattr(self.trees, criterion) / self.W_total

    def objective(self, alpha, complexity="expected_tests", costs=None):
        return self.train_loss + alpha * self.complexity(complexity, costs)

    def best_index(self, alpha, complexity="expected_tests", costs=None, criterion="gini"):
        """Index of a tree minimising (objective, impurity sum, n_splits) lexicographically."""
        obj = self.objective(alpha, complexity, costs)
        keep = np.flatnonzero(obj <= obj.min() + TIE_TOL)
        imp = self.impurity(criterion)[keep]
        keep = keep[imp <= imp.min() + TIE_TOL]
        return int(keep[np.argmin(self.n_splits[keep])])

    def lexicographic_optimum(
        self, alpha, complexity="expected_tests", costs=None, criterion="gini"
    ):
        """(objective, impurity sum / W_total, n_splits) of the tie-broken optimum."""
        obj = self.objective(alpha, complexity, costs)
        k = self.best_index(alpha, complexity, costs, criterion)
        return float(obj.min()), float(self.impurity(criterion)[k]), int(self.n_splits[k])

    def points(self, complexity="expected_tests", costs=None):
        """(complexity, train_loss) of every tree, shape (T, 2)."""
        return np.column_stack([self.complexity(complexity, costs), self.train_loss])

    def tree(self, k):
        """Tree ``k`` in scikit-learn's array layout (see :func:`structure_to_tree`)."""
        return structure_to_tree(
            self.trees.structures[k], self.X, self.y_idx, self.w, self.n_classes
        )


def optimal_objective(X, y, w, depth, alpha, complexity="expected_tests", costs=None):
    """Minimum of train_loss + alpha * complexity over all trees of depth <= ``depth``.

    ``y`` holds any labels (encoded here), ``w`` the effective weights or None for unit weights.
    """
    classes, y_idx = encode_labels(y)
    w = effective_weights(y_idx, len(classes), w)
    enum = Enumeration(X, y_idx, w, depth, len(classes))
    return float(enum.objective(alpha, complexity, costs).min())


def optimum_by_recursion(X, y_idx, w, depth, alpha, complexity="expected_tests", costs=None):
    """The same minimum by the Bellman recursion, independent of the enumerator.

    A node's best value is its leaf's or that of its best split with the best subtrees; sample
    sets are memoised, which makes depth 3 affordable on a few dozen samples.
    """
    W = w.sum()
    k = int(y_idx.max()) + 1
    costs = resolve_costs(costs, X.shape[1])
    memo = {}

    def best(idx, d):
        key = (idx.tobytes(), d)
        if key in memo:
            return memo[key]
        counts = np.bincount(y_idx[idx], weights=w[idx], minlength=k)
        value = (counts.sum() - counts.max()) / W
        if d > 0:
            share = w[idx].sum() / W if complexity == "expected_tests" else 1.0
            for f in range(X.shape[1]):
                for t in midpoint_thresholds(X[idx, f]):
                    left, right = idx[X[idx, f] <= t], idx[X[idx, f] > t]
                    value = min(value, alpha * costs[f] * share + best(left, d - 1)
                                + best(right, d - 1))
        memo[key] = value
        return value

    return best(np.arange(len(y_idx)), depth)


def regression_optimum_by_recursion(X, Y, w, depth, alpha, complexity="expected_tests"):
    """Least ``train_loss + alpha * complexity`` of the squared error by the Bellman recursion.

    As :func:`optimum_by_recursion` (sample sets memoised, so depth 3 on a few dozen samples),
    with the leaf's weighted squared error, summed over outputs, for the loss.
    """
    X = np.asarray(X, dtype=float)
    Y = as_targets(Y)
    w = np.ones(len(Y)) if w is None else np.asarray(w, dtype=float)
    W = w.sum()
    memo = {}

    def best(idx, d):
        key = (idx.tobytes(), d)
        if key in memo:
            return memo[key]
        value = weighted_sse(Y[idx], w[idx]) / W
        if d > 0:
            share = w[idx].sum() / W if complexity == "expected_tests" else 1.0
            for f in range(X.shape[1]):
                for t in midpoint_thresholds(X[idx, f]):
                    left, right = idx[X[idx, f] <= t], idx[X[idx, f] > t]
                    value = min(value, alpha * share + best(left, d - 1) + best(right, d - 1))
        memo[key] = value
        return value

    return best(np.arange(len(Y)), depth)


# --------------------------------------------------------------------------------------------
# Lower convex hull / Pareto front
# --------------------------------------------------------------------------------------------
def lower_hull(points, tol=TIE_TOL):
    """The (complexity, loss) points that are the minimiser of L + alpha * C for some alpha >= 0.

    Returns an array (k, 2) sorted by increasing complexity (so decreasing loss): it starts at
    the lowest-loss point of smallest complexity (the single leaf when every cost is positive),
    ends at the minimum-loss point of smallest complexity (the optimum as alpha -> 0+), and keeps
    only the vertices in between that are the *unique* minimiser for an open interval of alpha
    (collinear points and points with an equal loss but a larger complexity are dropped).
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    l_min = pts[:, 1].min()
    c_end = pts[pts[:, 1] <= l_min + tol, 0].min()
    pts = pts[pts[:, 0] <= c_end + tol]
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]
    # one point per complexity (within tol): the lowest loss
    merged = []
    for c, loss in pts:
        if merged and c - merged[-1][0] <= tol:
            merged[-1] = (merged[-1][0], min(merged[-1][1], loss))
        else:
            merged.append((c, loss))
    hull = []
    for c, loss in merged:
        while len(hull) >= 2:
            (c0, l0), (c1, l1) = hull[-2], hull[-1]
            # cross product of (hull[-1] - hull[-2]) and (new - hull[-2]); <= 0: not convex
            cross = (c1 - c0) * (loss - l0) - (l1 - l0) * (c - c0)
            if cross <= tol * max(1.0, abs(c - c0)):
                hull.pop()
            else:
                break
        hull.append((c, loss))
    hull = np.array(hull)
    assert np.all(np.diff(hull[:, 1]) < 0)
    return hull


def hull_by_definition(points, tol=1e-9):
    """Slow, independent :func:`lower_hull`: minimise L + alpha * C between all breakpoints."""
    pts = np.unique(np.round(np.asarray(points, dtype=float), 12), axis=0)
    # a point dominated by another (C' <= C, L' <= L) is never the unique minimiser for alpha >= 0
    C, L = pts[:, 0], pts[:, 1]
    dominated = ((C[None, :] <= C[:, None]) & (L[None, :] <= L[:, None])).sum(axis=1) > 1
    pts = pts[~dominated]
    C, L = pts[:, 0], pts[:, 1]
    dc = C[None, :] - C[:, None]
    dl = L[:, None] - L[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ties = np.where(dc > tol, dl / dc, np.nan)
    breaks = np.unique(ties[np.isfinite(ties) & (ties > 0)])
    probes = [breaks[0] / 2 if len(breaks) else 1.0]
    probes += list((breaks[:-1] + breaks[1:]) / 2) + ([breaks[-1] * 2 + 1] if len(breaks) else [])
    chosen = set()
    for a in probes:
        obj = L + a * C
        best = np.flatnonzero(obj <= obj.min() + 1e-13)
        k = best[np.lexsort((C[best], L[best]))[0]]
        chosen.add(k)
    # alpha -> 0+ optimum: min loss, then min complexity (covered by the first probe normally)
    k0 = np.lexsort((C, L))[0]
    chosen.add(k0)
    out = pts[sorted(chosen)]
    return out[np.argsort(out[:, 0])]


def pareto_set(C, L, impurity, S, tol=TIE_TOL):
    """Indices of the trees no other beats on both counts, by increasing complexity.

    V = (L, I, S) (loss, tie-break impurity, splits) is compared lexicographically, within
    ``tol``: a tree is kept when its V is smaller than that of every simpler tree, and it is the
    first of smallest V among the trees of its complexity (values equal to 9 decimals).
    """
    C, L, impurity, S = (np.asarray(a, dtype=float) for a in (C, L, impurity, S))
    keep, best = [], None
    for k in np.lexsort([np.round(a, 9) for a in (S, impurity, L, C)]):
        v = (L[k], impurity[k], S[k])
        if best is None or next((a < b for a, b in zip(v, best, strict=True)
                                 if abs(a - b) > tol), False):
            keep.append(k)
            best = v
    return np.array(keep, dtype=int)


def expected_front(hull):
    """Rows of the Pareto front implied by a hull, in pareto_front_ order (increasing alpha).

    Returns arrays alpha_min, alpha_max, complexity, train_loss (the degenerate alpha = 0
    tie-break row is not included).
    """
    hull = np.asarray(hull)[::-1]  # most complex first
    C, L = hull[:, 0], hull[:, 1]
    breaks = (L[1:] - L[:-1]) / (C[:-1] - C[1:]) if len(hull) > 1 else np.array([])
    # with the hull sorted by decreasing complexity, loss increases: breaks are positive
    alpha_min = np.concatenate([[0.0], breaks])
    alpha_max = np.concatenate([breaks, [np.inf]])
    return alpha_min, alpha_max, C, L


# --------------------------------------------------------------------------------------------
# Fitted trees (scikit-learn tree_ layout) re-evaluated by routing samples
# --------------------------------------------------------------------------------------------
def structure_to_tree(structure, X, y_idx, w, n_classes):
    """Nested structure -> object with scikit-learn's tree_ arrays (value = class fractions)."""
    cl, cr, feat, thr, val, nns, wns = [], [], [], [], [], [], []

    def build(s, idx):
        node = len(cl)
        cl.append(-1), cr.append(-1), feat.append(-2), thr.append(-2.0)
        counts = class_weight_sums(y_idx[idx], w[idx], n_classes)
        val.append(counts / counts.sum())
        nns.append(len(idx))
        wns.append(w[idx].sum())
        if s[0] != "leaf":
            f, t, ls, rs = s
            feat[node], thr[node] = f, t
            go_left = X[idx, f] <= t
            cl[node] = build(ls, idx[go_left])
            cr[node] = build(rs, idx[~go_left])
        return node

    build(structure, np.arange(len(y_idx)))
    return SimpleNamespace(
        node_count=len(cl),
        children_left=np.array(cl, dtype=np.intp),
        children_right=np.array(cr, dtype=np.intp),
        feature=np.array(feat, dtype=np.intp),
        threshold=np.array(thr, dtype=float),
        value=np.array(val)[:, None, :],
        n_node_samples=np.array(nns, dtype=np.intp),
        weighted_n_node_samples=np.array(wns),
    )


def route(tree, X):
    """Node visited by each sample at each level: boolean membership matrix (n_nodes, n)."""
    cl = np.asarray(tree.children_left)
    cr = np.asarray(tree.children_right)
    feat = np.asarray(tree.feature)
    thr = np.asarray(tree.threshold)
    n_nodes = len(cl)
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    member = np.zeros((n_nodes, n), dtype=bool)
    node = np.zeros(n, dtype=np.intp)
    rows = np.arange(n)
    for _ in range(n_nodes):
        member[node, rows] = True
        internal = cl[node] != -1
        if not internal.any():
            break
        f = np.where(internal, feat[node], 0)
        go_left = X[rows, f] <= thr[node]
        node = np.where(internal, np.where(go_left, cl[node], cr[node]), node)
    else:
        raise AssertionError("tree arrays contain a cycle")
    return member


def tree_structure(tree):
    """(depth, n_leaves, internal node ids) of the part of the tree reachable from the root."""
    cl = np.asarray(tree.children_left)
    cr = np.asarray(tree.children_right)
    depth, leaves, internal = 0, 0, []
    stack = [(0, 0)]
    while stack:
        node, d = stack.pop()
        depth = max(depth, d)
        if cl[node] == -1:
            assert cr[node] == -1, "children_left/right disagree on a leaf"
            leaves += 1
        else:
            internal.append(node)
            stack += [(cl[node], d + 1), (cr[node], d + 1)]
    return depth, leaves, internal


def tree_stats(tree, X, y_idx, w, n_classes, costs=None):
    """Contract quantities of a fitted tree, recomputed from its arrays and the data.

    Samples are routed (``x <= threshold`` goes left); a leaf predicts the argmax of the tree's
    own ``value`` row (ties -> lowest class index), so ``train_loss`` is the loss of what the
    tree predicts. ``node_weight``/``node_count``/``node_class_weight`` are what the routed
    samples give, to be compared with the tree's stored arrays.
    """
    y_idx = np.asarray(y_idx)
    w = np.asarray(w, dtype=float)
    X = np.asarray(X, dtype=float)
    W = w.sum()
    costs = resolve_costs(costs, X.shape[1])
    member = route(tree, X)
    onehot = np.zeros((len(y_idx), n_classes))
    onehot[np.arange(len(y_idx)), y_idx] = w
    node_class_weight = member.astype(float) @ onehot
    node_weight = node_class_weight.sum(axis=1)
    depth, n_leaves, internal = tree_structure(tree)
    cl = np.asarray(tree.children_left)
    value = np.asarray(tree.value).reshape(len(cl), -1)
    feat = np.asarray(tree.feature)
    leaves = np.flatnonzero(cl == -1)
    leaves = leaves[member[leaves].any(axis=1)]
    loss = sum(
        node_weight[leaf] - node_class_weight[leaf, int(np.argmax(value[leaf]))] for leaf in leaves
    )
    return dict(
        train_loss=loss / W,
        expected_tests=sum(node_weight[s] * costs[feat[s]] for s in internal) / W,
        n_splits_cost=float(sum(costs[feat[s]] for s in internal)),
        n_splits=len(internal),
        n_leaves=n_leaves,
        depth=depth,
        gini=sum(weighted_impurity(node_class_weight[leaf], "gini") for leaf in leaves) / W,
        entropy=sum(weighted_impurity(node_class_weight[leaf], "entropy") for leaf in leaves) / W,
        node_weight=node_weight,
        node_count=member.sum(axis=1),
        node_class_weight=node_class_weight,
        internal=internal,
    )


def tree_complexity(stats, complexity):
    """Pick the complexity of ``tree_stats`` output for a complexity measure name."""
    return stats["expected_tests"] if complexity == "expected_tests" else stats["n_splits_cost"]


def tree_objective(tree, X, y_idx, w, n_classes, alpha, complexity="expected_tests", costs=None):
    stats = tree_stats(tree, X, y_idx, w, n_classes, costs)
    return stats["train_loss"] + alpha * tree_complexity(stats, complexity)


def prunings(tree, X, y_idx, w, n_classes):
    """Every pruning of a fitted tree (each internal node kept or collapsed to a leaf).

    A collapsed node predicts the weighted majority of the samples routed to it; so do the
    original leaves. Returns ``(TreeSet, W_total)``; the unpruned tree is the last entry.
    """
    stats = tree_stats(tree, X, y_idx, w, n_classes)
    ncw = stats["node_class_weight"]
    cl = np.asarray(tree.children_left)
    cr = np.asarray(tree.children_right)
    p = np.asarray(X).shape[1]

    def options(node):
        as_leaf = TreeSet.leaf(ncw[node], p)
        if cl[node] == -1:
            return as_leaf
        kept = TreeSet.split(
            int(tree.feature[node]),
            float(tree.threshold[node]),
            stats["node_weight"][node],
            options(cl[node]),
            options(cr[node]),
        )
        return TreeSet.concat([as_leaf, kept])

    return options(0), float(np.asarray(w, dtype=float).sum())


def pruning_objectives(
    tree, X, y_idx, w, n_classes, alpha, complexity="expected_tests", costs=None
):
    """Objective of every pruning of ``tree`` (last entry: the unpruned tree)."""
    ts, W = prunings(tree, X, y_idx, w, n_classes)
    c = resolve_costs(costs, np.asarray(X).shape[1])
    comp = ts.split_weight @ c / W if complexity == "expected_tests" else ts.split_count @ c
    return ts.loss / W + alpha * comp


# --------------------------------------------------------------------------------------------
# Regression: weighted squared error, leaves predicting the weighted mean
# --------------------------------------------------------------------------------------------
class RegressionEnumeration(Enumeration):
    """All trees of depth <= ``max_depth`` on (X, Y, w) with the squared-error loss.

    ``Y`` is (n,) or (n, n_outputs), ``w`` positive weights or None. ``train_loss`` is the
    weighted SSE over W_total (summed over outputs); there is no impurity tie-break, only the
    number of splits.
    """

    def __init__(self, X, Y, w, max_depth):
        X = np.asarray(X, dtype=float)
        Y = as_targets(Y)
        n, p = X.shape
        _check_tiny(n, p, max_depth)
        w = np.ones(n) if w is None else np.asarray(w, dtype=float)
        assert w.shape == (n,) and np.all(w > 0)
        self.X, self.Y, self.w = X, Y, w
        self.max_depth = max_depth
        self.W_total = float(w.sum())

        def leaf(idx):
            return TreeSet.regression_leaf(Y[idx], w[idx], p)

        self.trees = _enumerate_trees(X, w, np.arange(n), max_depth, leaf)

    def impurity(self, criterion=None):
        raise TypeError("regression trees have no impurity tie-break")

    def best_index(self, alpha, complexity="expected_tests", costs=None, criterion=None):
        """Index of a tree minimising (objective, n_splits) lexicographically."""
        obj = self.objective(alpha, complexity, costs)
        keep = np.flatnonzero(obj <= obj.min() + TIE_TOL)
        return int(keep[np.argmin(self.n_splits[keep])])

    def lexicographic_optimum(self, alpha, complexity="expected_tests", costs=None, criterion=None):
        """(objective, n_splits) of the tie-broken optimum."""
        obj = self.objective(alpha, complexity, costs)
        k = self.best_index(alpha, complexity, costs)
        return float(obj.min()), int(self.n_splits[k])

    def tree(self, k):
        """Tree ``k`` in scikit-learn's layout (see :func:`regression_structure_to_tree`)."""
        return regression_structure_to_tree(self.trees.structures[k], self.X, self.Y, self.w)


def regression_structure_to_tree(structure, X, Y, w):
    """Nested structure -> scikit-learn tree_ arrays; value (nodes, k, 1) = weighted means."""
    Y = as_targets(Y)
    cl, cr, feat, thr, val, imp, nns, wns = [], [], [], [], [], [], [], []

    def build(s, idx):
        node = len(cl)
        cl.append(-1), cr.append(-1), feat.append(-2), thr.append(-2.0)
        val.append(weighted_mean(Y[idx], w[idx]))
        imp.append(weighted_sse(Y[idx], w[idx]) / w[idx].sum())
        nns.append(len(idx))
        wns.append(w[idx].sum())
        if s[0] != "leaf":
            f, t, ls, rs = s
            feat[node], thr[node] = f, t
            go_left = X[idx, f] <= t
            cl[node] = build(ls, idx[go_left])
            cr[node] = build(rs, idx[~go_left])
        return node

    build(structure, np.arange(len(Y)))
    return SimpleNamespace(
        node_count=len(cl),
        children_left=np.array(cl, dtype=np.intp),
        children_right=np.array(cr, dtype=np.intp),
        feature=np.array(feat, dtype=np.intp),
        threshold=np.array(thr, dtype=float),
        value=np.array(val)[:, :, None],
        impurity=np.array(imp),
        n_node_samples=np.array(nns, dtype=np.intp),
        weighted_n_node_samples=np.array(wns),
    )


def regression_tree_stats(tree, X, Y, w=None, costs=None):
    """Contract quantities of a fitted regression tree, recomputed from its arrays and the data.

    Samples are routed (``x <= threshold`` goes left) and each is predicted by its leaf's stored
    ``value``, so ``train_loss`` is the weighted squared error of what the tree predicts.
    ``node_weight``/``node_count``/``node_mean``/``node_mse`` are what the routed samples give, to
    be compared with the tree's stored arrays.
    """
    X = np.asarray(X, dtype=float)
    Y = as_targets(Y)
    n, k = Y.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    W = w.sum()
    costs = resolve_costs(costs, X.shape[1])
    member = route(tree, X)
    n_nodes = member.shape[0]
    node_weight = member.astype(float) @ w
    node_mean = np.zeros((n_nodes, k))
    node_mse = np.zeros(n_nodes)
    for node in range(n_nodes):
        idx = np.flatnonzero(member[node])
        if idx.size:
            node_mean[node] = weighted_mean(Y[idx], w[idx])
            node_mse[node] = weighted_sse(Y[idx], w[idx]) / w[idx].sum()
    depth, n_leaves, internal = tree_structure(tree)
    cl = np.asarray(tree.children_left)
    value = np.asarray(tree.value).reshape(len(cl), -1)
    feat = np.asarray(tree.feature)
    leaves = np.flatnonzero(cl == -1)
    leaf_of = leaves[np.argmax(member[leaves], axis=0)]
    sse = float(np.sum(w[:, None] * (Y - value[leaf_of]) ** 2))
    return dict(
        train_loss=sse / W,
        expected_tests=sum(node_weight[s] * costs[feat[s]] for s in internal) / W,
        n_splits_cost=float(sum(costs[feat[s]] for s in internal)),
        n_splits=len(internal),
        n_leaves=n_leaves,
        depth=depth,
        node_weight=node_weight,
        node_count=member.sum(axis=1),
        node_mean=node_mean,
        node_mse=node_mse,
        internal=internal,
    )


def regression_prunings(tree, X, Y, w=None):
    """Every pruning of a fitted regression tree (each internal node kept or collapsed).

    Every leaf, collapsed or original, predicts the weighted mean of the samples routed to it.
    Returns ``(TreeSet, W_total)``; the unpruned tree is the last entry.
    """
    X = np.asarray(X, dtype=float)
    Y = as_targets(Y)
    w = np.ones(len(Y)) if w is None else np.asarray(w, dtype=float)
    member = route(tree, X)
    cl = np.asarray(tree.children_left)
    cr = np.asarray(tree.children_right)
    p = X.shape[1]

    def options(node):
        idx = np.flatnonzero(member[node])
        as_leaf = TreeSet.regression_leaf(Y[idx], w[idx], p)
        if cl[node] == -1:
            return as_leaf
        kept = TreeSet.split(
            int(tree.feature[node]),
            float(tree.threshold[node]),
            w[idx].sum(),
            options(cl[node]),
            options(cr[node]),
        )
        return TreeSet.concat([as_leaf, kept])

    return options(0), float(w.sum())


def regression_pruning_objectives(tree, X, Y, w, alpha, complexity="expected_tests", costs=None):
    """Objective of every pruning of a regression ``tree`` (last entry: the unpruned tree)."""
    ts, W = regression_prunings(tree, X, Y, w)
    c = resolve_costs(costs, np.asarray(X).shape[1])
    comp = ts.split_weight @ c / W if complexity == "expected_tests" else ts.split_count @ c
    return ts.loss / W + alpha * comp


# --------------------------------------------------------------------------------------------
# Newton (second-order boosting) objective: leaves scored from gradient and hessian sums
# --------------------------------------------------------------------------------------------
# With per-sample gradients g_i and hessians h_i (already multiplied by the sample weights), a
# leaf with G = sum g, H = sum h predicts -G / (H + lambda) and costs
# -G^2 / (2 (H + lambda)) + gamma (0 + gamma when H + lambda <= 0); a tree costs the sum over its
# leaves. Sample weights only enter the normalisation, train_loss = tree loss / sum w.
def newton_leaf_value(G, H, reg_lambda):
    denom = H + reg_lambda
    return -G / denom if denom > 0 else 0.0


def newton_leaf_loss(G, H, reg_lambda, gamma):
    denom = H + reg_lambda
    return (-0.5 * G * G / denom if denom > 0 else 0.0) + gamma


def _newton_leaf(g, h, reg_lambda, gamma, p):
    return TreeSet(
        structures=[("leaf",)],
        loss=np.array([newton_leaf_loss(float(np.sum(g)), float(np.sum(h)), reg_lambda, gamma)]),
        split_weight=np.zeros((1, p)),
        split_count=np.zeros((1, p)),
        gini=np.zeros(1),
        entropy=np.zeros(1),
        n_leaves=np.array([1]),
        depth=np.array([0]),
    )


class NewtonEnumeration(RegressionEnumeration):
    """All trees of depth <= ``max_depth`` with the Newton loss (raw sums in ``trees.loss``).

    ``g`` and ``h`` are the weighted gradients and hessians, ``w`` the sample weights (None for
    unit weights); ties between equal objectives go to fewer splits, as for regression.
    """

    def __init__(self, X, g, h, w, max_depth, reg_lambda, gamma):
        X = np.asarray(X, dtype=float)
        g, h = np.asarray(g, dtype=float), np.asarray(h, dtype=float)
        n, p = X.shape
        _check_tiny(n, p, max_depth)
        w = np.ones(n) if w is None else np.asarray(w, dtype=float)
        assert g.shape == h.shape == w.shape == (n,) and np.all(w > 0)
        self.X, self.g, self.h, self.w = X, g, h, w
        self.reg_lambda, self.gamma = float(reg_lambda), float(gamma)
        self.max_depth = max_depth
        self.W_total = float(w.sum())

        def leaf(idx):
            return _newton_leaf(g[idx], h[idx], self.reg_lambda, self.gamma, p)

        self.trees = _enumerate_trees(X, w, np.arange(n), max_depth, leaf)

    def tree(self, k):
        raise NotImplementedError("compare Newton trees through newton_tree_stats")


def newton_tree_stats(tree, X, g, h, w=None, reg_lambda=1.0, gamma=0.0):
    """Newton quantities of a fitted tree, recomputed by routing the samples.

    ``loss`` is the raw tree loss (sum over reached leaves of the closed form), ``train_loss``
    that over sum w; ``node_value``/``node_G``/``node_H``/``node_weight``/``node_count`` are what
    the routed samples give at every node, to compare with the tree's stored arrays.
    """
    X = np.asarray(X, dtype=float)
    g, h = np.asarray(g, dtype=float), np.asarray(h, dtype=float)
    w = np.ones(len(g)) if w is None else np.asarray(w, dtype=float)
    member = route(tree, X).astype(float)
    node_G, node_H, node_weight = member @ g, member @ h, member @ w
    node_value = np.array([newton_leaf_value(G, H, reg_lambda)
                           for G, H in zip(node_G, node_H, strict=True)])
    depth, n_leaves, internal = tree_structure(tree)
    cl = np.asarray(tree.children_left)
    leaves = np.flatnonzero(cl == -1)
    leaves = leaves[member[leaves].any(axis=1)]
    loss = sum(newton_leaf_loss(node_G[k], node_H[k], reg_lambda, gamma) for k in leaves)
    W = w.sum()
    return dict(
        loss=float(loss),
        train_loss=float(loss) / W,
        expected_tests=sum(node_weight[s] for s in internal) / W,
        n_splits=len(internal),
        n_leaves=n_leaves,
        depth=depth,
        leaves=leaves,
        node_G=node_G,
        node_H=node_H,
        node_value=node_value,
        node_weight=node_weight,
        node_count=member.sum(axis=1).astype(int),
    )


# --------------------------------------------------------------------------------------------
# Split generators (Top-k, Top-B, CART's single best split) and the trees built from them
# --------------------------------------------------------------------------------------------
# A state of depth d with at least two splits left is offered the splits of its generator
# (splitter[d], budget candidates[d]; "cart" with budget 1 beyond the given lists); a state with
# one split left is offered every split (the exact last level). Generator scores are in weight
# units: W * H(parent) - W_L * H(L) - W_R * H(R) for "gini" and "entropy" (bits), that entropy
# gain over the split information -(p_L log2 p_L + p_R log2 p_R) (weight fractions) for
# "gain_ratio". Ranking: higher score first, equal scores by lower feature, then lower threshold.
SCORE_CRITERIA = ("gini", "entropy", "gain_ratio")


def tie_impurity(criterion):
    """The impurity that breaks ties between trees: the entropy for gain_ratio."""
    return "gini" if criterion == "gini" else "entropy"


def split_score(parent, left, right, criterion):
    """Generator score of a split from the class weight sums of the node and its two sides."""
    imp = tie_impurity(criterion)
    gain = (
        weighted_impurity(parent, imp)
        - weighted_impurity(left, imp)
        - weighted_impurity(right, imp)
    )
    if criterion != "gain_ratio":
        return gain
    frac = np.array([left.sum(), right.sum()]) / parent.sum()
    return gain / float(-np.sum(frac * np.log2(frac)))


def scored_splits(X, y_idx, w, n_classes, idx, criterion):
    """Every split of a node as (score, feature, threshold, left, right), by feature, threshold."""
    parent = class_weight_sums(y_idx[idx], w[idx], n_classes)
    out = []
    for f, t, left, right in candidate_splits(X, idx):
        score = split_score(
            parent,
            class_weight_sums(y_idx[left], w[left], n_classes),
            class_weight_sums(y_idx[right], w[right], n_classes),
            criterion,
        )
        out.append((score, f, t, left, right))
    return out


def rank_splits(splits, tol):
    """Highest score first; scores closer than ``tol`` are equal and keep their given order."""
    ranked = []
    for s in splits:  # insertion sort: a stable order that treats near-equal scores as equal
        at = len(ranked)
        while at > 0 and s[0] > ranked[at - 1][0] + tol:
            at -= 1
        ranked.insert(at, s)
    return ranked


def generator_splits(X, y_idx, w, n_classes, idx, splitter, budget, criterion):
    """The (feature, threshold, left, right) candidates a generator offers at a node.

    "topk": the ``budget`` features of highest best score, each with its best threshold (the
    lowest of equal scores); "topb": the ``budget`` (feature, threshold) pairs of highest score;
    "cart" with budget 1: the single best split; "exhaustive": every split; "lookahead" with
    budget 1: the single best split, then the split of lowest depth-2 lookahead loss.
    """
    if splitter == "exhaustive":
        return list(candidate_splits(X, idx))
    if splitter == "lookahead" and budget == 1:
        cart = generator_splits(X, y_idx, w, n_classes, idx, "cart", 1, criterion)
        return cart + lookahead_splits(X, y_idx, w, n_classes, idx, 1)
    scored = scored_splits(X, y_idx, w, n_classes, idx, criterion)
    tol = 1e-9 * max(1.0, float(w[idx].sum()))
    if splitter == "topk":
        per_feature = []
        for f in range(X.shape[1]):
            mine = [s for s in scored if s[1] == f]
            if mine:
                top = max(s[0] for s in mine)
                per_feature.append(next(s for s in mine if s[0] >= top - tol))
        chosen = rank_splits(per_feature, tol)[:budget]
    elif splitter == "topb" or (splitter == "cart" and budget == 1):
        chosen = rank_splits(scored, tol)[:budget]
    else:
        raise NotImplementedError(f"no reference for splitter={splitter!r}, budget={budget}")
    return [s[1:] for s in chosen]


def best_depth1_loss(X, y_idx, w, n_classes, idx):
    """Weighted 0-1 loss of the best tree of depth <= 1 on the samples ``idx``."""
    def leaf(part):
        counts = class_weight_sums(y_idx[part], w[part], n_classes)
        return float(counts.sum() - counts.max())
    return min([leaf(idx)] + [leaf(left) + leaf(right)
                              for _, _, left, right in candidate_splits(X, idx)])


def lookahead_splits(X, y_idx, w, n_classes, idx, budget):
    """The ``budget`` splits of lowest depth-2 lookahead loss (each child's best depth-1 loss).

    Losses closer than the tolerance tie and keep (feature, threshold) order.
    """
    scored = [(-(best_depth1_loss(X, y_idx, w, n_classes, left)
                 + best_depth1_loss(X, y_idx, w, n_classes, right)), f, t, left, right)
              for f, t, left, right in candidate_splits(X, idx)]
    tol = 1e-9 * max(1.0, float(w[idx].sum()))
    return [s[1:] for s in rank_splits(scored, tol)[:budget]]


def per_depth(value, max_depth):
    """A per-depth parameter (a scalar or a sequence) as a list of length max_depth."""
    if isinstance(value, str | int):
        return [value] * max_depth
    return list(value)


class GeneratorSearch:
    """Brute force over the trees of depth <= ``max_depth`` built from a generator's candidates.

    ``splitter`` and ``candidates`` are given as to DPDTreeClassifier (one value, or one per
    depth; beyond the lists: "cart" with budget 1). ``optimum`` minimises
    train_loss + alpha * complexity by recursion over the states (sample subset, depth), with
    every split tried at the last level; ``n_generated`` is the number of candidates the
    generators offered over the distinct states reached.
    """

    def __init__(self, X, y_idx, w, n_classes, max_depth, splitter, candidates, criterion):
        self.X = np.asarray(X, dtype=float)
        self.y_idx = np.asarray(y_idx)
        self.w = np.asarray(w, dtype=float)
        n, p = self.X.shape
        assert n <= 12 and p <= 3 and max_depth <= 3, "brute force is for tiny problems only"
        self.n_classes, self.max_depth, self.criterion = n_classes, max_depth, criterion
        self.splitters = per_depth(splitter, max_depth)
        self.budgets = per_depth(candidates, max_depth)
        self.W_total = float(self.w.sum())
        self._offers = {}
        self._visit(np.arange(n), 0)

    def _leaf_loss(self, idx):
        counts = class_weight_sums(self.y_idx[idx], self.w[idx], self.n_classes)
        return float(counts.sum() - counts.max())

    def _visit(self, idx, depth):
        """Record the splits offered at every state reachable from (idx, depth)."""
        key = (tuple(idx), depth)
        if key in self._offers:
            return
        remaining = self.max_depth - depth
        if remaining == 0 or len(idx) < 2 or self._leaf_loss(idx) <= 0:
            self._offers[key] = []
            return
        if remaining == 1:
            offers = list(candidate_splits(self.X, idx))
        else:
            splitter = self.splitters[depth] if depth < len(self.splitters) else "cart"
            budget = self.budgets[depth] if depth < len(self.budgets) else 1
            offers = generator_splits(
                self.X, self.y_idx, self.w, self.n_classes, idx, splitter, budget, self.criterion
            )
        self._offers[key] = offers
        for _, _, left, right in offers:
            self._visit(left, depth + 1)
            self._visit(right, depth + 1)

    @property
    def n_generated(self):
        return sum(
            len(offers) for (_, depth), offers in self._offers.items()
            if self.max_depth - depth >= 2
        )

    def offers(self, idx, depth):
        """The (feature, threshold, left, right) splits offered at a state."""
        return self._offers[(tuple(idx), depth)]

    def optimum(self, alpha, complexity="expected_tests", costs=None):
        """Minimum of train_loss + alpha * complexity over the trees of the search space."""
        c = resolve_costs(costs, self.X.shape[1])
        memo = {}

        def value(idx, depth):
            key = (tuple(idx), depth)
            if key not in memo:
                best = self._leaf_loss(idx) / self.W_total
                share = self.w[idx].sum() / self.W_total if complexity == "expected_tests" else 1
                for f, _, left, right in self._offers[key]:
                    cand = alpha * c[f] * share + value(left, depth + 1) + value(right, depth + 1)
                    best = min(best, cand)
                memo[key] = best
            return memo[key]

        return value(np.arange(len(self.y_idx)), 0)

    def enumeration(self):
        """Every tree of the search space as an :class:`Enumeration` (small spaces only)."""
        def trees(idx, depth):
            counts = class_weight_sums(self.y_idx[idx], self.w[idx], self.n_classes)
            sets = [TreeSet.leaf(counts, self.X.shape[1])]
            for f, t, left, right in self._offers[(tuple(idx), depth)]:
                sets.append(TreeSet.split(
                    f, t, self.w[idx].sum(), trees(left, depth + 1), trees(right, depth + 1)
                ))
            return TreeSet.concat(sets)

        def count(idx, depth):
            return 1 + sum(
                count(left, depth + 1) * count(right, depth + 1)
                for _, _, left, right in self._offers[(tuple(idx), depth)]
            )

        assert count(np.arange(len(self.y_idx)), 0) < 200_000, "search space too large"
        enum = Enumeration.__new__(Enumeration)
        enum.X, enum.y_idx, enum.w = self.X, self.y_idx, self.w
        enum.n_classes, enum.max_depth, enum.W_total = self.n_classes, self.max_depth, self.W_total
        enum.trees = trees(np.arange(len(self.y_idx)), 0)
        return enum
