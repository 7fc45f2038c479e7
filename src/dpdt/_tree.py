"""The fitted tree: flat parallel arrays in scikit-learn's ``tree_`` layout."""

import numpy as np
from scipy import sparse

from . import _core
from ._io import register_type
from ._validation import binary_exponent

TREE_LEAF = -1
TREE_UNDEFINED = -2

# The arrays a model file holds for a tree (see _io).
_TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
                "n_node_samples", "weighted_n_node_samples", "missing_go_to_left")
# The dtype kinds each may have in a file.
_TREE_ARRAY_KINDS = {"children_left": "i", "children_right": "i", "feature": "i",
                     "threshold": "f", "value": "f", "impurity": "f", "n_node_samples": "i",
                     "weighted_n_node_samples": "f", "missing_go_to_left": "ub"}
# Arrays that files of an earlier dpdt may lack, and what they mean then.
_TREE_ARRAY_DEFAULTS = {"missing_go_to_left": lambda n: np.zeros(n, dtype=np.uint8)}


def check_fractions(fractions, decoder, where):
    """Check loaded class fractions, one row per node: in [0, 1] and summing to 1 (to rounding)."""
    decoder.expect(np.all((fractions >= 0) & (fractions <= 1))
                   and np.all(np.abs(fractions.sum(axis=1) - 1.0) <= 1e-9),
                   f"{where}: class fractions outside [0, 1] or not summing to 1")


@register_type("Tree")
class Tree:
    """A fitted binary decision tree stored as parallel arrays, one entry per node.

    Node 0 is the root and nodes are numbered in depth-first preorder, left child first. A sample
    goes to the left child when ``X[:, feature[node]] <= threshold[node]``, and a sample whose
    value is missing (NaN) when ``missing_go_to_left[node]`` is 1. Leaves have
    ``children_left == children_right == -1`` and ``feature == threshold == -2``, exactly as in
    scikit-learn's ``tree_``.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    children_left, children_right : ndarray of shape (node_count,), dtype int64
        Child ids, -1 for leaves.
    feature : ndarray of shape (node_count,), dtype int64
        Feature tested at each split node, -2 for leaves.
    threshold : ndarray of shape (node_count,), dtype float64
        Threshold of each split node, -2 for leaves.
    missing_go_to_left : ndarray of shape (node_count,), dtype uint8
        1 where a missing value goes left: the side better for the objective when the node's
        training samples had missing values of its feature, else the side with more samples (as
        in scikit-learn).
    value : ndarray of shape (node_count, 1, n_classes) or (node_count, n_outputs, 1)
        Classification: weighted class fractions of the training samples reaching each node.
        Regression: their weighted mean of each output.
    impurity : ndarray of shape (node_count,)
        Impurity of each node: the classifier's criterion, or the regressor's weighted mean
        squared error.
    n_node_samples : ndarray of shape (node_count,), dtype int64
        Training samples reaching each node.
    weighted_n_node_samples : ndarray of shape (node_count,)
        Their total weight.
    max_depth : int
        Depth of the tree (0 for a single leaf).
    n_leaves : int
        Number of leaves.
    """

    def __init__(self, *, children_left, children_right, feature, threshold, value, impurity,
                 n_node_samples, weighted_n_node_samples, n_features, missing_go_to_left=None):
        self.children_left = np.asarray(children_left, dtype=np.int64)
        self.children_right = np.asarray(children_right, dtype=np.int64)
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.missing_go_to_left = (np.zeros(self.threshold.shape, dtype=np.uint8)
                                   if missing_go_to_left is None
                                   else np.asarray(missing_go_to_left, dtype=np.uint8))
        self.value = np.asarray(value, dtype=np.float64)
        self.impurity = np.asarray(impurity, dtype=np.float64)
        self.n_node_samples = np.asarray(n_node_samples, dtype=np.int64)
        self.weighted_n_node_samples = np.asarray(weighted_n_node_samples, dtype=np.float64)
        self.n_features = int(n_features)
        self.node_count = int(self.feature.shape[0])
        # Level by level from the root: a front of thousands of deep trees is built per fit.
        depth = np.zeros(self.node_count, dtype=np.int64)
        level = np.zeros(min(self.node_count, 1), dtype=np.int64)
        for d in range(self.node_count):
            if not level.size:
                break
            depth[level] = d
            level = level[self.children_left[level] != TREE_LEAF]
            level = np.concatenate([self.children_left[level], self.children_right[level]])
        self.node_depth = depth
        self.max_depth = int(depth.max()) if self.node_count else 0
        self.n_leaves = int(np.sum(self.children_left == TREE_LEAF))

    def _encode(self, encoder, where):
        return {"n_features": self.n_features,
                **{name: encoder.array(getattr(self, name), where) for name in _TREE_ARRAYS}}

    @classmethod
    def _decode(cls, node, decoder, where):
        arrays = {name: decoder.array(node.get(name), f"{where}.{name}", _TREE_ARRAY_KINDS[name])
                  for name in _TREE_ARRAYS if name in node or name not in _TREE_ARRAY_DEFAULTS}
        n_features = node.get("n_features")
        decoder.expect(isinstance(n_features, int) and n_features >= 1,
                       f"{where}: bad n_features")
        decoder.expect(all(a.ndim >= 1 for a in arrays.values()),
                       f"{where}: arrays of inconsistent shapes")
        n = arrays["feature"].shape[0]
        for name, default in _TREE_ARRAY_DEFAULTS.items():
            arrays.setdefault(name, default(n))
        decoder.expect(np.isin(arrays["missing_go_to_left"], (0, 1)).all(),
                       f"{where}.missing_go_to_left: expected 0 or 1")
        decoder.expect(n >= 1 and all(a.shape[:1] == (n,) for a in arrays.values())
                       and arrays["value"].ndim == 3, f"{where}: arrays of inconsistent shapes")
        left, right, feature = arrays["children_left"], arrays["children_right"], arrays["feature"]
        leaf = left == TREE_LEAF
        nodes = np.arange(n)
        # Preorder (children after their parent) rules out cycles; every node but the root is
        # the child of exactly one split.
        decoder.expect(np.array_equal(leaf, right == TREE_LEAF)
                       and np.all(left[~leaf] > nodes[~leaf])
                       and np.all(right[~leaf] > left[~leaf]) and np.all(right[~leaf] < n)
                       and np.array_equal(np.sort(np.concatenate([left[~leaf], right[~leaf]])),
                                          nodes[1:]),
                       f"{where}: the children arrays do not form a binary tree")
        decoder.expect(np.all((feature[~leaf] >= 0) & (feature[~leaf] < n_features))
                       and np.all(feature[leaf] == TREE_UNDEFINED),
                       f"{where}: feature index out of range")
        decoder.expect(np.all(np.isfinite(arrays["threshold"][~leaf]))
                       and np.all(arrays["threshold"][leaf] == TREE_UNDEFINED),
                       f"{where}: non-finite threshold, or a leaf's threshold other than "
                       f"{TREE_UNDEFINED}")
        # What every fit writes, boosting's trees included (whose split nodes hold Newton
        # statistics, inf where y's scale squared overflows); the estimator checks what its own
        # trees hold besides.
        decoder.expect(np.all(np.isfinite(arrays["value"][leaf])),
                       f"{where}.value: non-finite leaf values")
        decoder.expect(not np.isnan(arrays["value"]).any()
                       and not np.isnan(arrays["impurity"]).any(),
                       f"{where}: NaN values or impurities")
        weight = arrays["weighted_n_node_samples"]
        decoder.expect(np.all(np.isfinite(weight)) and np.all(weight >= 0)
                       and np.all(arrays["n_node_samples"] >= 1),
                       f"{where}: node sample counts or weights below what a fit makes")
        return cls(**arrays, n_features=n_features)

    def _check_values(self, decoder, where, *, classifier):
        """Check the node values of a loaded DPDT tree (not boosting's) against what a fit makes.

        A classifier's nodes hold class fractions (in [0, 1], summing to 1), a regressor's any
        finite means; both have impurities >= 0 and nodes of positive weight.
        """
        if classifier:
            check_fractions(self.value[:, 0, :], decoder, where)
        decoder.expect(np.all(np.isfinite(self.value)), f"{where}: non-finite values")
        decoder.expect(np.all(np.isfinite(self.impurity)) and np.all(self.impurity >= 0)
                       and np.all(self.weighted_n_node_samples > 0),
                       f"{where}: impurities that are negative or not finite, or nodes of no "
                       "weight")

    @classmethod
    def from_weighted_counts(cls, arrays, n_features):
        """Build from the core's arrays, whose ``value`` holds weighted class sums."""
        counts = np.asarray(arrays["value"], dtype=np.float64)
        totals = counts.sum(axis=1, keepdims=True)
        fractions = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
        fields = dict(arrays)
        fields["value"] = fractions[:, np.newaxis, :]
        return cls(**fields, n_features=n_features)

    @classmethod
    def from_means(cls, arrays, n_features):
        """Build from the core's arrays of a regression tree, whose ``value`` holds leaf means."""
        fields = dict(arrays)
        fields["value"] = np.asarray(arrays["value"], dtype=np.float64)[:, :, np.newaxis]
        return cls(**fields, n_features=n_features)

    @property
    def is_leaf(self):
        """Boolean mask of the leaves."""
        return self.children_left == TREE_LEAF

    def apply(self, X):
        """Index of the leaf reached by each row of a validated float64 C-ordered ``X``."""
        # The core reads X[i, feature] unchecked: fewer columns would be read out of bounds.
        if np.ndim(X) != 2 or np.shape(X)[1] != self.n_features:
            raise ValueError(f"X has shape {np.shape(X)}, the tree needs (n_samples, "
                             f"{self.n_features})")
        return _core.apply(self.children_left, self.children_right, self.feature, self.threshold,
                           self.missing_go_to_left, X)

    def decision_path(self, X):
        """CSR indicator matrix (n_samples, node_count) of the nodes each row goes through."""
        n = X.shape[0]
        node = np.zeros(n, dtype=np.int64)
        rows, cols = [np.arange(n)], [node.copy()]
        active = np.arange(n)
        while active.size:
            current = node[active]
            internal = self.children_left[current] != TREE_LEAF
            active, current = active[internal], current[internal]
            if not active.size:
                break
            x = X[active, self.feature[current]]
            go_left = np.where(np.isnan(x), self.missing_go_to_left[current] == 1,
                               x <= self.threshold[current])
            nxt = np.where(go_left, self.children_left[current], self.children_right[current])
            node[active] = nxt
            rows.append(active)
            cols.append(nxt.copy())
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        data = np.ones(rows.shape[0], dtype=np.int64)
        return sparse.csr_matrix((data, (rows, cols)), shape=(n, self.node_count))

    def compute_feature_importances(self):
        """Total weighted impurity decrease brought by each feature, normalised to sum to 1."""
        importances = np.zeros(self.n_features)
        internal = np.flatnonzero(~self.is_leaf)
        left, right = self.children_left[internal], self.children_right[internal]
        # Brought near 1 by powers of two (exact: the normalised importances do not change), as
        # node weight times squared error can overflow where neither does.
        w = np.ldexp(self.weighted_n_node_samples, -binary_exponent(self.weighted_n_node_samples))
        imp = np.ldexp(self.impurity, -binary_exponent(self.impurity))
        decrease = w[internal] * imp[internal] - w[left] * imp[left] - w[right] * imp[right]
        np.add.at(importances, self.feature[internal], decrease)
        total = importances.sum()
        return importances / total if total > 0 else importances
