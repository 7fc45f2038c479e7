"""Policy trees: the tree that assigns each sample the action of highest total reward."""

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils.validation import _check_sample_weight, check_array, check_consistent_length

from ._classes import _BaseDPDTree
from ._io import register_estimator
from ._objectives import POLICY as POLICY_OBJECTIVE
from ._params import POLICY, declare
from ._tree import TREE_LEAF
from ._validation import training_weight, validate_numeric


def _action_names(rewards):
    """Return the column names of a DataFrame of rewards, or None."""
    if hasattr(rewards, "columns") and hasattr(rewards, "iloc"):
        return np.asarray(rewards.columns)
    return None


def _as_table(rewards):
    """Return validated rewards as (n_samples, n_actions), refusing a single column of them."""
    if rewards.ndim != 2:
        raise ValueError(f"rewards must be 2-D, of shape (n_samples, n_actions): one column "
                         f"per action, got shape {rewards.shape}")
    return np.ascontiguousarray(rewards, dtype=np.float64)


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
    the same criterion (econml's ``PolicyTree``).

    Rewards of any scale and offset give the same tree: adding a constant to every action of
    a sample changes no regret, and the core reads the rewards less each row's least, divided
    by a power of two. The leaves hold the weighted mean reward of each action
    (``tree_.value[node, action, 0]``).

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
    >>> from dpdt import DPDTreePolicy
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> rewards = np.column_stack([X[:, 0] < 3, X[:, 0] >= 3]).astype(float)
    >>> policy = DPDTreePolicy(max_depth=1).fit(X, rewards)
    >>> policy.predict([[1.0], [6.0]])
    array([0, 1])
    >>> policy.score(X, rewards)
    1.0
    """

    _objective = POLICY_OBJECTIVE

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, rewards, sample_weight=None):
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

        Returns
        -------
        self : DPDTreePolicy
            The fitted estimator.
        """
        names = _action_names(rewards)
        X, rewards = validate_numeric(self, X, rewards, reset=True, multi_output=True,
                                      y_numeric=True)
        rewards = _as_table(rewards)
        self.n_actions_ = rewards.shape[1]
        self.actions_ = names if names is not None else np.arange(self.n_actions_)
        weight, kept, weight_scale = training_weight(sample_weight, X)
        if not kept.all():
            X, rewards, weight = X[kept], rewards[kept], weight[kept]

        def greedy_tree(twin, y):
            return twin.fit(X, y, sample_weight=weight)

        self._fit_front(X, rewards, weight, weight_scale, self.n_actions_,
                        greedy_tree=greedy_tree)
        # The core's values are the mean rewards above each row's least: the least's mean per
        # node brings them back to the rewards themselves.
        least = rewards.min(axis=1)
        for tree in self.trees_:
            tree.value += _node_means(tree, X, least, weight)[:, np.newaxis, np.newaxis]
        return self

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
            (or named by them).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the mean; None means uniform.

        Returns
        -------
        score : float
            The weighted mean of each sample's reward for the action the policy chooses.
        """
        chosen = np.argmax(self.predict_value(X), axis=1)
        names = _action_names(rewards)
        rewards = _as_table(check_array(rewards, dtype=np.float64, ensure_2d=False,
                                        input_name="rewards"))
        check_consistent_length(chosen, rewards)
        if rewards.shape[1] != self.n_actions_:
            raise ValueError(f"rewards has {rewards.shape[1]} columns, the policy "
                             f"{self.n_actions_} actions")
        if names is not None and set(names.tolist()) == set(self.actions_.tolist()):
            rewards = rewards[:, [names.tolist().index(a) for a in self.actions_.tolist()]]
        weight = _check_sample_weight(sample_weight, rewards)
        return float(np.average(rewards[np.arange(len(chosen)), chosen], weights=weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags


def _node_means(tree, X, values, weight):
    """Return the weighted mean of ``values`` over the training samples of each node."""
    leaves = tree.apply(X)
    sums = np.bincount(leaves, weights=weight * values, minlength=tree.node_count)
    totals = np.bincount(leaves, weights=weight, minlength=tree.node_count)
    # Preorder: children come after their parent, so a reverse pass sums them up.
    for node in range(tree.node_count - 1, -1, -1):
        left = tree.children_left[node]
        if left != TREE_LEAF:
            right = tree.children_right[node]
            sums[node] = sums[left] + sums[right]
            totals[node] = totals[left] + totals[right]
    return np.divide(sums, totals, out=np.zeros_like(sums), where=totals > 0)
