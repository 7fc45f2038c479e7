"""Dynamic Programming Decision Trees as scikit-learn estimators."""

import warnings
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, compute_sample_weight
from sklearn.utils._param_validation import (
    Interval,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _runner
from ._binning import bin_features, uses_bins
from ._io import SaveMixin
from ._memory import fixed_fit_bytes, state_budget
from ._progress import REPORT_SECONDS, progress_reporter
from ._runner import call_core
from ._tree import Tree

PARETO_DTYPE = np.dtype([
    ("alpha_min", np.float64),
    ("alpha_max", np.float64),
    ("train_loss", np.float64),
    ("complexity", np.float64),
    ("n_leaves", np.int64),
    ("depth", np.int64),
])

# Relative tolerance under which two objectives are equal and the tie-break decides.
_TIE_TOL = 1e-9

SPLITTERS = set(_runner.SPLITTERS)
# The bounded search recurses about depth**2 / 2 frames deep; deeper limits take the front's path.
MAX_BOUNDED_DEPTH = 64
MAX_CANDIDATES = 2**31 - 1


# What splitter="auto" and candidates="auto" resolve to. The screen at the root finds the first
# split greedy generators miss (benchmarks/optimality.py: mean gap to the depth-3 optima 0.13
# points against 0.38 for CART (7, 7, 7), at similar time); a wider CART below it pays off at
# depth 3, a narrower one with a third level of choice deeper (same time as (7, 7, 7) at depths 4
# and 5, higher train accuracy on seven of the eight benchmarks). Binned features, which the
# screen does not take, and trees of depth 1 or 2, for which its depth-3 estimate is no guide
# (CART's candidates hold XOR's exact root, the screen's binned one need not), keep the DPDT
# paper's CART (7, 7, 7).
AUTO_SCREEN_SPLITTERS = ("screen", "cart")
AUTO_SCREEN_CANDIDATES_DEPTH_3 = (1, 31)
# At depth 3 "auto" also offers, at the root and at depth 1, the first split of the best depth-2
# tree (each child then split by its best single split), found exactly by branch and bound, when
# that search reads at most this many sample ids (about 10 ms): on small data the screen's
# binned estimate can miss the one threshold the optimum needs (raisin: 79 errors against the
# optimal 76, 77 with it), and this bound caps what the search costs on large or wide data.
AUTO_EXACT_DEPTH2_WORK = 2_500_000
AUTO_SCREEN_CANDIDATES_DEEPER = (1, 15, 7)
AUTO_CART_CANDIDATES = (7, 7, 7)


def resolve_search(splitter, candidates, max_depth, binned, exact_depth2=False):
    """Return the per-depth split generators, candidate budgets and exact depth-2 work.

    ``binned`` tells whether the features are binned (``max_bins``), which rules out the screen.
    The work is the core's ``exact_depth2_work``: 0, or, when ``exact_depth2`` allows it, the
    sample ids a search for the split of best exact depth-2 lookahead may read to join a state's
    candidates.
    """
    auto = isinstance(splitter, str) and splitter == "auto"
    if auto:
        splitter = "cart" if binned or max_depth < 3 else AUTO_SCREEN_SPLITTERS
    splitters = resolve_splitters(splitter, max_depth)
    exact_depth2_work = 0
    if isinstance(candidates, str) and candidates == "auto":
        if splitters[0] == "screen":
            candidates = (AUTO_SCREEN_CANDIDATES_DEPTH_3 if max_depth <= 3
                          else AUTO_SCREEN_CANDIDATES_DEEPER)
            if exact_depth2 and auto and max_depth == 3:
                exact_depth2_work = AUTO_EXACT_DEPTH2_WORK
        else:
            candidates = AUTO_CART_CANDIDATES
    return splitters, resolve_candidates(candidates, max_depth), exact_depth2_work


def resolve_candidates(candidates, max_depth):
    """Return the per-depth candidate budgets as a list of ints; raise ValueError if invalid."""
    budgets = [candidates] * max_depth if isinstance(candidates, Integral) else list(candidates)
    if not budgets or not all(isinstance(b, Integral) and not isinstance(b, bool) for b in budgets):
        raise ValueError(f"candidates must be a non-empty tuple of ints, got {candidates!r}")
    # The core counts candidates in 32-bit ints; no state could hold more split records anyway.
    if min(budgets) < 1 or max(budgets) > MAX_CANDIDATES:
        raise ValueError(f"every entry of candidates must be in [1, {MAX_CANDIDATES}], "
                         f"got {candidates!r}")
    return [int(b) for b in budgets]


def resolve_splitters(splitter, max_depth):
    """Return the per-depth split generators as a list of names; raise ValueError if invalid."""
    if isinstance(splitter, str):
        return [splitter] * max_depth
    splitters = list(splitter)
    unknown = [s for s in splitters if s not in SPLITTERS]
    if not splitters or unknown:
        raise ValueError(f"splitter must be one of {sorted(SPLITTERS)} or a non-empty sequence of "
                         f"them, one per depth; got {splitter!r}")
    return splitters


_BUDGET_CONSTRAINTS = {
    "max_leaves": [Interval(Integral, 1, None, closed="left"), None],
    "max_complexity": [Interval(Real, 0, None, closed="left"), None],
    "max_depth": [Interval(Integral, 0, None, closed="left"), None],
}


def budget_mask(n_leaves, complexity, depth, *, max_leaves, max_complexity, max_depth, caller):
    """Return the mask of the trees within the budget; a limit of None does not constrain.

    Raises ``InvalidParameterError`` (a ValueError) naming ``caller`` for a limit out of range.
    """
    limits = dict(max_leaves=max_leaves, max_complexity=max_complexity, max_depth=max_depth)
    validate_parameter_constraints(_BUDGET_CONSTRAINTS, limits, caller_name=caller)
    mask = np.ones(len(n_leaves), dtype=bool)
    for values, limit in ((n_leaves, max_leaves), (depth, max_depth)):
        if limit is not None:
            mask &= np.asarray(values) <= limit
    if max_complexity is not None:
        mask &= within_complexity(complexity, max_complexity)
    return mask


def within_complexity(complexity, max_complexity):
    """Return the mask of the complexities within ``max_complexity``.

    A complexity is a sum of rounded terms: a budget equal to it up to rounding admits it.
    """
    return np.asarray(complexity) <= max_complexity * (1 + _TIE_TOL) + _TIE_TOL


def alpha_inside(alpha_min, alpha_max):
    """Return an alpha strictly inside ``[alpha_min, alpha_max]`` (``alpha_min`` if it is a point).

    At an end of the range the neighbouring tree ties and the tie-break decides; inside it the
    tree is the only optimum, so the choice does not hang on rounding.
    """
    if alpha_max == alpha_min:
        return float(alpha_min)
    if np.isinf(alpha_max):
        return 2.0 * alpha_min if alpha_min > 0 else 1.0
    return 0.5 * (alpha_min + alpha_max)


def search_depth(max_depth, n_samples):
    """Return the depth limit given to the core: ``max_depth``, or ``n_samples`` if smaller.

    A split leaves a sample on each side, so no tree on n samples is deeper than n - 1 and a
    limit of n never binds: the tree is the same, while the per-depth lists of a limit such as
    10**9 would exhaust memory (and overflow the core's int).
    """
    return min(int(max_depth), max(1, int(n_samples)))


def power_of_two_scale(weight):
    """Return the power of two that brings the largest weight into [1, 2) (1.0 if none is > 0).

    Every objective is invariant to the scale of the weights, but sums of squares overflow near
    1e300 and absolute tolerances swallow weights near 1e-300. Dividing by a power of two brings
    the weights to a safe scale without rounding any of them (and leaves unit weights alone).
    """
    largest = np.max(weight, initial=0.0)
    return float(np.ldexp(1.0, int(np.frexp(largest)[1]) - 1)) if largest > 0 else 1.0


class _BaseDPDTree(SaveMixin, BaseEstimator):
    """Parameters, fitting and traversal shared by the DPDT estimators."""

    # Whether "auto" at depth 3 adds the exact depth-2 candidates (see DPDTreeClassifier).
    _auto_exact_depth2 = False

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "candidates": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), tuple,
                       list],
        "splitter": [StrOptions(SPLITTERS | {"auto"}), tuple, list],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "max_complexity": [Interval(Real, 0, None, closed="left"), None],
        "complexity": [StrOptions({"expected_tests", "n_splits"})],
        "front": [StrOptions({"convex", "pareto"})],
        "feature_costs": ["array-like", None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
        "min_impurity_decrease": [Interval(Real, 0, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), StrOptions({"auto"}), None],
        "max_states": [Interval(Integral, 1, None, closed="left"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "full_front": ["boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
    }


    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _fit_front(self, X, weight, fit_core, make_tree, stat_dim, loss_exponent=0,
                   sample_quantities=None):
        """Run the core on validated data and store the front, its trees and the statistics.

        The core's losses, and so the alpha ranges, are multiplied by ``2**loss_exponent``;
        ``stat_dim`` is the size of the objective's leaf statistics and ``sample_quantities`` the
        number of per-sample quantities its histograms sum (default ``stat_dim``), for
        ``memory_limit``.
        """
        n_samples, n_features = X.shape
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        scale = power_of_two_scale(weight)
        weight = np.ascontiguousarray(weight / scale)
        depth = search_depth(self.max_depth, n_samples)
        bins = uses_bins(self.max_bins, X)
        splitters, candidates, exact_depth2_work = resolve_search(
            self.splitter, self.candidates, depth, binned=bins is not None,
            exact_depth2=self._auto_exact_depth2)
        binned = {}
        if bins is not None:
            for exact_only in ("lookahead", "screen"):
                if exact_only in splitters:
                    raise ValueError(f"the {exact_only} splitter needs exact thresholds: "
                                     "set max_bins=None")
            codes, n_bins, upper = bin_features(X, bins, np.random.RandomState(seed))
            binned = {"codes": codes, "n_bins": n_bins, "upper": upper}
        self.n_bins_ = None if bins is None else n_bins
        n_threads = max(1, effective_n_jobs(self.n_jobs))
        state_bytes = 0
        if self.memory_limit is not None:
            fixed = fixed_fit_bytes(
                n_samples, n_features, depth, max(candidates), n_threads, stat_dim,
                n_bins=self.n_bins_, code_bytes=binned["codes"].itemsize if binned else 1,
                sample_quantities=sample_quantities)
            state_bytes = state_budget(int(self.memory_limit), fixed)
        # The bounded search finds the tree of alpha over every tree, not within a budget.
        bounded = (not self.full_front and self.max_complexity is None
                   and depth <= MAX_BOUNDED_DEPTH
                   and self._bounded_search_serves(splitters, bins, X))
        single = {"single_alpha": float(self.alpha)} if bounded else {}
        params = dict(
            feature_costs=self._feature_costs(n_features), max_depth=depth,
            candidates=candidates, splitters=splitters, exact_depth2_work=exact_depth2_work,
            complexity=self.complexity, front=self.front,
            # Beyond n_samples these limits forbid every split, as n_samples + 1 does.
            min_samples_split=min(self.min_samples_split, n_samples + 1),
            min_samples_leaf=min(self.min_samples_leaf, n_samples + 1),
            min_weight_leaf=float(self.min_weight_fraction_leaf * weight.sum()),
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_features=self._max_features(n_features), random_state=int(seed),
            max_states=min(self.max_states or 2**62, 2**62), max_state_bytes=state_bytes,
            n_threads=n_threads,
            time_limit=float(self.time_limit) if self.time_limit is not None else 0.0, **single,
        )
        result = fit_core(weight, params,
                          progress=progress_reporter(self.verbose, type(self).__name__),
                          progress_seconds=REPORT_SECONDS, **binned)
        front = result["front"]
        self.trees_ = [make_tree(row["tree"], n_features) for row in front]
        for tree in self.trees_:
            tree.weighted_n_node_samples *= scale
        self.pareto_front_ = np.array(
            [(row["alpha_min"], row["alpha_max"], row["train_loss"], row["complexity"],
              tree.n_leaves, tree.max_depth) for row, tree in zip(front, self.trees_, strict=True)],
            dtype=PARETO_DTYPE)
        for field in ("alpha_min", "alpha_max", "train_loss"):
            self.pareto_front_[field] = np.ldexp(self.pareto_front_[field], loss_exponent)
        self._front_impurity = np.ldexp([row["impurity"] for row in front], loss_exponent)
        self._front_n_splits = np.array([row["n_splits"] for row in front])
        self.stats_ = dict(result["stats"])
        complete = self.stats_.pop("complete")
        self.is_optimal_ = complete and set(splitters) == {"exhaustive"}
        if not complete:
            warnings.warn(f"time_limit={self.time_limit} s expired: the tree is the best among the "
                          "candidates explored so far", ConvergenceWarning, stacklevel=3)
        self._fitted_max_complexity = self.max_complexity
        self._keep_selectable_rows()
        if not self.full_front and not bounded:
            self._keep_rows([self._front_index(self.alpha, self.max_complexity)])
            self.pareto_front_["alpha_min"] = self.pareto_front_["alpha_max"] = self.alpha

    def _bounded_search_serves(self, splitters, bins, X):
        """Whether the core's branch and bound can find the tree of ``alpha`` (no front).

        It needs every threshold at every depth and an optimum that only grows as samples are
        added, which leaf limits, feature costs and missing values break; classifiers only.
        """
        return False

    @staticmethod
    def _training_weight(sample_weight, X, factor=None):
        """Return the validated weights (times ``factor``) and the mask of the samples that count.

        A sample of zero weight is a removed sample: it must not even shape the thresholds.
        """
        weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if factor is not None:
            weight = weight * factor
        if not np.all(np.isfinite(weight)) or weight.sum() <= 0:
            raise ValueError("sample_weight must be finite and sum to a positive value")
        return weight, weight > 0

    def _keep_selectable_rows(self):
        # The solver's hull also holds trees that tie with their neighbours at a single alpha and
        # lose the tie-break there. No alpha selects them: they leave the convex front, and in a
        # Pareto front, where a budget selects them, they join the trees of no alpha.
        front = self.pareto_front_
        unselectable = [k for k in range(len(front))
                        if front["alpha_max"][k] == front["alpha_min"][k]
                        and self._front_index(front["alpha_min"][k]) != k]
        if self.front == "pareto":
            front["alpha_min"][unselectable] = front["alpha_max"][unselectable] = np.nan
        else:
            self._keep_rows(np.setdiff1d(np.arange(len(front)), unselectable))

    def _keep_rows(self, keep):
        front = self.pareto_front_
        self.trees_ = [self.trees_[k] for k in keep]
        self.pareto_front_ = front[keep]
        self._front_impurity = self._front_impurity[keep]
        self._front_n_splits = self._front_n_splits[keep]

    def _feature_costs(self, n_features):
        if self.feature_costs is None:
            return np.zeros(0)
        costs = np.ascontiguousarray(self.feature_costs, dtype=np.float64)
        if costs.shape != (n_features,):
            raise ValueError(f"feature_costs must have shape ({n_features},), got {costs.shape}")
        if not np.all(np.isfinite(costs)) or np.any(costs < 0):
            raise ValueError("feature_costs must be finite and non-negative")
        return costs

    def _max_features(self, n_features):
        if self.max_features is None:
            return 0
        if self.max_features == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if self.max_features == "log2":
            return max(1, int(np.log2(n_features)))
        if isinstance(self.max_features, Integral):
            return min(int(self.max_features), n_features)
        return max(1, int(self.max_features * n_features))

    def _loss_unit(self):
        """Scale of the front's losses, for tie tolerances: 1, as the loss is a fraction."""
        return 1.0

    def _front_index(self, alpha, max_complexity=None):
        """Return the row of the tree of ``alpha`` among those within ``max_complexity``."""
        front = self.pareto_front_
        if max_complexity is not None:
            rows = np.flatnonzero(within_complexity(front["complexity"], max_complexity))
        else:
            # Without a budget, the trees of some alpha (the others are above their hull).
            rows = np.flatnonzero(~np.isnan(front["alpha_min"]))
        if np.isinf(alpha):
            return int(rows[-1])
        objective = front["train_loss"][rows] + alpha * front["complexity"][rows]
        best = objective.min()
        tied = np.flatnonzero(objective <= best + _TIE_TOL * max(self._loss_unit(), abs(best)))
        order = np.lexsort((self._front_n_splits[rows[tied]], self._front_impurity[rows[tied]]))
        return int(rows[tied[order[0]]])

    def select_tree(self, *, max_leaves=None, max_complexity=None, max_depth=None):
        """Set ``alpha`` and ``max_complexity`` to select the most accurate tree within a budget.

        No refit: among the rows of :attr:`pareto_front_` with at most ``max_leaves`` leaves,
        ``complexity`` at most ``max_complexity`` and depth at most ``max_depth``, the one of
        lowest ``train_loss`` is chosen (equal losses: the simpler tree, later on the front). The
        single leaf closing the front meets every budget, so there is always a choice. A tree
        optimal for some alpha is selected by setting ``alpha`` to a value inside its range (and
        the ``max_complexity`` parameter to None); any other, by ``alpha=0`` and the
        ``max_complexity`` parameter set to its complexity.

        With ``front="convex"`` the rows are the lower convex hull of (complexity, train_loss):
        a budget that falls between two of its trees gets the simpler one, even where a tree off
        the hull fits the budget with a lower loss. With ``front="pareto"`` the rows hold every
        such tree, and the choice is the most accurate tree of the search within
        ``max_complexity`` (and, with ``complexity="n_splits"``, within ``max_leaves``).

        Parameters
        ----------
        max_leaves : int or None, default=None
            Largest number of leaves allowed (>= 1). None: no limit.
        max_complexity : float or None, default=None
            Largest ``complexity`` allowed (>= 0), in the unit of the ``complexity`` parameter,
            e.g. expected tests per training sample. None: no limit.
        max_depth : int or None, default=None
            Largest depth allowed (>= 0). None: no limit.

        Returns
        -------
        self : object
            The estimator, its ``alpha`` and ``max_complexity`` set; :attr:`tree_` is the
            chosen tree.

        Examples
        --------
        >>> from dpdt import DPDTreeClassifier
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = DPDTreeClassifier(max_depth=3).fit(X, y)
        >>> clf.select_tree(max_leaves=3).get_n_leaves() <= 3
        True
        """
        check_is_fitted(self)
        front = self.pareto_front_
        rows = np.flatnonzero(budget_mask(
            front["n_leaves"], front["complexity"], front["depth"], max_leaves=max_leaves,
            max_complexity=max_complexity, max_depth=max_depth, caller="select_tree"))
        loss = front["train_loss"][rows]
        # Equal losses within the tie tolerance rank as equal, and then later (simpler) first.
        tolerance = _TIE_TOL * max(1.0, abs(loss.min()))
        ranked = np.where(loss <= loss.min() + tolerance, loss.min(), loss)
        order = np.lexsort((-rows, ranked))
        for k in rows[order]:
            lo, hi = front["alpha_min"][k], front["alpha_max"][k]
            choices = [(0.0, float(front["complexity"][k]))]
            if not np.isnan(lo):
                choices.insert(0, (alpha_inside(lo, hi), None))
            for alpha, budget in choices:
                # A range narrower than the tie tolerance has no point where its tree wins
                # outright; neither has a budget whose simpler trees tie with it.
                if self._front_index(alpha, budget) == k:
                    return self.set_params(alpha=alpha, max_complexity=budget)
        raise ValueError("no tree of the front can be selected within this budget")

    @property
    def tree_(self):
        """The tree of :attr:`pareto_front_` for the current ``alpha`` and ``max_complexity``."""
        check_is_fitted(self)
        # Models saved before max_complexity existed were fitted without a budget.
        fitted = (self.pareto_front_["alpha_min"][0],
                  getattr(self, "_fitted_max_complexity", None))
        if not self.full_front and (self.alpha, self.max_complexity) != fitted:
            raise ValueError(f"this estimator was fitted with full_front=False for "
                             f"alpha={fitted[0]}, max_complexity={fitted[1]}: refit it for "
                             f"alpha={self.alpha}, max_complexity={self.max_complexity}")
        return self.trees_[self._front_index(self.alpha, self.max_complexity)]

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, order="C", reset=False,
                             ensure_all_finite="allow-nan")

    def apply(self, X):
        """Return the index of the leaf each sample ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        leaves : ndarray of shape (n_samples,)
            Node index, in :attr:`tree_`, of each sample's leaf.
        """
        return self.tree_.apply(self._validate_X_predict(X))

    def decision_path(self, X):
        """Return the nodes each sample goes through.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        indicator : sparse matrix of shape (n_samples, n_nodes)
            Entry (i, j) is 1 when sample i goes through node j of :attr:`tree_`.
        """
        return self.tree_.decision_path(self._validate_X_predict(X))

    def get_depth(self):
        """Return the depth of :attr:`tree_` (0 for a single leaf)."""
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Return the number of leaves of :attr:`tree_`."""
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease brought by each feature in :attr:`tree_`."""
        return self.tree_.compute_feature_importances()


class DPDTreeClassifier(ClassifierMixin, _BaseDPDTree):
    """Decision tree classifier learned non-greedily by dynamic programming (DPDT).

    Tree induction is cast as a Markov decision process whose states are (subset of the training
    samples, depth). At each state the actions are "make a leaf" or one of a few candidate splits
    proposed by a split generator; solving the MDP by backward induction gives the tree of depth
    at most ``max_depth`` minimising

        train_loss + alpha * complexity

    among all trees built from the candidate splits, where ``train_loss`` is the weighted
    misclassification rate. The solution is computed exactly for every ``alpha`` at once: the
    trees on the lower convex hull of (complexity, train_loss) form :attr:`pareto_front_`, and
    changing ``alpha`` after fitting selects another of them without refitting. The result is
    never worse, for the objective, than greedy CART of the same depth or any pruning of it
    (Kohler, Akrour and Preux, "Breiman meets Bellman", KDD 2025).

    Parameters
    ----------
    max_depth : int, default=3
        Maximum depth of the tree.
    candidates : "auto", int or tuple of int, default="auto"
        Number of candidate splits generated at a state of depth ``d`` is ``candidates[d]``;
        depths beyond the tuple use 1 (the greedy split). An int means that budget at every
        depth. A state with a single split left ignores it: its split is searched exactly over
        all features and thresholds for the 0-1 loss. Larger budgets give better trees at a cost
        growing like their product; the budgets near the root matter most. ``"auto"`` is
        ``(1, 31)`` at ``max_depth=3`` and ``(1, 15, 7)`` deeper when the root's splitter
        is ``"screen"``, else the DPDT paper's ``(7, 7, 7)``.
    splitter : "auto", str or sequence of str, default="auto"
        The split generator, one of "cart", "lookahead", "screen", "topk", "topb", "quantile" and
        "exhaustive"; a sequence gives one per depth (depths beyond it use "cart"), since
        non-greediness matters most near the root. ``"auto"`` is ``["screen", "cart"]``, or
        ``"cart"`` when the features are binned (``max_bins``), which the screen does not take, or
        ``max_depth`` is below 3. With both ``"auto"`` at ``max_depth=3``, the root and depth-1
        states also get the split of best exact depth-2 lookahead wherever its search is cheap
        (reads at most 2.5 million sample ids). At depth 3 on the eight bundled benchmarks the
        default comes within 0.093 accuracy points of the proven optima on average (0.18 at
        most), against 0.38 for CART with ``(7, 7, 7)``. ``"cart"`` grows a best-first CART
        with ``candidates[d] + 1`` leaves on the state's samples and offers its internal nodes'
        splits (the DPDT paper's generator).
        ``"lookahead"`` offers CART's splits plus the ``candidates[d]`` splits that root the best
        trees of depth 2 (each child's best single split found exactly), found over every threshold
        by branch and bound: where two levels are left, its first split is the one of the optimal
        depth-2 subtree, so accuracy gets close to the optimum at a higher cost. ``"screen"`` offers
        CART's splits plus the ``candidates[d]`` splits that root the best trees of depth 3 as DPDT
        itself would grow them with a small budget (a 3-split CART on each side, each child then
        split by its best single split), estimated on histograms of at most 256 bins per feature at
        16 thresholds per feature and refined around the best: the first split of a deep tree, which
        greedy and depth-2 scores misjudge, at the cost of histogram scans of p * 256 bins for each
        of its 16 p thresholds, so it grows like the square of the number of features; beyond 32
        features it screens the 32 of best single split. Use it at the root. ``"topk"`` offers the
        best split of each of the ``candidates[d]`` features of highest impurity decrease (Blanc et
        al.), ``"topb"`` the ``candidates[d]`` best (feature, threshold) pairs. ``"quantile"``
        offers, for every feature, the thresholds at ``candidates[d]`` evenly spaced quantiles of
        the state's samples. ``"exhaustive"`` offers every threshold of every feature, which makes
        the result the optimal tree of depth at most ``max_depth``; its cost is exponential in
        depth, use it on small data.
    criterion : {"gini", "entropy"}, default="gini"
        Impurity used by the CART generator, and to break ties between trees of equal objective
        (lower weighted leaf impurity first, then fewer splits).
    alpha : float, default=0.0
        Weight of the complexity penalty. Can be changed with ``set_params`` after fitting.
    max_complexity : float or None, default=None
        A budget: predictions use the tree minimising ``train_loss + alpha * complexity`` among
        the trees of :attr:`pareto_front_` of ``complexity`` at most this. With
        ``front="pareto"`` and ``alpha=0`` that is the most accurate tree of the search within
        the budget (with ``complexity="n_splits"``: with at most ``max_complexity + 1`` leaves).
        Can be changed with ``set_params`` after fitting, as :meth:`select_tree` does. None
        means no budget.
    complexity : {"expected_tests", "n_splits"}, default="expected_tests"
        ``"expected_tests"``: the expected number of tests a training sample goes through (the
        weighted fraction of samples reaching each split node, summed). ``"n_splits"``: the number
        of split nodes, as in cost-complexity pruning.
    front : {"convex", "pareto"}, default="convex"
        The trees :attr:`pareto_front_` holds. ``"convex"``: the trees optimal for some
        ``alpha``, the lower convex hull of (complexity, train_loss). ``"pareto"``: every tree of
        the search that no other beats on both complexity and loss (the tie-break included),
        which adds the trees between hull vertices that no ``alpha`` selects, such as the most
        accurate tree with at most k splits; a budget (``max_complexity``,
        :meth:`select_tree`) then gets the best tree within it, not the best hull tree. It
        costs more: each state combines its children's fronts pair by pair instead of edge by
        edge, and keeps more trees (with expected tests, hundreds at depth 5 and thousands at
        depth 10; with split counts, at most one per number of splits).
    feature_costs : array-like of shape (n_features,), default=None
        Non-negative cost of testing each feature; each split counts its feature's cost in the
        complexity instead of 1 (then "expected_tests" is the expected cost of the tests).
    min_samples_split : int, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int, default=1
        Minimum number of samples in each leaf.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    min_impurity_decrease : float, default=0.0
        A split of the CART generator must decrease the weighted impurity by at least this much
        (scikit-learn's definition). The exact search of the last level does not use it.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node of the CART generator.
    max_bins : "auto", int or None, default="auto"
        The histogram engine: each feature is cut once into at most this many bins (2 to
        65535) of training values, at quantiles, and split search reads per-state
        histograms; a state then costs 4 bytes per sample instead of 4 per sample and
        feature. Thresholds are training values, so prediction needs no bins. None keeps
        exact thresholds. "auto" bins into 255 from 100 000 samples on and is exact below.
        Missing values (NaN) are taken either way: at each split they go to the side better
        for the objective (where the node's training samples had none, to the side with more
        samples), as in scikit-learn's trees.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied with ``sample_weight``.
    max_states : int or None, default=5_000_000
        The fit stops with ``MemoryError`` if it would solve more states than this (a state
        costs a few hundred bytes). None means no limit.
    memory_limit : int or None, default=None
        Bytes the fit may allocate besides the training data: the layout of the samples, the
        per-thread buffers and the solved states (formula in the user guide, "Memory"). A fit
        whose fixed part exceeds it raises ``MemoryError`` before starting, and one whose
        solved states would cross it raises ``MemoryError`` when they would. None means no
        limit.
    time_limit : float or None, default=None
        Seconds after which no further candidate split is explored: the fit returns the best
        trees among the candidates explored so far, with a ``ConvergenceWarning``, and
        ``is_optimal_`` is False. None means no limit.
    full_front : bool, default=True
        Whether to compute the whole Pareto front. False computes the tree of the current
        ``alpha`` only: :attr:`pareto_front_` has that one row and changing ``alpha`` needs a
        refit. With ``splitter="exhaustive"`` this is what makes optimal trees affordable:
        without a front to keep, the search prunes every split whose bound cannot beat the best
        tree found so far (depth-first branch and bound, with interval bounds along each
        feature's thresholds), and is orders of magnitude faster. That search serves exact
        thresholds (``max_bins=None`` or small data) without missing values, feature costs or
        leaf limits (``min_samples_leaf=1``, ``min_samples_split=2``,
        ``min_weight_fraction_leaf=0``); other configurations compute the front and keep the
        row of ``alpha``. Its first incumbent is CART's tree (pruned where a leaf is better
        for the objective), so a search stopped by ``time_limit`` is never worse than it.
    n_jobs : int, default=None
        Number of threads solving the root's subproblems. ``None`` means 1, ``-1`` all cores.
        The tree does not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the feature draws of ``max_features``.
    verbose : int, default=0
        With 1 or more, a fit reports its progress every second on the ``dpdt`` logger (states
        solved, root subproblems done out of the total, elapsed seconds); nothing when 0.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.
    pareto_front_ : ndarray, structured
        One row per tree of the Pareto front, by increasing alpha: row ``k`` holds the tree
        optimal for ``alpha_min <= alpha <= alpha_max`` with its ``train_loss`` (weighted
        misclassification rate), ``complexity``, ``n_leaves`` and ``depth``. The first row is the
        tree of ``alpha = 0``; the last is a single leaf. A first row with
        ``alpha_max == 0`` is the tree chosen at exactly ``alpha = 0`` by the tie-break: as
        accurate as the next row but with purer leaves. With ``front="pareto"`` the rows are by
        decreasing complexity and increasing loss (a tree as accurate as a simpler one has purer
        leaves), and those of trees optimal for no alpha have NaN ``alpha_min`` and
        ``alpha_max``.
    trees_ : list of Tree
        The trees of :attr:`pareto_front_`, in the same order.
    tree_ : Tree
        The tree for the current ``alpha`` and ``max_complexity``.
    stats_ : dict
        Search statistics: ``states`` solved, ``candidates`` (splits generated), ``exact_scans``
        (states whose last split was searched exactly), ``cache_hits`` and ``seconds``.
    is_optimal_ : bool
        True when the tree is certified optimal: every depth used ``splitter="exhaustive"`` and
        the search completed within ``time_limit``. With ``full_front=False`` the certificate
        is for the fitted ``alpha``.

    Examples
    --------
    >>> from dpdt import DPDTreeClassifier
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    >>> clf.score(X, y) >= 0.95
    True
    >>> clf.set_params(alpha=1.0).get_n_leaves()
    1
    """

    # The default's extra exact depth-2 candidates (AUTO_EXACT_DEPTH2_WORK) pay off for the 0-1
    # loss; for squared error they doubled the fit time of the bundled benchmarks for no gain.
    _auto_exact_depth2 = True

    _parameter_constraints: dict = {
        **_BaseDPDTree._parameter_constraints,
        "criterion": [StrOptions({"gini", "entropy", "gain_ratio"})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(self, *, max_depth=3, candidates="auto", splitter="auto", criterion="gini",
                 alpha=0.0, max_complexity=None, complexity="expected_tests", front="convex",
                 feature_costs=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0,
                 max_features=None, max_bins="auto", class_weight=None, max_states=5_000_000,
                 memory_limit=None, time_limit=None, full_front=True, n_jobs=None,
                 random_state=None, verbose=0):
        self.max_depth = max_depth
        self.candidates = candidates
        self.splitter = splitter
        self.criterion = criterion
        self.alpha = alpha
        self.max_complexity = max_complexity
        self.complexity = complexity
        self.front = front
        self.feature_costs = feature_costs
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.class_weight = class_weight
        self.max_states = max_states
        self.memory_limit = memory_limit
        self.time_limit = time_limit
        self.full_front = full_front
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Build the Pareto front of trees from the training set (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (finite numbers).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; None means uniform.

        Returns
        -------
        self : DPDTreeClassifier
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_all_finite="allow-nan")
        check_classification_targets(y)
        self.classes_, y_encoded = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        factor = None if self.class_weight is None else compute_sample_weight(self.class_weight, y)
        weight, kept = self._training_weight(sample_weight, X, factor)
        if not kept.all():
            X, y_encoded, weight = X[kept], y_encoded[kept], weight[kept]

        y_codes = np.ascontiguousarray(y_encoded, dtype=np.int32)

        def fit_core(weight, params, **arguments):
            return call_core("fit_classifier", X, y_codes, weight,
                             params=dict(params, criterion=self.criterion),
                             n_classes=self.n_classes_, **arguments)

        self._fit_front(X, weight, fit_core, Tree.from_weighted_counts, stat_dim=self.n_classes_,
                        sample_quantities=1)
        return self

    def _bounded_search_serves(self, splitters, bins, X):
        return (set(splitters) == {"exhaustive"} and bins is None and self.feature_costs is None
                and self.min_samples_leaf == 1 and self.min_samples_split == 2
                and self.min_weight_fraction_leaf == 0 and not np.isnan(X).any())


    def predict_proba(self, X):
        """Return the weighted class fractions of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities, columns ordered as :attr:`classes_`.
        """
        tree = self.tree_
        return tree.value[tree.apply(self._validate_X_predict(X)), 0, :]

    def predict(self, X):
        """Return the predicted class of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            The class of largest weight in each sample's leaf.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class DPDTreeRegressor(RegressorMixin, _BaseDPDTree):
    """Regression tree learned non-greedily by dynamic programming (DPDT).

    The same engine as :class:`DPDTreeClassifier` with the weighted squared error as the loss:
    the tree of depth at most ``max_depth`` minimising

        train_mse + alpha * complexity

    among the trees built from the candidate splits, exactly, for every ``alpha`` at once. A leaf
    predicts the weighted mean of its samples. With several outputs (``y`` of shape
    ``(n_samples, n_outputs)``) the loss is the sum of the outputs' mean squared errors. The
    candidate splits come from a regression CART grown on each state's samples, and the last level
    is solved exactly (the split of least squared error over all features and thresholds).

    Parameters
    ----------
    max_depth : int, default=3
        Maximum depth of the tree.
    candidates : "auto", int or tuple of int, default="auto"
        Candidate splits generated at each depth; see :class:`DPDTreeClassifier`.
    splitter : "auto", str or sequence of str, default="auto"
        The split generator, or one per depth; see :class:`DPDTreeClassifier`.
    criterion : {"squared_error"}, default="squared_error"
        The loss. There is no ``"absolute_error"``: the engine's exact scans and its histogram
        subtraction rest on a leaf loss that is a function of sums over the leaf's samples,
        and a weighted median's is not. For median regression use
        :class:`DPDTGradientBoostingRegressor` with ``loss="absolute_error"`` (first-order
        trees whose leaves take the weighted median residual).
    alpha : float, default=0.0
        Weight of the complexity penalty. Can be changed with ``set_params`` after fitting.
    max_complexity : float or None, default=None
        A budget on the complexity of the tree used for predictions; see
        :class:`DPDTreeClassifier`.
    complexity : {"expected_tests", "n_splits"}, default="expected_tests"
        The complexity measure; see :class:`DPDTreeClassifier`.
    front : {"convex", "pareto"}, default="convex"
        The convex hull of the trees optimal for some ``alpha``, or every Pareto-optimal tree;
        see :class:`DPDTreeClassifier`.
    feature_costs : array-like of shape (n_features,), default=None
        Non-negative cost of testing each feature.
    min_samples_split : int, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int, default=1
        Minimum number of samples in each leaf.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    min_impurity_decrease : float, default=0.0
        A split of the CART generator must decrease the weighted squared error by at least this
        much, per unit of total weight.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node of the CART generator.
    max_bins : "auto", int or None, default="auto"
        The histogram engine: each feature is cut once into at most this many bins (2 to
        65535) of training values, at quantiles, and split search reads per-state
        histograms; a state then costs 4 bytes per sample instead of 4 per sample and
        feature. Thresholds are training values, so prediction needs no bins. None keeps
        exact thresholds. "auto" bins into 255 from 100 000 samples on and is exact below.
        Missing values (NaN) are taken either way: at each split they go to the side better
        for the objective (where the node's training samples had none, to the side with more
        samples), as in scikit-learn's trees.
    max_states : int or None, default=5_000_000
        The fit stops with ``MemoryError`` if it would solve more states than this (a state
        costs a few hundred bytes). None means no limit.
    memory_limit : int or None, default=None
        Bytes the fit may allocate besides the training data: the layout of the samples, the
        per-thread buffers and the solved states (formula in the user guide, "Memory"). A fit
        whose fixed part exceeds it raises ``MemoryError`` before starting, and one whose
        solved states would cross it raises ``MemoryError`` when they would. None means no
        limit.
    time_limit : float or None, default=None
        Seconds after which no further candidate split is explored; see
        :class:`DPDTreeClassifier`.
    full_front : bool, default=True
        False computes the tree of the current ``alpha`` only (the front's row of ``alpha``);
        changing ``alpha`` then needs a refit.
    n_jobs : int, default=None
        Number of threads solving the root's subproblems; the tree does not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the feature draws of ``max_features``.
    verbose : int, default=0
        With 1 or more, a fit reports its progress every second on the ``dpdt`` logger (states
        solved, root subproblems done out of the total, elapsed seconds); nothing when 0.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.
    n_outputs_ : int
        Number of outputs.
    pareto_front_ : ndarray, structured
        As for :class:`DPDTreeClassifier`, with ``train_loss`` the weighted mean squared error
        (summed over outputs).
    trees_ : list of Tree
        The trees of :attr:`pareto_front_`; ``value`` holds the leaf means, shape
        ``(node_count, n_outputs, 1)`` as in scikit-learn.
    tree_ : Tree
        The tree for the current ``alpha`` and ``max_complexity``.
    stats_ : dict
        Search statistics, as for :class:`DPDTreeClassifier`.
    is_optimal_ : bool
        True when every depth used ``splitter="exhaustive"`` and the search completed.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTreeRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> reg = DPDTreeRegressor(max_depth=1).fit(X, (X[:, 0] > 2.5) * 10.0)
    >>> reg.predict([[1.0], [6.0]])
    array([ 0., 10.])
    """

    _parameter_constraints: dict = {
        **_BaseDPDTree._parameter_constraints,
        "criterion": [StrOptions({"squared_error"})],
    }

    def __init__(self, *, max_depth=3, candidates="auto", splitter="auto",
                 criterion="squared_error", alpha=0.0, max_complexity=None,
                 complexity="expected_tests", front="convex", feature_costs=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_features=None,
                 max_bins="auto", max_states=5_000_000, memory_limit=None, time_limit=None,
                 full_front=True, n_jobs=None, random_state=None, verbose=0):
        self.max_depth = max_depth
        self.candidates = candidates
        self.splitter = splitter
        self.criterion = criterion
        self.alpha = alpha
        self.max_complexity = max_complexity
        self.complexity = complexity
        self.front = front
        self.feature_costs = feature_costs
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_bins = max_bins
        self.max_states = max_states
        self.memory_limit = memory_limit
        self.time_limit = time_limit
        self.full_front = full_front
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Build the Pareto front of regression trees from the training set (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples (finite numbers).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; None means uniform.

        Returns
        -------
        self : DPDTreeRegressor
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_all_finite="allow-nan",
                             multi_output=True,
                             y_numeric=True)
        targets = np.ascontiguousarray(y.reshape(y.shape[0], -1), dtype=np.float64)
        self.n_outputs_ = targets.shape[1]
        weight, kept = self._training_weight(sample_weight, X)
        if not kept.all():
            X, targets, weight = X[kept], targets[kept], weight[kept]

        # The core's squared error, sum w y^2 - (sum w y)^2 / W, cancels badly far from the mean.
        offset = np.average(targets, axis=0, weights=weight)
        centred = np.ascontiguousarray(targets - offset)
        # The core sums w * y**2 with weights below 2 (see _fit_front): beyond the float range
        # every loss would be inf and every tree tie with a single leaf.
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(2.0 * np.square(centred).sum()):
                raise ValueError("y is too spread out: its squared error overflows float64; "
                                 "rescale y")
        # The core's tolerances are in units of weight: it gets the centred targets divided by a
        # power of two (exact) that brings them near 1, and its losses are scaled back.
        exponent = int(np.frexp(power_of_two_scale(np.abs(centred)))[1]) - 1
        centred = np.ldexp(centred, -exponent)

        def fit_core(weight, params, **arguments):
            return call_core("fit_regressor", X, centred, weight, params=params, **arguments)

        self._fit_front(X, weight, fit_core, Tree.from_means, stat_dim=1 + 2 * centred.shape[1],
                        loss_exponent=2 * exponent)
        for tree in self.trees_:
            tree.value = np.ldexp(tree.value, exponent) + offset[np.newaxis, :, np.newaxis]
            tree.impurity = np.ldexp(tree.impurity, 2 * exponent)
        return self

    def _loss_unit(self):
        # Squared errors are in units of y squared: ties are judged relative to the single
        # leaf's loss (the variance of y), so that the scale of y does not matter.
        root = self.pareto_front_["train_loss"][-1]
        return root if root > 0 else 1.0

    def predict(self, X):
        """Return the predicted value of each sample: the weighted mean of its leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted values (one column per output when there are several).
        """
        tree = self.tree_
        values = tree.value[tree.apply(self._validate_X_predict(X)), :, 0]
        return values[:, 0] if self.n_outputs_ == 1 else values

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
