"""BRANCHES: certified optimal sparse trees with multiway splits on categorical features."""

import math
import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._categories import CategoryCodes
from ._classes import LogProbaMixin
from ._explorer import ExplorerReprMixin
from ._io import SaveMixin, register_estimator
from ._multiway_tree import MultiwayTree
from ._params import BRANCHES, declare
from ._progress import core_seconds, reporter
from ._runner import call_core
from ._validation import training_weight

# More distinct values than this (and fewer than ten rows a value) make a numeric feature look
# continuous to the multiway trees, which make a child per value (see _warn_many_valued).
MANY_VALUES = 32


class ManyValuesWarning(UserWarning):
    """A numeric feature of a multiway tree looks continuous: a category per value.

    ``features`` lists them as (name or index, number of distinct values).
    """


class _MultiwayClassifier(ExplorerReprMixin, LogProbaMixin, SaveMixin, ClassifierMixin,
                          BaseEstimator):
    """Encoding, traversal and prediction shared by the multiway-tree classifiers."""

    def _training_codes(self, X, y, sample_weight):
        """Validate, learn the category codes, and return the rows of positive weight."""
        # X itself is kept: a DataFrame's columns carry their dtypes to the encoder.
        _, y = validate_data(self, X, y, dtype=None, ensure_all_finite=False, reset=True)
        # validate_data leaves y one-dimensional; integer, boolean and string labels are then
        # always classes. Other dtypes (floats, objects) get scikit-learn's check, which costs
        # a sixth of a small fit.
        if y.dtype.kind not in "iubUS":
            check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        # Normalised: accuracy ignores the weights' scale; floats do not. The trees report
        # fractions only, so a sum of weights beyond float64 is no obstacle.
        weight, kept, _ = training_weight(sample_weight, np.empty((len(y_codes), 0)),
                                          reports_total=False)
        self._codes = CategoryCodes(self.max_bins)
        codes = self._codes.fit_transform(X, weight)
        self._warn_many_valued(codes)
        return (codes,
                np.ascontiguousarray(y_codes[kept], dtype=np.int32),
                np.ascontiguousarray(weight[kept]))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True   # a category of its own (see CategoryCodes)
        return tags

    def _warn_many_valued(self, codes):
        """Warn about numeric features that look continuous: a category per value.

        A split makes one child per category, so a feature of many distinct values splits
        its rows into many tiny children, and the tree fits noise (wine's 13 measurements:
        trees of 200 lines, test accuracy 0.47). More than MANY_VALUES values, and fewer than
        ten rows a value on average, is rare for a genuine category and common for a
        measurement; the bundled categorical benchmarks have at most 12.
        """
        if self.max_bins is not None:
            return
        n_rows = codes.shape[0]
        counts = [(j, len(table) - bool(len(table) and table.dtype.kind == "f"
                                        and np.isnan(table[-1])))
                  for j, (kind, table) in enumerate(self._codes.encoders_) if kind == "values"]
        many = [(j, n) for j, n in counts if n > max(MANY_VALUES, n_rows / 10)]
        if not many:
            return
        names = getattr(self, "feature_names_in_", None)
        shown = ", ".join(f"{names[j]!r} ({n})" if names is not None else f"{j} ({n})"
                          for j, n in many[:5])
        more = f" and {len(many) - 5} more" if len(many) > 5 else ""
        warning = ManyValuesWarning(
            f"{type(self).__name__}: numeric feature{'s' if len(many) > 1 else ''} {shown}{more} "
            f"{'have' if len(many) > 1 else 'has'} many distinct values (in brackets) among "
            f"{n_rows} samples, and each value is a category of its own, so a split on it makes "
            "a child per value. For measurements, bin them (max_bins=10, or "
            "sklearn.preprocessing.KBinsDiscretizer) or fit dpdt.DPDTreeClassifier, which "
            "splits on thresholds.")
        warning.features = [(names[j] if names is not None else j, n) for j, n in many]
        warnings.warn(warning, stacklevel=5)

    def _search(self, codes, y_codes, weight, progress):
        # The branches expanded by the searches before the current one.
        expanded = 0

        def search(max_depth, time_limit):
            nonlocal expanded
            # A path tests a feature once, so a depth limit beyond n_features never binds; the
            # core takes both limits as fixed-width ints.
            depth = min(max_depth, codes.shape[1]) if max_depth else 0
            # The core reports the branches expanded as its states.
            notes = [f"search at depth {max_depth}"] if max_depth != self.max_depth else []
            callback = None if not self.verbose else (
                lambda states, done, total, seconds: progress.update(expanded + states,
                                                                     notes=notes))
            result = call_core("fit_branches", codes, y_codes, weight, n_classes=len(self.classes_),
                               params=dict(lam=float(self.lam), max_depth=depth,
                                           time_limit=time_limit,
                                           max_branches=min(self.max_branches, 2**63 - 1)),
                               progress=callback, progress_seconds=core_seconds())
            expanded += result["iterations"]
            if result["stopped_by"] == "max_branches":
                self._max_branches_reached = True
            return result

        if not self.time_limit:
            return search(self.max_depth, 0.0)
        # Under a time limit, the unbounded search's first trees can be poor (deep chains), while
        # shallow depth-limited searches are cheap and often proven. The full search first gets a
        # tenth of the time, enough for most searches that finish at all; if it does not
        # finish, the shallow searches run on up to half of the time, then the full search again,
        # and their best tree stands unless the full search beats it. The full search's bound
        # still certifies the result, and so can a shallow search (see `_depth_that_certifies`).
        start = time.perf_counter()
        first = search(self.max_depth, self.time_limit / 10)
        if first["optimal"]:
            return first
        shallow_until = start + self.time_limit / 2
        best = first
        depth = 1
        deeper = self.max_depth is None or depth < self.max_depth
        iterations = first["iterations"]
        while deeper and time.perf_counter() < shallow_until:
            result = search(depth, max(1e-3, shallow_until - time.perf_counter()))
            iterations += result["iterations"]
            if result["objective"] > best["objective"]:
                best = result
            if result["optimal"] and depth >= self._depth_that_certifies(best["objective"]):
                return dict(best, iterations=iterations, optimal=True,
                            upper_bound=best["objective"])
            # Stop once a search is cut short, or no deeper tree exists (a path uses each
            # feature once).
            if not result["optimal"]:
                break
            depth += 1
            deeper = (self.max_depth is None or depth < self.max_depth) and depth <= codes.shape[1]
        full = search(self.max_depth, max(1e-3, start + self.time_limit - time.perf_counter()))
        full["iterations"] += iterations
        if full["objective"] >= best["objective"]:
            return full
        best = dict(best, iterations=full["iterations"], branches=full["branches"])
        best["upper_bound"] = max(full["upper_bound"], best["objective"])
        best["optimal"] = full["optimal"] or best["objective"] >= full["upper_bound"] - 1e-12
        return best

    def _depth_that_certifies(self, objective):
        """Return a depth within which lies every tree of higher objective than ``objective``.

        A tree with s splits is worth at most 1 - lam * s, and each split of a path is one of
        its splits: a tree beating ``objective`` has fewer than (1 - objective) / lam splits, so
        its depth is below that too. A search proven optimal at that depth is then proven
        optimal among all trees. (Rounded up, so a tree that only ties is allowed too.)
        """
        if self.lam <= 0:
            return math.inf
        return math.ceil((1.0 - objective) / self.lam + 1e-9) - 1

    def _check_fitted_state(self, decoder, where):
        codes, tree = getattr(self, "_codes", None), getattr(self, "tree_", None)
        decoder.expect(isinstance(codes, CategoryCodes)
                       and len(codes.encoders_) == self.n_features_in_,
                       f"{where}: the category encoders do not match n_features_in_")
        decoder.expect(isinstance(tree, MultiwayTree)
                       and np.all(tree.feature < self.n_features_in_),
                       f"{where}: feature out of range")
        parents = np.repeat(np.arange(tree.node_count), np.diff(tree.edge_begin))
        decoder.expect(np.all(tree.edge_category < codes.n_codes()[tree.feature[parents]]),
                       f"{where}: an edge's category is not a code of its feature")
        classes = getattr(self, "classes_", None)
        decoder.expect(isinstance(classes, np.ndarray) and classes.ndim == 1
                       and tree.value.shape[-1] == len(classes),
                       f"{where}: the trees' class fractions do not match classes_")
        decoder.expect(all(isinstance(v, float) and np.isfinite(v)
                           for v in (vars(self).get(name, 0.0)
                                     for name in ("objective_", "upper_bound_"))),
                       f"{where}: objective_ or upper_bound_ is not finite")

    def _codes_for_predict(self, X):
        check_is_fitted(self)
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        return self._codes.transform(X)

    def apply(self, X):
        """Return the node where each sample stops.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        nodes : ndarray of shape (n_samples,)
            Node index in :attr:`tree_`.
        """
        codes = self._codes_for_predict(X)
        return self.tree_.apply(codes)

    def predict_proba(self, X):
        """Return the weighted class fractions of each sample's node.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities, columns ordered as :attr:`classes_`.
        """
        nodes = self.apply(X)
        return self.tree_.value[nodes]

    def predict(self, X):
        """Return the majority class of each sample's node.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


@register_estimator
@declare(BRANCHES)
class BranchesClassifier(_MultiwayClassifier):
    """Optimal sparse decision tree with multiway categorical splits (BRANCHES).

    Finds the tree that maximises

        H(T) = weighted training accuracy(T) - lam * (number of splits of T)

    over all trees (no depth limit unless ``max_depth``) whose internal nodes split a branch on
    one categorical feature into one child per category present, and proves it optimal. The
    search is dynamic programming over branches with branch & bound: the purification bound
    (an unsolved branch is worth at most max(its leaf accuracy, its weight fraction - lam))
    prunes splits that cannot beat the best one found (Chaouki, Read and Bifet, "Branches",
    ICML 2025), in dpdt's C++ core. A class bound tightens it: s splits make at most
    1 + s (C - 1) leaves (C the most categories of a feature), so a subtree with s splits is
    right on at most that many classes' samples, minus lam * s. ID3's tree (largest information
    gain), pruned where a leaf is worth more, is the first incumbent of the search at each of
    its nodes: a fit stopped by ``time_limit`` is never worse than it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, for DataFrame input with string column names.
    tree_ : MultiwayTree
        The tree.
    objective_ : float
        H of the tree returned.
    upper_bound_ : float
        Certified upper bound on the optimal H; equal to ``objective_`` when optimal.
    is_optimal_ : bool
        True when the tree is proven optimal.
    n_iterations_ : int
        Branches expanded by the search.
    n_branches_ : int
        Distinct branches memoised.
    stats_ : dict
        ``stopped_by``, the parameter whose limit stopped the search (``"time_limit"`` or
        ``"max_branches"``; None when it completed), and ``gap``, ``upper_bound_ -
        objective_``: 0 when the tree is optimal.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import BranchesClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
    >>> clf = BranchesClassifier(lam=0.01).fit(X, [0, 0, 1, 1, 0, 0])
    >>> clf.is_optimal_, clf.tree_.n_splits, clf.score(X, [0, 0, 1, 1, 0, 0])
    (True, 1, 1.0)
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find the optimal tree.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Categorical features: non-negative integer codes, or DataFrame columns of any
            dtype (see ``max_bins`` for numeric ones). A missing value (NaN, None, pandas'
            NA) is a category of its own, one for all its kinds; infinity is refused. Numeric
            features of many distinct values (more than 32, and fewer than ten samples a
            value) get a UserWarning with ``max_bins=None``: each value is a category.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Positive sample weights; accuracy is then weighted.

        Returns
        -------
        self : BranchesClassifier
            The fitted estimator.
        """
        codes, y_codes, weight = self._training_codes(X, y, sample_weight)
        self._max_branches_reached = False
        with reporter(self.verbose, type(self).__name__, "branches expanded") as progress:
            result = self._search(codes, y_codes, weight, progress)
            progress.finish(result["iterations"], notes=[
                f"objective {result['objective']:.6g}",
                "optimal" if result["optimal"] else f"upper bound {result['upper_bound']:.6g}"])
        self.tree_ = MultiwayTree(result)
        self.objective_ = result["objective"]
        self.upper_bound_ = result["upper_bound"]
        self.is_optimal_ = bool(result["optimal"])
        self.n_iterations_ = result["iterations"]
        self.n_branches_ = result["branches"]
        stopped_by = None if self.is_optimal_ else (
            "max_branches" if self._max_branches_reached else "time_limit")
        self.stats_ = {"stopped_by": stopped_by, "gap": self.upper_bound_ - self.objective_}
        if not self.is_optimal_:
            limit = (f"max_branches={self.max_branches} reached" if self._max_branches_reached
                     else f"time_limit={self.time_limit} s expired")
            warnings.warn(f"{limit} before optimality was proven: "
                          f"objective {self.objective_:.6f}, upper bound {self.upper_bound_:.6f}",
                          ConvergenceWarning, stacklevel=2)
        return self


@register_estimator
class MultiwayGreedyClassifier(_MultiwayClassifier):
    """Greedy multiway decision tree: ID3 (information gain) or C4.5 (gain ratio).

    The classic baselines of BRANCHES on the same representation: each node splits on the
    categorical feature of largest information gain (``criterion="entropy"``, ID3) or gain ratio
    (``criterion="gain_ratio"``, C4.5, among the features of at least average gain, as Quinlan
    does), one child per category present, until the node is pure, ``max_depth`` is reached, no
    split gains information, or a split would leave a child with fewer than ``min_samples_leaf``
    samples.

    Parameters
    ----------
    criterion : {"entropy", "gain_ratio"}, default="gain_ratio"
        ID3's or C4.5's rule.
    max_depth : int or None, default=None
        Depth limit.
    min_samples_leaf : int, default=1
        Minimum number of samples in every child of a split.
    max_bins : int or None, default=None
        Binning of numeric features, as in :class:`BranchesClassifier`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    tree_ : MultiwayTree
        The tree.
    n_features_in_ : int
        Number of features.

    Examples
    --------
    >>> from dpdt import MultiwayGreedyClassifier
    >>> X = [[0, 1], [0, 0], [1, 1], [1, 0]]
    >>> MultiwayGreedyClassifier().fit(X, [0, 0, 1, 1]).tree_.n_splits
    1
    """

    _parameter_constraints: dict = {
        "criterion": [StrOptions({"entropy", "gain_ratio"})],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_bins": [Interval(Integral, 2, None, closed="left"), None],
    }

    def __init__(self, *, criterion="gain_ratio", max_depth=None, min_samples_leaf=1,
                 max_bins=None):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the greedy tree.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Categorical features, as for :class:`BranchesClassifier`.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Positive sample weights.

        Returns
        -------
        self : MultiwayGreedyClassifier
            The fitted estimator.
        """
        codes, y_codes, weight = self._training_codes(X, y, sample_weight)
        n_classes = len(self.classes_)
        arrays = {"feature": [], "value": [], "n_node_samples": [], "edges": []}

        def entropy_sum(counts):
            # sum over rows of W * H(row): rows are class weight vectors.
            total = counts.sum(axis=-1)
            p = np.divide(counts, total[..., None], out=np.zeros_like(counts),
                          where=total[..., None] > 0)
            logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
            return -(counts * logs).sum()

        n_features = codes.shape[1]
        # Feature f's category c is pair offsets[f] + c of a node's table.
        offsets = np.concatenate(([0], np.cumsum(codes.max(axis=0) + 1)[:-1]))

        def grow(rows, depth):
            node = len(arrays["feature"])
            class_w = np.bincount(y_codes[rows], weights=weight[rows], minlength=n_classes)
            arrays["value"].append(class_w)
            arrays["n_node_samples"].append(len(rows))
            arrays["feature"].append(-1)
            arrays["edges"].append([])
            if (np.count_nonzero(class_w) <= 1 or (self.max_depth and depth >= self.max_depth)
                    or len(rows) < 2 * self.min_samples_leaf):
                return node
            parent = entropy_sum(class_w[None, :])
            # Every feature at once: the (feature, category) pairs present, by one sort.
            keys, inverse = np.unique((codes[rows] + offsets).ravel(), return_inverse=True)
            first = np.searchsorted(keys, offsets)   # each feature's first pair
            bounds = np.append(first, len(keys))
            categories = np.diff(bounds)
            smallest = np.minimum.reduceat(np.bincount(inverse, minlength=len(keys)), first)
            table = np.bincount(inverse * n_classes + np.repeat(y_codes[rows], n_features),
                                weights=np.repeat(weight[rows], n_features),
                                minlength=len(keys) * n_classes).reshape(-1, n_classes)
            total = class_w.sum()
            fractions = table.sum(axis=1) / total
            terms = fractions * np.log2(fractions)   # every pair present has positive weight
            scores = []
            # Each feature's sums over its own rows of the tables, as a per-feature table gives
            # them: equal scores stay equal, and ties go to the lower feature as before.
            for f in np.flatnonzero((categories >= 2) & (smallest >= self.min_samples_leaf)):
                gain = parent - entropy_sum(table[bounds[f]:bounds[f + 1]])
                split_info = -terms[bounds[f]:bounds[f + 1]].sum() * total
                scores.append((f, gain, gain / split_info if split_info > 0 else 0.0))
            scores = [s for s in scores if s[1] > 1e-12 * max(parent, 1.0)]
            if not scores:
                return node
            if self.criterion == "gain_ratio":
                average = np.mean([s[1] for s in scores])
                eligible = [s for s in scores if s[1] >= average - 1e-12] or scores
                f = max(eligible, key=lambda s: (s[2], -s[0]))[0]
            else:
                f = max(scores, key=lambda s: (s[1], -s[0]))[0]
            arrays["feature"][node] = f
            col = codes[rows, f]
            for category in np.unique(col):
                child = grow(rows[col == category], depth + 1)
                arrays["edges"][node].append((int(category), child))
            return node

        grow(np.arange(len(y_codes)), 0)
        edge_begin = np.cumsum([0] + [len(e) for e in arrays["edges"]])
        flat = [edge for node_edges in arrays["edges"] for edge in node_edges]
        self.tree_ = MultiwayTree({
            "feature": arrays["feature"], "edge_begin": edge_begin,
            "edge_category": [c for c, _ in flat], "edge_child": [n for _, n in flat],
            "value": np.array(arrays["value"]).reshape(-1, n_classes),
            "n_node_samples": arrays["n_node_samples"]})
        return self
