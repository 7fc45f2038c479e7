"""Dynamic Programming Decision Trees as scikit-learn estimators."""

import warnings
from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import compute_sample_weight
from sklearn.utils._param_validation import validate_parameter_constraints
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._binning import bin_features, tree_edges, uses_bins
from ._explorer import ExplorerReprMixin
from ._front import (
    PARETO_DTYPE,
    TIE_TOL,
    alpha_inside,
    budget_mask,
    objective_at,
    within_complexity,
)
from ._io import SaveMixin, register_estimator
from ._memory import estimate_states, fixed_fit_bytes, state_budget
from ._objectives import CLASSIFICATION, SQUARED_ERROR
from ._params import CLASSIFIER, REGRESSOR, declare
from ._progress import core_seconds, reporter
from ._runner import call_core, n_threads
from ._search_policy import (
    EXACT_ONLY_SPLITTERS,
    MAX_BOUNDED_DEPTH,
    needs_exact_thresholds,
    resolve_search,
    resolve_splitters,
    search_depth,
)
from ._tree import Tree
from ._validation import (
    check_feature_costs,
    check_monotonic_cst,
    core_seed,
    training_weight,
    validate_numeric,
)


class LogProbaMixin:
    """``predict_log_proba`` for a classifier with ``predict_proba``."""

    def predict_log_proba(self, X):
        """Return the natural logarithm of :meth:`predict_proba`.

        A class of probability 0 (absent from a sample's leaf) gets ``-inf``, without the
        divide-by-zero warning ``np.log`` gives (scikit-learn's trees let it through): a
        tree's pure leaves make such zeros ordinary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Class log-probabilities, columns ordered as :attr:`classes_`.

        Examples
        --------
        >>> from dpdt import DPDTreeClassifier
        >>> clf = DPDTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["a", "b"])
        >>> clf.predict_log_proba([[0.0]])
        array([[  0., -inf]])
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return np.log(proba)


class _FitPlan(NamedTuple):
    """What ``_BaseDPDTree._fit_plan`` resolves for a fit, in plain values.

    The core's ``params`` dict, the ``binned`` data (empty for exact thresholds), the per-depth
    ``splitters``, whether the ``bounded`` single-alpha search serves, the
    ``estimated_bytes`` of the fit, and whether its thresholds are ``every_threshold`` of the
    training data (exact thresholds, or bins that each hold one distinct value).
    """

    params: dict
    binned: dict
    splitters: list
    bounded: bool
    estimated_bytes: int
    every_threshold: bool


class _BaseDPDTree(ExplorerReprMixin, SaveMixin, BaseEstimator):
    """Fitting and traversal shared by the DPDT estimators.

    Each estimator's parameters, their constraints and the "Parameters" section of its docstring
    come from its declaration in ``_params`` (``@declare``).
    """

    # Set by each estimator: the objective it fits (an _objectives.Objective).
    _objective = None
    # Whether "auto" at depth 3 adds the exact depth-2 candidates (see DPDTreeClassifier).
    _auto_exact_depth2 = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True   # densified by validate_numeric
        return tags

    def _fit_front(self, X, y, weight, weight_scale, n_columns, core_params=None,
                   cart_size=None, greedy_tree=None):
        """Run the core on validated data and store the front, its trees and the statistics.

        ``y`` holds the training targets as the estimator's objective (``_objective``, an
        :class:`~dpdt._objectives.Objective`) takes them (class codes, targets), of
        ``n_columns`` columns for the core (classes, outputs); the objective's target scale
        brings them to the core and its trees and losses back. ``weight`` is normalised as
        ``training_weight`` returns it, and ``weight_scale`` the factor it was divided by.
        ``core_params``, the estimator's own entries of the core's ``params`` (a classifier's
        ``criterion``); ``cart_size``, if given, returns the splits of a fully grown CART tree on
        the data, which bound the CART generator's (its pure nodes end it) in the estimate.
        ``greedy_tree(estimator, y)``, if given, fits ``estimator`` (a twin of this one) on the
        data, the core's targets ``y`` and the weights: the bins of ``max_bins="auto"`` keep the
        thresholds of the greedy tree on exact thresholds, the CART generator's alone, so that
        the search finds that tree on them and its own is never worse (the DPDT paper's
        guarantee, which quantile bins alone break: the greedy split can sit inside a bin). A
        number of bins given is quantiles only, as a fit over machines (``dpdt.dask``) makes
        them.
        """
        n_samples, n_features = X.shape
        weight = np.ascontiguousarray(weight)
        objective = self._objective
        target_scale = objective.scale_of(y, weight)
        y = target_scale.to_core(y)
        keeps_greedy = greedy_tree is not None and isinstance(self.max_bins, str)

        def fit_core(weight, params, **arguments):
            return call_core("fit", objective.name, X, y, weight,
                             params=dict(params, **(core_params or {})),
                             **objective.core_arguments(n_columns), **arguments)

        def bin_data(bins, random_state, threads, depth):
            edges = None
            if keeps_greedy:
                twin = greedy_tree(self._greedy_twin(depth), y)
                edges = tree_edges(X, twin.trees_[0])
            codes, n_bins, upper = bin_features(X, bins, random_state, n_threads=threads,
                                                edges=edges)
            return {"codes": codes, "n_bins": n_bins, "upper": upper}

        def plan_of(estimator):
            return estimator._fit_plan(n_samples, n_features, weight.sum(), n_columns, bin_data,
                                       X=X, loss_exponent=target_scale.loss_exponent,
                                       cart_size=cart_size)

        plan = plan_of(self)
        progress = reporter(self.verbose, type(self).__name__, "root subproblems",
                            pending="expanding the root")
        try:
            with progress:
                result = fit_core(weight, plan.params, progress=progress.tree_callback,
                                  progress_seconds=core_seconds(), **plan.binned)
                total = progress.total or result["root_tasks"]
                progress.finish(total if result["stats"]["complete"] else None, total,
                                [f"{result['stats']['states']} states"])
        except MemoryError as error:
            if self.memory_limit is None and "memory_limit" in str(error):
                raise MemoryError(f"{error} (memory_limit=None: what this process could "
                                  "allocate when the fit started)") from None
            raise
        if self._exact_single_alpha(plan) and not result["stats"]["complete"]:
            self._keep_heuristic_if_better(result, weight, fit_core, plan_of,
                                           target_scale.loss_exponent)
        self._store_front(result, plan, n_features, weight_scale, target_scale)

    def _exact_single_alpha(self, plan):
        """Whether the fit is the exact search of one alpha (``splitter="exhaustive"``).

        The bounded search, or the front's exact search where that one cannot serve
        (monotonic constraints, depth): stopped by a limit, either keeps the heuristic tree
        when it is better, and then holds the one row of ``alpha``.
        """
        return plan.bounded or (not self.full_front and self.max_complexity is None
                                and self.splitter == "exhaustive")

    def _keep_heuristic_if_better(self, result, weight, fit_core, plan_of, loss_exponent):
        """Put DPDT's heuristic tree of ``alpha`` in ``result`` if better than the one found.

        The bounded search stopped by a limit returns the best tree it found (CART's at
        worst). DPDT's heuristic search (the default splitters), given a quarter of
        ``time_limit`` and the same ``max_states`` and ``memory_limit``, is then run too, so that
        the tree is never worse than what a fit without ``splitter="exhaustive"`` would return;
        ties keep the bounded search's tree, and so does a heuristic search that cannot run
        (a ``memory_limit`` below its fixed part, or the allocator out of memory): a limit never
        ends the fit without a tree.
        """
        heuristic = clone(self).set_params(splitter="auto", candidates="auto", verbose=0,
                                           time_limit=self._helper_time_limit())
        # The data's shape and names, which its plan reads monotonic_cst by, as this fit's.
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(self, name):
                setattr(heuristic, name, getattr(self, name))
        try:
            plan = plan_of(heuristic)
        except ValueError:
            return   # a memory_limit below the fixed part of the heuristic's larger budgets
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                found = fit_core(weight, plan.params, progress=None,
                                 progress_seconds=core_seconds(), **plan.binned)
        except MemoryError:
            return

        # The core's fronts are in its loss unit, the user's times 2**-loss_exponent: so is alpha.
        alpha = float(np.ldexp(self.alpha, -loss_exponent))
        best = min(found["front"], key=lambda row: objective_at(row, alpha))
        # The bounded search's front is its one row; the front's search's, every row.
        current = min(objective_at(row, alpha) for row in result["front"])
        if objective_at(best, alpha) < current:
            result["front"] = [dict(best, alpha_min=alpha, alpha_max=alpha)]

    def _fit_plan(self, n_samples, n_features, weight_total, n_columns, bin_data, *, X=None,
                  bins=None, loss_exponent=0, cart_size=None):
        """Resolve everything the core needs for a fit into plain values (a :class:`_FitPlan`).

        ``weight_total`` is the sum of the normalised weights; the objective, of ``n_columns``
        target columns, gives the size of the leaf statistics and of the per-sample
        quantities the histograms sum, for ``memory_limit``; the core's losses, and
        so the alpha ranges, are multiplied by ``2**loss_exponent`` (``min_impurity_decrease``,
        in the losses' unit, is divided by it). ``bin_data(bins, random_state,
        n_threads, max_depth)`` returns the binned data (``codes``, ``n_bins``, ``upper``) when
        the fit bins. ``X``, the data, decides whether it bins (``max_bins``) and whether the
        bounded search serves; ``bins`` given instead forces that many bins (``dpdt.dask``,
        whose data are on a cluster, passes ``X=None``). The other arguments are ``_fit_front``'s.
        """
        objective = self._objective
        stat_dim = objective.stat_dim(n_columns)
        # Checked first: a refused constraint costs no binning or greedy tree.
        monotonic_cst = self._monotonic_constraints(n_columns)
        seed = core_seed(self.random_state)
        depth = search_depth(self.max_depth, n_samples)
        if bins is None:
            # The exact search of full_front=False certifies its tree over every threshold:
            # "auto" keeps them all for it, as for a splitter that needs them.
            bins = uses_bins(self.max_bins, X, depth,
                             exact_splitter=needs_exact_thresholds(self.splitter)
                             or self._bounded(resolve_splitters(self.splitter, depth), depth,
                                              None, X, monotonic_cst))
        splitters, candidates, exact_depth2_work = resolve_search(
            self.splitter, self.candidates, depth, binned=bins is not None,
            n_samples=n_samples, n_features=n_features, stat_dim=stat_dim,
            exact_depth2=self._auto_exact_depth2)
        threads = n_threads(self.n_jobs)
        binned = {}
        if bins is not None:
            for exact_only in EXACT_ONLY_SPLITTERS:
                if exact_only in splitters:
                    raise ValueError(f"the {exact_only} splitter needs exact thresholds: "
                                     "set max_bins=None")
            binned = bin_data(bins, np.random.RandomState(seed), threads, depth)
        self.n_bins_ = None if bins is None else binned["n_bins"]
        fixed = fixed_fit_bytes(
            n_samples, n_features, depth, max(candidates), threads, stat_dim,
            n_bins=self.n_bins_, code_bytes=binned["codes"].itemsize if binned else 1,
            sample_quantities=objective.sample_quantities(n_columns))
        limit = None if self.memory_limit is None else int(self.memory_limit)
        state_bytes = state_budget(limit, fixed)
        max_states = min(self.max_states or 2**62, 2**62)
        feature_costs = self._feature_costs(n_features, n_samples, depth, weight_total)
        estimate = estimate_states(
            n_samples, n_features, depth, candidates, splitters, stat_dim,
            min_samples_leaf=self.min_samples_leaf, exact_depth2_work=exact_depth2_work,
            front=self.front, feature_costs=len(set(feature_costs)) > 1, cart_size=cart_size,
            value_bounds=bool(monotonic_cst))
        bounded = self._bounded(splitters, depth, bins, X, monotonic_cst)
        # alpha in the core's loss unit, as min_impurity_decrease (exact: a power of two).
        single = {"single_alpha": float(np.ldexp(self.alpha, -loss_exponent))} if bounded else {}
        params = dict(
            feature_costs=feature_costs, monotonic_cst=monotonic_cst, max_depth=depth,
            candidates=candidates, splitters=splitters, exact_depth2_work=exact_depth2_work,
            complexity=self.complexity, front=self.front,
            **self._sample_limits(n_samples),
            min_weight_leaf=float(self.min_weight_fraction_leaf * weight_total),
            min_impurity_decrease=float(np.ldexp(self.min_impurity_decrease, -loss_exponent)),
            max_features=self._max_features(n_features), random_state=int(seed),
            max_states=max_states, max_state_bytes=state_bytes,
            # The core's projection stops only searches this estimate does not clear, and
            # sooner the further past a limit it puts them.
            estimated_states=float(estimate.states), estimated_state_bytes=float(estimate.bytes),
            n_threads=threads,
            time_limit=float(self.time_limit) if self.time_limit is not None else 0.0, **single,
        )
        # A binned search is exhaustive over its bins' thresholds only: it certifies the optimum
        # where each bin holds one distinct value (bins cut at quantiles of a sample merge some),
        # which a fit without the rows (over machines) cannot check.
        every_threshold = not binned or (
            X is not None and set(splitters) == {"exhaustive"}
            and all(np.unique(column[~np.isnan(column)]).size <= n
                    for column, n in zip(X.T, binned["n_bins"], strict=True)))
        return _FitPlan(params, binned, splitters, bounded, int(fixed + estimate.bytes),
                        every_threshold)

    def _store_front(self, result, plan, n_features, weight_scale, target_scale):
        """Store the front, its trees and the statistics of the core's ``result`` for ``plan``.

        The trees and losses come back to the user's units: the weights' (``weight_scale``)
        and the targets' (``target_scale``, the objective's, which scaled what the core read).
        """
        front = result["front"]
        loss_exponent = target_scale.loss_exponent
        self.trees_ = [self._objective.make_tree(row["tree"], n_features) for row in front]
        for tree in self.trees_:
            tree.weighted_n_node_samples *= weight_scale
            target_scale.unscale_tree(tree)
        self.pareto_front_ = np.array(
            [(row["alpha_min"], row["alpha_max"], row["train_loss"], row["complexity"],
              tree.n_leaves, tree.max_depth) for row, tree in zip(front, self.trees_, strict=True)],
            dtype=PARETO_DTYPE)
        for field in ("alpha_min", "alpha_max", "train_loss"):
            self.pareto_front_[field] = np.ldexp(self.pareto_front_[field], loss_exponent)
        self._front_impurity = np.ldexp([row["impurity"] for row in front], loss_exponent)
        self._front_n_splits = np.array([row["n_splits"] for row in front])
        self.stats_ = dict(result["stats"])
        self.stats_["estimated_bytes"] = plan.estimated_bytes
        complete = self.stats_.pop("complete")
        projected = self.stats_.pop("projected", None)
        # What the bounded search proved of the optimum when stopped (NaN from the front's search).
        self._proven_lower_bound = float(np.ldexp(result["lower_bound"], loss_exponent))
        # Stopped, a search whose bound reached its tree's objective (an alpha that prices every
        # split above the leaf, say) has certified it all the same.
        # (In the user's unit, as the bound: pareto_front_ is scaled back, the core's front not.)
        objective = float(objective_at(self.pareto_front_[0], self.alpha))
        self.is_optimal_ = (complete and set(plan.splitters) == {"exhaustive"}
                            and plan.every_threshold) or (
            plan.bounded and self._proven_lower_bound >= objective)
        if plan.bounded:
            self.stats_["gap"] = 0.0 if self.is_optimal_ else objective - self._proven_lower_bound
        if not complete and not self.is_optimal_:
            proven = ("" if np.isnan(self._proven_lower_bound) else
                      f"; the optimal objective is at least {self._proven_lower_bound:.6g}, "
                      f"{self.stats_['gap']:.6g} below this tree's")
            warnings.warn(f"{self._limit_reached(plan, projected)}: the tree is the best among "
                          f"the candidates explored so far{proven}", ConvergenceWarning,
                          stacklevel=4)
        self._fitted_max_complexity = self.max_complexity
        self._keep_selectable_rows()
        if not self.full_front and not plan.bounded:
            self._keep_rows([self._front_index(self.alpha, self.max_complexity)])
            self.pareto_front_["alpha_min"] = self.pareto_front_["alpha_max"] = self.alpha

    def _bounded(self, splitters, depth, bins, X, monotonic_cst):
        """Whether the bounded single-alpha search serves the fit of ``splitters`` and ``bins``."""
        # It finds the tree of alpha over every tree, not within a budget, and its bounds know
        # nothing of the value bounds that monotonic constraints put on a state.
        return (not self.full_front and self.max_complexity is None and depth <= MAX_BOUNDED_DEPTH
                and not monotonic_cst and self._bounded_search_serves(splitters, bins, X))

    def _monotonic_constraints(self, n_columns):
        """Return the validated ``monotonic_cst`` for the core (empty: unconstrained).

        ``n_columns`` is the objective's number of target columns (classes, outputs).
        """
        return []

    def _limit_reached(self, plan, projected=None):
        """Name the limit that stopped the search (``stats_["stopped_by"]``), as a user set it.

        ``projected`` is the course (states or bytes) on which the core's projection stopped a
        runaway search before it reached the limit, None when it reached it.
        """
        stopped_by = self.stats_["stopped_by"]
        if stopped_by == "max_states":
            named = f"max_states={self.max_states}"
            unit = "states"
        elif stopped_by == "memory_limit":
            named = f"memory_limit={self.memory_limit} bytes"
            if self.memory_limit is None:
                named = (f"memory_limit=None (the {plan.params['max_state_bytes']} bytes this "
                         "process could allocate when the fit started)")
            unit = "bytes of solved states"
        else:
            return f"time_limit={self.time_limit} s expired"
        if projected is None:
            return f"{named} reached"
        # The limit opens the message (the CV estimators gather their fits' warnings by it).
        return (f"{named} would be passed many times over, and the search was stopped early (on "
                f"course to about {projected:.3g} {unit}; lower max_depth or candidates, the "
                f"deepest levels' first, or raise {stopped_by})")

    def _bounded_search_serves(self, splitters, bins, X):
        """Whether the core's branch and bound can find the tree of ``alpha`` (no front).

        It needs every threshold at every depth and an optimum that only grows as samples are
        added, which the objective's loss must give (``Objective.bounded_search``) and leaf
        limits, feature costs and missing values break.
        """
        return (self._objective.bounded_search and set(splitters) == {"exhaustive"} and bins is None
                and self.feature_costs is None and self.min_samples_leaf == 1
                and self.min_samples_split == 2 and self.min_weight_fraction_leaf == 0
                and not np.isnan(X).any())

    def _check_fitted_state(self, decoder, where):
        front, trees = getattr(self, "pareto_front_", None), getattr(self, "trees_", None)
        decoder.expect(isinstance(front, np.ndarray) and front.dtype == PARETO_DTYPE
                       and front.ndim == 1 and len(front) >= 1 and isinstance(trees, list)
                       and len(trees) == len(front) and all(isinstance(t, Tree) for t in trees),
                       f"{where}: pareto_front_ and trees_ do not match")
        bound = getattr(self, "_proven_lower_bound", 0.0)
        decoder.expect(isinstance(bound, float), f"{where}: _proven_lower_bound is not a float")
        decoder.expect(isinstance(vars(self).get("is_optimal_", False), bool),
                       f"{where}: is_optimal_ is not a bool")
        for name in ("_front_impurity", "_front_n_splits"):
            value = getattr(self, name, None)
            decoder.expect(isinstance(value, np.ndarray) and value.shape == front.shape
                           and value.dtype.kind in "iuf" and np.all(np.isfinite(value)),
                           f"{where}: {name} does not match pareto_front_")
        # _front_index picks among the rows of some alpha, or within the budget: some must be.
        selectable = ~np.isnan(front["alpha_min"])
        if self.max_complexity is not None:
            selectable = within_complexity(front["complexity"], self.max_complexity)
        decoder.expect(np.all(np.isfinite(front["train_loss"]))
                       and np.all(np.isfinite(front["complexity"])) and selectable.any(),
                       f"{where}: pareto_front_ has non-finite losses or no tree to select")
        # What a fit writes: losses, complexities and impurities >= 0, alpha ranges of alphas
        # >= 0 in order (NaN for the trees no alpha selects), each row describing its tree.
        alpha_min, alpha_max = front["alpha_min"], front["alpha_max"]
        ranged = ~np.isnan(alpha_min)
        decoder.expect(np.all(front["train_loss"] >= 0) and np.all(front["complexity"] >= 0)
                       and np.all(self._front_impurity >= 0)
                       and np.array_equal(ranged, ~np.isnan(alpha_max))
                       and np.all(alpha_min[ranged] >= 0)
                       and np.all(alpha_min[ranged] <= alpha_max[ranged]),
                       f"{where}: pareto_front_ holds values no fit makes (negative losses, "
                       "complexities or alphas, or an alpha range in the wrong order)")
        decoder.expect(np.array_equal(front["n_leaves"], [t.n_leaves for t in trees])
                       and np.array_equal(front["depth"], [t.max_depth for t in trees])
                       and np.array_equal(self._front_n_splits, front["n_leaves"] - 1),
                       f"{where}: pareto_front_ does not describe its trees (leaves, depth, "
                       "splits)")
        for tree in trees:
            decoder.expect(tree.n_features == self.n_features_in_,
                           f"{where}: a tree has {tree.n_features} features, the estimator "
                           f"{self.n_features_in_}")
        self._objective.check_trees(self, trees, decoder, where)

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

    def _feature_costs(self, n_features, n_samples, depth, weight_total):
        # The most tests a complexity counts: one per level on a path for "expected_tests",
        # one per split node (fewer than the samples, and than a full tree's) for "n_splits".
        if self.complexity == "expected_tests":
            max_tests = depth
        else:
            max_tests = min(n_samples - 1, 2.0**depth - 1)
        return check_feature_costs(self.feature_costs, n_features, max(max_tests, 1),
                                   weight_total)

    def _sample_limits(self, n_samples):
        """Return min_samples_split and min_samples_leaf as any tree learner can take them.

        Beyond n_samples each forbids every split, as n_samples + 1 does; the C integers of the
        core and of scikit-learn's CART hold the latter.
        """
        return {"min_samples_split": min(self.min_samples_split, n_samples + 1),
                "min_samples_leaf": min(self.min_samples_leaf, n_samples + 1)}

    def _greedy_twin(self, max_depth):
        """Return this estimator set to grow the greedy tree of ``max_depth`` on exact values.

        The CART generator's best split at every state (one candidate), as the search itself
        would grow it, under the same leaf limits and monotonic constraints; a quarter of the
        time limit, if any.
        """
        twin = clone(self).set_params(max_depth=max_depth, splitter="cart", candidates=1,
                                      max_bins=None, verbose=0,
                                      time_limit=self._helper_time_limit())
        if getattr(self, "monotonic_cst", None) is not None:
            # As an array: the twin takes the validated X, without the names a dict reads.
            twin.set_params(monotonic_cst=check_monotonic_cst(self, self.monotonic_cst) or None)
        return twin

    def _helper_time_limit(self):
        """Return the time limit of a helper fit (greedy twin, heuristic): a quarter of ours."""
        return None if self.time_limit is None else self.time_limit / 4

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
        """Scale of the front's losses, for tie tolerances (the objective's)."""
        return self._objective.loss_unit(self.pareto_front_)

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
        objective = objective_at(front[rows], alpha)
        best = objective.min()
        tied = np.flatnonzero(objective <= best + TIE_TOL * max(self._loss_unit(), abs(best)))
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
        tolerance = TIE_TOL * max(self._loss_unit(), abs(loss.min()))
        ranked = np.where(loss <= loss.min() + tolerance, loss.min(), loss)
        order = np.lexsort((-rows, ranked))
        for k in rows[order]:
            params = self._selecting_params(k)
            if params is not None:
                return self.set_params(**params)
        raise ValueError("no tree of the front can be selected within this budget")

    def _selecting_params(self, k):
        """Return the ``alpha`` and ``max_complexity`` that select row ``k`` of the front.

        An alpha inside the row's range if it has one, else alpha 0 within its complexity;
        None if neither selects it.
        """
        front = self.pareto_front_
        lo, hi = front["alpha_min"][k], front["alpha_max"][k]
        choices = [(0.0, float(front["complexity"][k]))]
        if not np.isnan(lo):
            choices.insert(0, (alpha_inside(lo, hi), None))
        for alpha, budget in choices:
            # A range narrower than the tie tolerance has no point where its tree wins
            # outright; neither has a budget whose simpler trees tie with it.
            if self._front_index(alpha, budget) == k:
                return {"alpha": alpha, "max_complexity": budget}
        return None

    @property
    def tree_(self):
        """The tree of :attr:`pareto_front_` for the current ``alpha`` and ``max_complexity``."""
        row = self._current_row()   # checks that the estimator is fitted first
        return self.trees_[row]

    def _current_row(self):
        """Return the row of :attr:`pareto_front_` for the current parameters."""
        check_is_fitted(self)
        # Models saved before max_complexity existed were fitted without a budget.
        fitted = (self.pareto_front_["alpha_min"][0],
                  getattr(self, "_fitted_max_complexity", None))
        if not self.full_front and (self.alpha, self.max_complexity) != fitted:
            raise ValueError(f"this estimator was fitted with full_front=False for "
                             f"alpha={fitted[0]}, max_complexity={fitted[1]}: refit it for "
                             f"alpha={self.alpha}, max_complexity={self.max_complexity}")
        # set_params does not validate (scikit-learn's rule), and these two choose a tree of the
        # front without a refit: checked here, as fit checks them.
        validate_parameter_constraints(
            {name: self._parameter_constraints[name] for name in ("alpha", "max_complexity")},
            {"alpha": self.alpha, "max_complexity": self.max_complexity},
            caller_name=type(self).__name__)
        return self._front_index(self.alpha, self.max_complexity)

    @property
    def objective_(self):
        """The objective of :attr:`tree_`: ``train_loss + alpha * complexity``."""
        return float(objective_at(self.pareto_front_[self._current_row()], self.alpha))

    @property
    def lower_bound_(self):
        """A certified lower bound of the best objective any tree can reach; see Attributes."""
        check_is_fitted(self)
        if self.is_optimal_:
            return self.objective_
        return getattr(self, "_proven_lower_bound", float("nan"))

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_numeric(self, X, reset=False)

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


@register_estimator
@declare(CLASSIFIER)
class DPDTreeClassifier(LogProbaMixin, ClassifierMixin, _BaseDPDTree):
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
        ``alpha_max``. A numpy structured array (saved as it is in model files): read a
        column by name, ``pareto_front_["n_leaves"]``, or see it as a table with column names,
        ``pandas.DataFrame(clf.pareto_front_)`` (see Examples).
    trees_ : list of Tree
        The trees of :attr:`pareto_front_`, in the same order.
    tree_ : Tree
        The tree for the current ``alpha`` and ``max_complexity``.
    stats_ : dict
        Search statistics: ``states`` solved, ``candidates`` (splits generated), ``exact_scans``
        (states whose last split was searched exactly), ``sample_reads`` (the samples of the
        states solved, summed: the rows a pass over every solved state reads, states found in
        the cache not counted again), ``cache_hits``, ``sweeps`` (the exact search of
        ``full_front=False``: features of states of depth two whose cuts it evaluated all at
        once), ``shared_states`` (states whose
        subproblems were handed to idle threads, with ``n_jobs`` > 1), ``seconds``,
        ``state_bytes`` (what the solved states held, as the core counts them; the exact search
        of ``full_front=False``: the most its buffers and caches held), ``estimated_bytes``
        (what the fit was estimated to need before it started, its fixed part and its states:
        the "Memory" section of the user guide) and ``stopped_by`` (the parameter whose limit
        stopped the search: ``"time_limit"``, ``"max_states"`` or ``"memory_limit"``; None when
        it completed). With ``splitter="exhaustive", full_front=False``, ``gap`` too:
        ``objective_ - lower_bound_``, 0 when the tree is certified optimal.
    is_optimal_ : bool
        True when the tree is certified optimal: every depth used ``splitter="exhaustive"`` and
        the search completed within ``time_limit`` (or, stopped, proved a lower bound equal to
        the tree's objective), over every threshold of the training data. With
        ``full_front=False`` the certificate is for the fitted ``alpha``. A search on bins
        (``max_bins``) is exhaustive over the bins' thresholds only: it certifies its tree only
        where each bin holds a single distinct value, and never in a fit over machines.
    objective_ : float
        ``train_loss + alpha * complexity`` of :attr:`tree_`: what the fit minimises.
    lower_bound_ : float
        A certified lower bound of the least objective any tree of depth at most ``max_depth``
        (and within ``max_complexity``) reaches: :attr:`objective_` when :attr:`is_optimal_`.
        With ``splitter="exhaustive", full_front=False`` stopped by a limit (``time_limit``,
        ``max_states``, ``memory_limit``), the bound the search proved, finite and never above
        the optimum, so that ``objective_ - lower_bound_`` (``stats_["gap"]``) bounds how far
        the tree is from optimal. NaN when nothing is proven (other splitters, or the front's
        search stopped).

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
    >>> import pandas as pd
    >>> pd.DataFrame(clf.pareto_front_)[["alpha_min", "alpha_max", "n_leaves", "train_loss"]]
       alpha_min  alpha_max  n_leaves  train_loss
    0      0.000      0.000         4    0.040000
    1      0.000      0.376         3    0.040000
    2      0.376        inf         1    0.666667
    """

    _objective = CLASSIFICATION
    # The default's extra exact depth-2 candidates (AUTO_EXACT_DEPTH2_WORK) pay off for the 0-1
    # loss; for squared error they doubled the fit time of the bundled benchmarks for no gain.
    _auto_exact_depth2 = True

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Build the Pareto front of trees from the training set (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value). A sparse matrix is densified,
            with the memory of a dense float64 array.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; None means uniform.

        Returns
        -------
        self : DPDTreeClassifier
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True)
        check_classification_targets(y)
        self.classes_, y_encoded = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        factor = None if self.class_weight is None else compute_sample_weight(self.class_weight, y)
        weight, kept, weight_scale = training_weight(sample_weight, X, factor)
        if not kept.all():
            X, y_encoded, weight = X[kept], y_encoded[kept], weight[kept]

        y_codes = np.ascontiguousarray(y_encoded, dtype=np.int32)

        def cart_size():
            # scikit-learn's trees read float32: beyond its range (or for weights it refuses)
            # there is no size, and the estimate stays on its data bound.
            tree = DecisionTreeClassifier(
                criterion="entropy" if self.criterion != "gini" else "gini",
                **self._sample_limits(len(X)), random_state=0)
            try:
                tree.fit(X, y_codes, sample_weight=weight)
            except ValueError:
                return None
            return tree.tree_.node_count // 2

        def greedy_tree(twin, y):
            # The class weights are in the weights already.
            return twin.set_params(class_weight=None).fit(X, y, sample_weight=weight)

        self._fit_front(X, y_codes, weight, weight_scale, self.n_classes_,
                        core_params={"criterion": self.criterion}, cart_size=cart_size,
                        greedy_tree=greedy_tree)
        return self

    def _monotonic_constraints(self, n_columns):
        return check_monotonic_cst(self, self.monotonic_cst, n_classes=n_columns)

    def predict_proba(self, X):
        """Return the weighted class fractions of each sample's leaf.

        Under ``monotonic_cst``, a leaf's probability of ``classes_[1]`` is clipped to the
        bounds of the leaf (see there).

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
            The class of largest probability in each sample's leaf (:meth:`predict_proba`):
            the class of largest weight, unless ``monotonic_cst`` clipped the leaf's.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


@register_estimator
@declare(REGRESSOR)
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
        As for :class:`DPDTreeClassifier`: the tree is certified optimal.
    objective_ : float
        ``train_loss + alpha * complexity`` of :attr:`tree_`: what the fit minimises.
    lower_bound_ : float
        As for :class:`DPDTreeClassifier`: a certified lower bound of the least objective,
        which ``splitter="exhaustive", full_front=False`` proves even when stopped by a limit.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTreeRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> reg = DPDTreeRegressor(max_depth=1).fit(X, (X[:, 0] > 2.5) * 10.0)
    >>> reg.predict([[1.0], [6.0]])
    array([ 0., 10.])
    """

    _objective = SQUARED_ERROR

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Build the Pareto front of regression trees from the training set (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value). A sparse matrix is densified,
            with the memory of a dense float64 array.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; None means uniform.

        Returns
        -------
        self : DPDTreeRegressor
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True, multi_output=True,
                                y_numeric=True)
        targets = np.ascontiguousarray(y.reshape(y.shape[0], -1), dtype=np.float64)
        self.n_outputs_ = targets.shape[1]
        weight, kept, weight_scale = training_weight(sample_weight, X)
        if not kept.all():
            X, targets, weight = X[kept], targets[kept], weight[kept]

        # The objective centres and scales the targets for the core (_objectives.CentredScale).
        def greedy_tree(twin, y):
            return twin.fit(X, y, sample_weight=weight)

        self._fit_front(X, targets, weight, weight_scale, self.n_outputs_,
                        greedy_tree=greedy_tree)
        return self

    def _monotonic_constraints(self, n_columns):
        return check_monotonic_cst(self, self.monotonic_cst, n_outputs=n_columns)

    def predict(self, X):
        """Return the predicted value of each sample: the weighted mean of its leaf.

        Under ``monotonic_cst``, the mean is clipped to the bounds of the leaf (see there).

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
