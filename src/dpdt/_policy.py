"""Policy trees: the tree that assigns each sample the action of highest total reward."""

import warnings
from contextlib import nullcontext

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import validate_parameter_constraints
from sklearn.utils.validation import (
    _check_sample_weight,
    check_array,
    check_consistent_length,
    check_is_fitted,
)

from ._budget import COST_DTYPE, budget_front, check_action_costs
from ._classes import _BaseDPDTree
from ._front import budget_mask, objective_at, within_cost
from ._io import register_estimator
from ._objectives import POLICY as POLICY_OBJECTIVE
from ._objectives import reward_shape_error
from ._params import POLICY, declare
from ._runner import n_threads, shared_stop
from ._tree import TREE_LEAF, Tree
from ._validation import binary_exponent, training_weight, validate_numeric

# The fitted state of a budget front, which a fit without costs removes.
_BUDGET_STATE = ("cost_front_", "cost_trees_", "_cost_alpha")


def _action_names(rewards):
    """Return the column names of a DataFrame of rewards, or None."""
    if hasattr(rewards, "columns") and hasattr(rewards, "iloc"):
        return np.asarray(rewards.columns)
    return None


def _checked_rewards(rewards):
    """Return rewards checked as finite numbers, under their name, as a float64 array."""
    # scikit-learn's finiteness check sums the values first: huge finite rewards of both signs
    # make that sum inf - inf, which is no reason to warn (the exact check follows).
    with np.errstate(over="ignore", invalid="ignore"):
        return check_array(rewards, dtype=np.float64, ensure_2d=False, input_name="rewards")


def _as_table(rewards):
    """Return validated rewards as (n_samples, n_actions), refusing a single column of them."""
    if rewards.ndim != 2:
        raise ValueError(reward_shape_error(rewards.shape))
    return np.ascontiguousarray(rewards, dtype=np.float64)


def validate_policy_data(estimator, X, rewards):
    """Return X and rewards validated for a fit, setting ``n_actions_`` and ``actions_``."""
    names = _action_names(rewards)
    if rewards is not None:   # None: scikit-learn's message that the target is required
        # Checked first under its own name: the target's check would call it "y".
        rewards = _checked_rewards(rewards)
    X, rewards = validate_numeric(estimator, X, rewards, reset=True, multi_output=True,
                                  y_numeric=True)
    rewards = _as_table(rewards)
    attributes, _ = POLICY_OBJECTIVE.fitted_shape(None, rewards.shape[1], names)
    for name, value in attributes.items():
        setattr(estimator, name, value)
    return X, rewards


@register_estimator
@declare(POLICY)
class DPDTreePolicy(_BaseDPDTree):
    """Policy tree learned non-greedily by dynamic programming: who should get which action.

    Given the reward of every action for every training sample (``rewards``, of shape
    ``(n_samples, n_actions)``: estimated outcomes, such as the doubly robust scores of
    :func:`doubly_robust_rewards`, or minus the cost of each decision), each leaf of the tree
    assigns one action to all its samples, and the fit finds the tree of depth at most
    ``max_depth`` minimising

        train_loss + alpha * complexity

    where ``train_loss`` is the regret: the weighted mean, over the training samples, of the
    reward of their own best action less that of the action their leaf assigns. Minimising it
    maximises the total reward of the policy. As for :class:`DPDTreeClassifier`, the solution is
    computed for every ``alpha`` at once (:attr:`pareto_front_`), ``splitter="exhaustive"``
    gives the optimal tree, and the default search is never worse than the greedy tree grown by
    the same criterion as econml's ``PolicyTree``: the split of largest welfare gain among those
    that leave at least 5 % of the node's samples on each side, and where no split gains, the
    one where the actions' effects differ most.

    The tree of highest training reward also follows the noise of estimated rewards (doubly
    robust scores are noisy), more so as the depth grows: for the value of a policy on new
    units, use :class:`DPDTreePolicyCV`, which chooses the tree's size by cross-validated value.

    Rewards of any scale and offset give the same tree: adding a constant to every action of
    a sample changes no regret, and the core reads the rewards less each row's least, divided
    by a power of two. The leaves hold the weighted mean reward of each action
    (``tree_.value[node, action, 0]``).

    Budgets: given the cost of each action (``action_costs`` of :meth:`fit`; "treat at most N
    units" is a cost of 1 for each treated unit, 0 for the control), the fit also finds the
    front of policy value against total cost (:attr:`cost_front_`), and ``max_cost`` or
    :meth:`select_tree` choose the best tree within a budget, without a refit.

    Example-dependent cost-sensitive classification is the same problem: with rewards minus the
    cost of predicting each class for each sample, the policy is the classifier of least total
    cost (see the user guide).

    Attributes
    ----------
    actions_ : ndarray of shape (n_actions,)
        The actions: the column names of ``rewards`` when it was a DataFrame, else
        ``0 .. n_actions - 1``. :meth:`predict` returns them.
    n_actions_ : int
        The number of actions.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.
    pareto_front_ : ndarray, structured
        As for :class:`DPDTreeClassifier`, with ``train_loss`` the mean regret, in the
        rewards' unit.
    trees_ : list of Tree
        The trees of :attr:`pareto_front_`; ``value`` holds each node's mean reward per
        action, shape ``(node_count, n_actions, 1)``.
    tree_ : Tree
        The tree for the current ``alpha`` and ``max_complexity``, or, with ``max_cost``, the
        tree of :attr:`cost_trees_` it selects.
    cost_front_ : ndarray, structured
        After a fit with ``action_costs``: the policies of largest ``value - price * cost``
        for some price >= 0, from the best (price 0) to the cheapest, the vertices of the
        upper convex hull of (cost, value) (with ``alpha > 0``, of (cost, value - alpha *
        complexity)). Fields: ``cost``, the total cost of the actions over the training
        samples (weighted); ``value``, the mean reward (:meth:`score` on the training data);
        ``train_loss`` and ``complexity``, as in :attr:`pareto_front_`; ``n_leaves`` and
        ``depth``; ``price_min`` and ``price_max``, the prices (reward per unit of cost) for
        which the row is the best; ``price``, the one its tree was fitted at. Each row is one
        fit on ``rewards - price * costs``, found by the non-inferior set scheme (``K`` rows
        take about ``2K - 1`` fits with ``splitter="exhaustive"``, more with a heuristic search,
        whose points can hide one another; side by side on ``n_jobs`` threads, the result
        not depending on their number): with ``splitter="exhaustive"`` every row is
        certified the optimum of its prices, else it is DPDT's tree for them. Fitted for the
        ``alpha`` and ``max_complexity`` of the fit; ``time_limit`` is one deadline for all
        its fits (past it, no further price is fitted, with a ``ConvergenceWarning``), and
        ``memory_limit`` bounds each of them (up to ``n_jobs`` run at once).
    cost_trees_ : list of Tree
        The trees of :attr:`cost_front_`. A tree fitted at price p holds in ``value`` the
        mean of ``rewards - p * costs`` per action, whose largest is the leaf's action (the
        cheapest row, fitted at an infinite price, holds minus the mean costs).
    stats_ : dict
        Search statistics, as for :class:`DPDTreeClassifier`; after a fit with
        ``action_costs``, ``stats_["budget_fits"]`` is the number of fits the front took.
    is_optimal_ : bool
        As for :class:`DPDTreeClassifier`: the tree is certified optimal (after a fit with
        ``action_costs``: every fit of :attr:`cost_front_` too).
    objective_ : float
        ``train_loss + alpha * complexity`` of :attr:`tree_`: what the fit minimises.
    lower_bound_ : float
        As for :class:`DPDTreeClassifier`: a certified lower bound of the least objective,
        which ``splitter="exhaustive", full_front=False`` proves even when stopped by a limit.
        With ``max_cost``, when :attr:`is_optimal_`, a bound on the objective of every tree
        within the budget: the hull's, between the rows on either side of ``max_cost`` (what a
        tree between them could reach at most), else NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTreePolicy
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> rewards = np.column_stack([X[:, 0] < 3, X[:, 0] >= 3]).astype(float)
    >>> policy = DPDTreePolicy(max_depth=1).fit(X, rewards)
    >>> policy.predict([[1.0], [6.0]])
    array([0, 1])
    >>> policy.score(X, rewards)
    1.0

    Treat at most 2 of the 8 units (action 1 costs 1, the control 0):

    >>> treated = policy.fit(X, rewards, action_costs=[0.0, 1.0]).select_tree(max_cost=2)
    >>> int((treated.predict(X) == 1).sum()) <= 2
    True
    """

    _objective = POLICY_OBJECTIVE

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, rewards, sample_weight=None, action_costs=None):
        """Build the Pareto front of policy trees from the training set (X, rewards).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value). A sparse matrix is densified.
        rewards : array-like or DataFrame of shape (n_samples, n_actions)
            The reward of each action for each sample, higher is better (finite numbers). A
            DataFrame's columns name the actions (:attr:`actions_`).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; None means uniform.
        action_costs : array-like of shape (n_actions,) or (n_samples, n_actions), default=None
            The cost of each action (for every sample), or of each action for each sample:
            finite and non-negative (a Series or DataFrame naming the actions of a DataFrame
            of rewards is put in their order). Given, the fit also finds
            :attr:`cost_front_`, the policies of best value for their total cost, for
            ``max_cost`` and :meth:`select_tree` to choose from. A fit argument, as
            ``sample_weight``: costs per sample are data, and cross-validation splits them
            with the samples.

        Returns
        -------
        self : DPDTreePolicy
            The fitted estimator.
        """
        names = _action_names(rewards)
        X, rewards = validate_policy_data(self, X, rewards)
        weight, kept, weight_scale = training_weight(sample_weight, X)
        costs = None
        if action_costs is not None:
            costs = check_action_costs(action_costs, len(X), self.actions_, names is not None)
        elif self.max_cost is not None:
            raise ValueError("max_cost is a budget on the costs of the actions: pass "
                             "action_costs to fit")
        if not kept.all():
            X, rewards, weight = X[kept], rewards[kept], weight[kept]
            costs = None if costs is None else costs[kept]
        for name in _BUDGET_STATE:
            vars(self).pop(name, None)
        # With costs, the fits of the front share one deadline, as a cross-validation's do.
        with nullcontext() if costs is None else shared_stop(self.time_limit):
            self._fit_rewards(X, rewards, weight, weight_scale)
            if costs is not None:
                self._fit_budget(X, rewards, costs, weight, weight_scale)
        return self

    def _fit_rewards(self, X, rewards, weight, weight_scale):
        """Fit the front of policy trees of ``rewards``, on data as :meth:`fit` validates it."""
        def greedy_tree(twin, y):
            # The bins read the twin's splits alone: its nodes' rewards stay as the core
            # returns them (bringing them back reads X once per tree of its front).
            twin._splits_only = True
            return twin.fit(X, y, sample_weight=weight)

        self._fit_front(X, rewards, weight, weight_scale, rewards.shape[1],
                        greedy_tree=greedy_tree)
        if getattr(self, "_splits_only", False):
            return
        # The core's values are the mean rewards above each row's least: the least's mean per
        # node brings them back to the rewards themselves.
        scale = self._objective.scale_of(rewards, weight)
        least = self._objective.row_offsets(rewards, scale)
        first = self.trees_[0]
        first_leaves = first.apply(X)
        for tree in self.trees_:
            leaves = first_leaves if tree is first else _pruned_leaves(tree, first, first_leaves)
            means = np.ldexp(_node_means(tree, X, least, weight, leaves), scale.offset_exponent)
            tree.value += means[:, np.newaxis, np.newaxis]

    def _fit_budget(self, X, rewards, costs, weight, weight_scale):
        """Find :attr:`cost_front_`, this estimator's own front being that of price 0."""
        certified = []

        def fit_at(table, n_jobs, least_cost):
            twin = clone(self).set_params(max_cost=None, verbose=0, n_jobs=n_jobs)
            if least_cost:
                twin.set_params(alpha=0.0)
            twin._fit_rewards(X, table, weight, weight_scale)
            certified.append(twin.is_optimal_)
            row = twin._current_row()
            return twin.trees_[row], float(twin.pareto_front_["complexity"][row])

        row = self._current_row()
        first = (self.trees_[row], float(self.pareto_front_["complexity"][row]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            (self.cost_front_, self.cost_trees_), n_fits, complete = budget_front(
                fit_at, X, rewards, costs, weight * weight_scale, float(self.alpha), first,
                n_threads(self.n_jobs))
        self._cost_alpha = float(self.alpha)
        self.stats_["budget_fits"] = n_fits
        self.is_optimal_ = self.is_optimal_ and all(certified) and complete
        self._warn_budget_limits(caught, n_fits, complete)

    def _warn_budget_limits(self, caught, n_fits, complete):
        """Warn once for the fits of the front that limits cut short, and for those not made.

        ``caught`` are the fits' warnings, the others re-issued.
        """
        cut = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        for w in caught:
            if w not in cut:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if not cut and complete:
            return
        # A fit's warning opens with the limit that stopped it ("max_states=1000 reached").
        limits = sorted({str(w.message).split(":")[0] for w in cut})
        head = ("" if complete else f"time_limit={self.time_limit} s expired: cost_front_ "
                f"holds the policies of the {n_fits} fits made, not every price was fitted; ")
        stopped = (f"{len(cut)} of the budget front's fits were cut short "
                   f"({'; '.join(limits)}) and returned the best trees explored so far"
                   if cut else "")
        warnings.warn(f"{head}{stopped}".rstrip("; "), ConvergenceWarning, stacklevel=4)

    def _greedy_twin(self, max_depth):
        # The greedy tree is fitted on rewards alone.
        return super()._greedy_twin(max_depth).set_params(max_cost=None)

    @property
    def tree_(self):
        """The tree of :attr:`pareto_front_`, or of :attr:`cost_front_` within ``max_cost``."""
        if self.max_cost is None:
            return super().tree_
        return self.cost_trees_[self._cost_row()]

    @property
    def objective_(self):
        """The objective of :attr:`tree_`: ``train_loss + alpha * complexity``."""
        if self.max_cost is None:
            return super().objective_
        return float(objective_at(self.cost_front_[self._cost_row()], self.alpha))

    @property
    def lower_bound_(self):
        """A certified lower bound of the best objective within the budget; see Attributes."""
        if self.max_cost is None:
            return super().lower_bound_
        row = self._cost_row()
        if not self.is_optimal_:
            return float("nan")
        front = self.cost_front_
        if row == 0:
            return self.objective_   # the best policy of all is within the budget
        # Every tree lies below the hull: one costing at most max_cost, below its edge there.
        dear, cheap = front[row - 1], front[row]
        share = (self.max_cost - cheap["cost"]) / (dear["cost"] - cheap["cost"])
        return float(objective_at(cheap, self.alpha)
                     + share * (objective_at(dear, self.alpha) - objective_at(cheap, self.alpha)))

    def _cost_row(self):
        """Return the row of :attr:`cost_front_` that the current ``max_cost`` selects."""
        check_is_fitted(self)
        fitted = (getattr(self, "_cost_alpha", None), self._fitted_max_complexity)
        if hasattr(self, "cost_front_") and (self.alpha, self.max_complexity) != fitted:
            raise ValueError(f"cost_front_ was fitted for alpha={fitted[0]}, max_complexity="
                             f"{fitted[1]}, not alpha={self.alpha}, max_complexity="
                             f"{self.max_complexity}: set them back (select_tree(max_cost=...) "
                             "does) or refit")
        return self._dearest_within(self.max_cost)

    def _dearest_within(self, max_cost):
        """Return the row of :attr:`cost_front_` of largest cost within ``max_cost``."""
        check_is_fitted(self)
        validate_parameter_constraints({"max_cost": self._parameter_constraints["max_cost"]},
                                       {"max_cost": max_cost}, caller_name=type(self).__name__)
        if not hasattr(self, "cost_front_"):
            raise ValueError("max_cost is a budget on the costs of the actions, and this "
                             "policy was fitted without action_costs")
        rows = np.flatnonzero(within_cost(self.cost_front_["cost"], max_cost))
        if not len(rows):
            raise ValueError(f"no policy of cost_front_ costs at most {max_cost}: the cheapest "
                             f"costs {self.cost_front_['cost'][-1]:.6g}")
        return int(rows[0])

    def select_tree(self, *, max_leaves=None, max_complexity=None, max_depth=None,
                    max_cost=None):
        """Set the parameters that select the best tree within a budget, without a refit.

        Without ``max_cost``, as :meth:`DPDTreeClassifier.select_tree` does on
        :attr:`pareto_front_` (``max_cost`` is set to None). With it, among the rows of
        :attr:`cost_front_` within every budget given, the dearest, which has the largest
        value: ``max_cost`` is set to select it (and ``alpha`` and ``max_complexity`` back
        to those of the fit). Those rows are the convex hull's of (cost, value): a budget
        between two of them gets the cheaper one, where a tree off the hull may reach more
        of the budget and a higher value; :attr:`lower_bound_` bounds how much higher.

        Parameters
        ----------
        max_leaves : int or None, default=None
            Largest number of leaves allowed (>= 1). None: no limit.
        max_complexity : float or None, default=None
            Largest ``complexity`` allowed (>= 0). None: no limit.
        max_depth : int or None, default=None
            Largest depth allowed (>= 0). None: no limit.
        max_cost : float or None, default=None
            Largest total cost of the actions over the training samples (>= 0), in the unit
            of ``action_costs`` times ``sample_weight``. None: no limit.

        Returns
        -------
        self : DPDTreePolicy
            The estimator, its parameters set; :attr:`tree_` is the chosen tree.
        """
        if max_cost is None:
            return super().select_tree(max_leaves=max_leaves, max_complexity=max_complexity,
                                       max_depth=max_depth)
        self._dearest_within(max_cost)   # checks the budget and that there is a front
        front = self.cost_front_
        rows = np.flatnonzero(budget_mask(
            front["n_leaves"], front["complexity"], front["depth"], max_leaves=max_leaves,
            max_complexity=max_complexity, max_depth=max_depth, caller="select_tree")
            & within_cost(front["cost"], max_cost))
        if not len(rows):
            raise ValueError("no tree of cost_front_ is within this budget")
        # The budget itself when it selects the row (lower_bound_ then bounds the best tree of
        # that budget), else the row's cost.
        for budget in (float(max_cost), float(front["cost"][rows[0]])):
            if self._dearest_within(budget) == rows[0]:
                return self.set_params(max_cost=budget, alpha=self._cost_alpha,
                                       max_complexity=self._fitted_max_complexity)
        raise ValueError("no tree of cost_front_ can be selected within this budget")

    def _selecting_params(self, k):
        params = super()._selecting_params(k)
        return None if params is None else {**params, "max_cost": None}

    def _check_fitted_state(self, decoder, where):
        super()._check_fitted_state(decoder, where)
        front, trees = getattr(self, "cost_front_", None), getattr(self, "cost_trees_", None)
        if front is None and trees is None:
            decoder.expect(self.max_cost is None,
                           f"{where}: max_cost is set and there is no cost_front_")
            return
        decoder.expect(isinstance(front, np.ndarray) and front.dtype == COST_DTYPE
                       and front.ndim == 1 and len(front) >= 1 and isinstance(trees, list)
                       and len(trees) == len(front) and all(isinstance(t, Tree) for t in trees),
                       f"{where}: cost_front_ and cost_trees_ do not match")
        decoder.expect(isinstance(getattr(self, "_cost_alpha", None), float),
                       f"{where}: _cost_alpha is not a float")
        # What a fit writes: finite costs >= 0 falling and values falling with them, price
        # ranges from 0 to infinity that meet, each row describing its tree.
        numbers = np.column_stack([front[name] for name in
                                   ("cost", "value", "train_loss", "complexity")])
        prices = front["price_min"], front["price_max"]
        decoder.expect(np.all(np.isfinite(numbers)) and np.all(numbers[:, [0, 2, 3]] >= 0)
                       and np.all(front["price"] >= 0)
                       and np.all(np.diff(front["cost"]) < 0)
                       and np.all(np.diff(front["value"]) <= 0)
                       and prices[0][0] == 0 and np.isinf(prices[1][-1])
                       and np.array_equal(prices[0][1:], prices[1][:-1])
                       and np.all(prices[0] <= prices[1]) and not np.isnan(front["price"]).any(),
                       f"{where}: cost_front_ holds values no fit makes")
        decoder.expect(np.array_equal(front["n_leaves"], [t.n_leaves for t in trees])
                       and np.array_equal(front["depth"], [t.max_depth for t in trees]),
                       f"{where}: cost_front_ does not describe its trees (leaves, depth)")
        for tree in trees:
            decoder.expect(tree.n_features == self.n_features_in_,
                           f"{where}: a tree has {tree.n_features} features, the estimator "
                           f"{self.n_features_in_}")
        self._objective.check_trees(self, trees, decoder, f"{where}: cost_trees_")

    def predict(self, X):
        """Return the action of each sample: that of largest mean reward in its leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        actions : ndarray of shape (n_samples,)
            The chosen action, as in :attr:`actions_` (ties: the first action).
        """
        values = self.predict_value(X)
        return self.actions_[np.argmax(values, axis=1)]

    def predict_value(self, X):
        """Return the mean training reward of each action in each sample's leaf.

        With ``max_cost``, the tree of :attr:`cost_front_` holds the net rewards at its price
        p, the mean of ``rewards - p * costs`` (see :attr:`cost_trees_`), and these are
        returned: their largest is the action.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        values : ndarray of shape (n_samples, n_actions)
            Columns ordered as :attr:`actions_`.
        """
        tree = self.tree_
        return tree.value[tree.apply(self._validate_X_predict(X)), :, 0]

    def score(self, X, rewards, sample_weight=None):
        """Return the mean reward of the policy's actions: the policy's value on (X, rewards).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        rewards : array-like or DataFrame of shape (n_samples, n_actions)
            The reward of each action for each sample, columns ordered as :attr:`actions_`
            (or named by them; a DataFrame naming other actions is refused).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the mean; None means uniform.

        Returns
        -------
        score : float
            The weighted mean of each sample's reward for the action the policy chooses.
        """
        chosen = np.argmax(self.predict_value(X), axis=1)
        names = _action_names(rewards)
        rewards = _as_table(_checked_rewards(rewards))
        check_consistent_length(chosen, rewards)
        if rewards.shape[1] != self.n_actions_:
            raise ValueError(f"rewards has {rewards.shape[1]} columns, the policy "
                             f"{self.n_actions_} actions")
        rewards = rewards[:, action_columns(names, self.actions_)]
        weight = _check_sample_weight(sample_weight, rewards)
        earned = rewards[np.arange(len(chosen)), chosen]
        # In units of powers of two (exact), so that sums near float64's largest stay finite.
        exponent = binary_exponent(earned)
        weight = np.ldexp(weight, -binary_exponent(weight))
        return float(np.ldexp(np.average(np.ldexp(earned, -exponent), weights=weight),
                              exponent))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags


def action_columns(names, actions):
    """Return the order of the columns of rewards named ``names`` that puts them as ``actions``.

    Rewards naming the policy's actions are put in their order; without names, or for a policy
    that knows its actions by position only (``actions`` 0, 1, ...), they are taken in order.
    Rewards naming other actions than the policy's are refused: in order, they would be
    misplaced.
    """
    if names is None:
        return slice(None)
    names, actions = list(names), list(actions)
    if set(names) == set(actions) and len(names) == len(actions):
        return [names.index(a) for a in actions]
    if actions == list(range(len(actions))):
        return slice(None)
    raise ValueError(f"rewards name the actions {names}, the policy {actions}")


def _node_means(tree, X, values, weight, leaves=None):
    """Return the weighted mean of ``values`` over the training samples of each node."""
    return node_means(tree, *leaf_sums(tree, X, values, weight, leaves))


def _pruned_leaves(tree, full, full_leaves):
    """Return the leaf of ``tree`` of each row from its leaf of ``full`` (``full_leaves``).

    Where ``tree`` is a pruning of ``full`` (the same split at each of its split nodes), a row
    reaches the leaf of ``tree`` that is its ``full`` leaf or one of that leaf's ancestors: the
    rows are routed once for a front of such trees. None where ``tree`` is not one.
    """
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    full_left, full_right = full.children_left.tolist(), full.children_right.tolist()
    owner = np.full(full.node_count, -1, dtype=full_leaves.dtype)
    pairs = [(0, 0)]
    while pairs:
        node, at = pairs.pop()
        if left[node] == TREE_LEAF:
            # Every node of full below `at` belongs to this leaf.
            below = [at]
            while below:
                s = below.pop()
                owner[s] = node
                if full_left[s] != TREE_LEAF:
                    below += [full_left[s], full_right[s]]
            continue
        if (full_left[at] == TREE_LEAF or full.feature[at] != tree.feature[node]
                or full.threshold[at] != tree.threshold[node]
                or full.missing_go_to_left[at] != tree.missing_go_to_left[node]):
            return None
        pairs += [(left[node], full_left[at]), (right[node], full_right[at])]
    return owner[full_leaves]


def leaf_sums(tree, X, values, weight, leaves=None):
    """Return the sums of ``weight * values`` and of ``weight`` over the samples of each leaf.

    Indexed by node (zero for a split node); the sums of parts of the rows add up to the
    whole's, for :func:`node_means`. ``leaves``, the leaf of each row of X if known (else
    ``tree.apply(X)``).
    """
    if leaves is None:
        leaves = tree.apply(X)
    return (np.bincount(leaves, weights=weight * values, minlength=tree.node_count),
            np.bincount(leaves, weights=weight, minlength=tree.node_count))


def node_means(tree, sums, totals):
    """Return the weighted mean of every node from its leaves' sums (:func:`leaf_sums`)."""
    sums, totals = np.array(sums, dtype=np.float64), np.array(totals, dtype=np.float64)
    # Preorder: children come after their parent, so a reverse pass sums them up.
    for node in range(tree.node_count - 1, -1, -1):
        left = tree.children_left[node]
        if left != TREE_LEAF:
            right = tree.children_right[node]
            sums[node] = sums[left] + sums[right]
            totals[node] = totals[left] + totals[right]
    return np.divide(sums, totals, out=np.zeros_like(sums), where=totals > 0)
