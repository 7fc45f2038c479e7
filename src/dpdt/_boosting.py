"""Gradient boosting with DPDT weak learners, optimal for the second-order boosting objective."""

from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from scipy.special import expit, logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ._binning import bin_features
from ._classes import SPLITTERS, resolve_candidates, resolve_splitters, search_depth
from ._io import SaveMixin
from ._runner import call_core
from ._tree import Tree

# Hessians below this are clipped, as the leaf value -G / (H + lambda) needs H + lambda > 0.
_MIN_HESSIAN = 1e-16


def _grouped_quantile(values, weights, groups, n_groups, q):
    """Lower weighted ``q``-quantile of ``values`` within each group (NaN for a weightless group).

    The smallest value whose cumulative weight, in increasing order, reaches ``q`` of its
    group's weight: scikit-learn's ``_weighted_percentile``. A row of integer weight k and k
    copies of it give the same quantile.
    """
    positive = weights > 0
    values, weights, groups = values[positive], weights[positive], groups[positive]
    order = np.lexsort((values, groups))
    values, weights, groups = values[order], weights[order], groups[order]
    out = np.full(n_groups, np.nan)
    if values.size == 0:
        return out
    cumulative = np.cumsum(weights)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], groups.size]
    before = np.r_[0.0, cumulative][starts]
    # The same subtraction gives each row's running weight and its group's total, so the last
    # row of a group always reaches q <= 1 of the total.
    running = cumulative - np.repeat(before, ends - starts)
    total = (cumulative[ends - 1] - before)[np.repeat(np.arange(starts.size), ends - starts)]
    reached = np.flatnonzero(running >= q * total)
    present, first = np.unique(groups[reached], return_index=True)
    out[present] = values[reached[first]]
    return out


def _weighted_quantile(values, weights, q):
    return _grouped_quantile(values, weights, np.zeros(values.shape[0], dtype=np.intp), 1, q)[0]


class _SquaredError:
    """Half squared error: gradient raw - y, hessian 1."""

    n_trees_per_round = 1
    refits_leaves = False

    def init_raw(self, y, w):
        return np.full((1,), np.average(y, weights=w))

    def gradients(self, y, raw, w):
        return (raw[:, 0] - y)[:, None], np.ones_like(raw)

    def loss(self, y, raw, w):
        return np.average((y - raw[:, 0]) ** 2, weights=w)


class _AbsoluteError:
    """Absolute error: first-order trees on -sign(y - raw), leaves the weighted median residual."""

    n_trees_per_round = 1
    refits_leaves = True

    def init_raw(self, y, w):
        return np.array([_weighted_quantile(y, w, 0.5)])

    def gradients(self, y, raw, w):
        return np.sign(raw[:, 0] - y)[:, None], np.ones_like(raw)

    def loss(self, y, raw, w):
        return np.average(np.abs(y - raw[:, 0]), weights=w)

    def leaf_values(self, residual, w, leaf, n_nodes):
        return _grouped_quantile(residual, w, leaf, n_nodes, 0.5)


class _Huber:
    """Huber loss whose delta is, each round, the ``quantile`` of the absolute residuals.

    As in scikit-learn's GradientBoostingRegressor: the trees are first-order (hessian 1) on the
    clipped residuals, and each leaf then takes Friedman's (2001) one-step estimate, the median
    residual plus the weighted mean of the residuals' deviations from it clipped to delta.
    """

    n_trees_per_round = 1
    refits_leaves = True

    def __init__(self, quantile, delta=np.nan):
        self.quantile = quantile
        self.delta = delta   # set by each round's gradients, used by loss and leaf_values

    def init_raw(self, y, w):
        return np.array([_weighted_quantile(y, w, 0.5)])

    def gradients(self, y, raw, w):
        residual = y - raw[:, 0]
        self.delta = float(_weighted_quantile(np.abs(residual), w, self.quantile))
        return -np.clip(residual, -self.delta, self.delta)[:, None], np.ones_like(raw)

    def loss(self, y, raw, w):
        a = np.abs(y - raw[:, 0])
        d = self.delta
        return np.average(np.where(a <= d, 0.5 * a**2, d * (a - 0.5 * d)), weights=w)

    def leaf_values(self, residual, w, leaf, n_nodes):
        median = _grouped_quantile(residual, w, leaf, n_nodes, 0.5)
        deviation = residual - median[leaf]
        clipped = np.sign(deviation) * np.minimum(np.abs(deviation), self.delta)
        total = np.bincount(leaf, weights=w, minlength=n_nodes)
        correction = np.bincount(leaf, weights=w * clipped, minlength=n_nodes)
        with np.errstate(invalid="ignore", divide="ignore"):
            return median + correction / total


class _BinaryLogLoss:
    """Log-loss of one logit."""

    n_trees_per_round = 1
    refits_leaves = False

    def init_raw(self, y, w):
        p = np.clip(np.average(y, weights=w), 1e-12, 1 - 1e-12)
        return np.array([np.log(p / (1 - p))])

    def gradients(self, y, raw, w):
        p = expit(raw[:, 0])
        return (p - y)[:, None], np.maximum(p * (1 - p), _MIN_HESSIAN)[:, None]

    def loss(self, y, raw, w):
        z = raw[:, 0]
        # log(1 + e^z) - y z, computed without overflow.
        return np.average(np.logaddexp(0, z) - y * z, weights=w)


class _MultinomialLogLoss:
    """Log-loss of a softmax over one logit per class (one tree per class and round)."""

    refits_leaves = False

    def __init__(self, n_classes):
        self.n_trees_per_round = n_classes

    def init_raw(self, y, w):
        prior = np.bincount(y, weights=w, minlength=self.n_trees_per_round) / w.sum()
        return np.log(np.clip(prior, 1e-12, None))

    def gradients(self, y, raw, w):
        p = softmax(raw, axis=1)
        onehot = np.zeros_like(p)
        onehot[np.arange(len(y)), y] = 1.0
        return p - onehot, np.maximum(p * (1 - p), _MIN_HESSIAN)

    def loss(self, y, raw, w):
        return np.average(logsumexp(raw, axis=1) - raw[np.arange(len(y)), y], weights=w)


class _BaseDPDTBoosting(SaveMixin, BaseEstimator):
    """The boosting loop shared by the classifier and the regressor."""

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "candidates": [Interval(Integral, 1, None, closed="left"), tuple, list],
        "splitter": [StrOptions(SPLITTERS - {"lookahead"}), tuple, list],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_estimators=100, learning_rate=0.1, max_depth=3, candidates=(3, 3, 3),
                 splitter="cart", reg_lambda=1.0, gamma=0.0, subsample=1.0, min_samples_leaf=1,
                 max_bins=255, validation_fraction=0.1, n_iter_no_change=None, tol=1e-7,
                 n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.candidates = candidates
        self.splitter = splitter
        self.reg_lambda = reg_lambda
        self.gamma = gamma
        self.subsample = subsample
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _boost(self, X, y, sample_weight, loss, stratify):
        rng = check_random_state(self.random_state)
        weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if not np.all(np.isfinite(weight)) or weight.sum() <= 0:
            raise ValueError("sample_weight must be finite and sum to a positive value")
        # A sample of zero weight is a removed sample: it must not even shape the thresholds.
        kept = weight > 0
        if not kept.all():
            X, y, weight = np.ascontiguousarray(X[kept]), y[kept], weight[kept]
            stratify = None if stratify is None else stratify[kept]
        early_stopping = self.n_iter_no_change is not None
        if early_stopping:
            train, val = train_test_split(np.arange(X.shape[0]), test_size=self.validation_fraction,
                                          random_state=rng, stratify=stratify)
            X_val, y_val, w_val = X[val], y[val], weight[val]
            X, y, weight = np.ascontiguousarray(X[train]), y[train], weight[train]
        depth = search_depth(self.max_depth, X.shape[0])
        splitters = resolve_splitters(self.splitter, depth)
        if "lookahead" in splitters:
            # Its bound needs a loss that only grows with the samples; a Newton leaf's does not.
            raise ValueError("splitter='lookahead' is not available for boosting: the Newton "
                             "objective's leaf loss can fall as samples are added")
        options = dict(
            max_depth=depth,
            candidates=resolve_candidates(self.candidates, depth),
            splitters=splitters, complexity="n_splits",
            min_samples_split=2, min_samples_leaf=min(self.min_samples_leaf, X.shape[0] + 1),
            min_weight_leaf=0.0,
            min_impurity_decrease=0.0, max_features=0, random_state=0, max_states=2**62)
        # One tree per class and round: the classes' trees are independent, so threads take them
        # whole; otherwise the threads share each tree's search.
        threads = max(1, effective_n_jobs(self.n_jobs))
        per_class = threads > 1 and loss.n_trees_per_round > 1
        options["n_threads"] = 1 if per_class else threads
        pool = ThreadPoolExecutor(threads) if per_class else None
        # Binned (or presorted) once, for every tree.
        if self.max_bins is None:
            self.n_bins_ = None
            prepared = call_core("prepare", X)
        else:
            codes, self.n_bins_, upper = bin_features(X, int(self.max_bins), rng)
            prepared = call_core("prepare", X, codes=codes, n_bins=self.n_bins_, upper=upper)

        self._loss = loss
        self.init_raw_ = loss.init_raw(y, weight)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        if early_stopping:
            raw_val = np.tile(self.init_raw_, (X_val.shape[0], 1))
            best_val, rounds_without_gain = np.inf, 0
            self.validation_score_ = []
        self.estimators_ = []
        self.train_score_ = []
        try:
            for _ in range(self.n_estimators):
                round_weight = weight
                if self.subsample < 1.0:
                    round_weight = weight * (rng.uniform(size=weight.shape[0]) < self.subsample)
                gradient, hessian = loss.gradients(y, raw, weight)

                def fit_tree(k, gradient=gradient, hessian=hessian, round_weight=round_weight):
                    result = call_core(
                        "fit_newton", prepared, np.ascontiguousarray(gradient[:, k] * round_weight),
                        np.ascontiguousarray(hessian[:, k] * round_weight), round_weight,
                        params=options, reg_lambda=float(self.reg_lambda), gamma=float(self.gamma))
                    # The tree optimal at alpha = 0: gamma is the boosting objective's own penalty.
                    return Tree.from_means(result["front"][0]["tree"], X.shape[1])

                classes = range(loss.n_trees_per_round)
                trees = list(pool.map(fit_tree, classes) if pool else map(fit_tree, classes))
                for k, tree in enumerate(trees):
                    if loss.refits_leaves:
                        self._refit_leaves(tree, loss, X, y - raw[:, k], round_weight)
                    raw[:, k] += self.learning_rate * tree.value[tree.apply(X), 0, 0]
                self.estimators_.append(trees)
                self.train_score_.append(loss.loss(y, raw, weight))
                if early_stopping:
                    raw_val += self.learning_rate * self._tree_outputs(trees, X_val)
                    score = loss.loss(y_val, raw_val, w_val)
                    self.validation_score_.append(score)
                    if score < best_val - self.tol:
                        best_val, rounds_without_gain = score, 0
                    else:
                        rounds_without_gain += 1
                        if rounds_without_gain >= self.n_iter_no_change:
                            break
        finally:
            if pool:
                pool.shutdown()
        self.n_estimators_ = len(self.estimators_)
        self.train_score_ = np.asarray(self.train_score_)
        if early_stopping:
            self.validation_score_ = np.asarray(self.validation_score_)

    @staticmethod
    def _refit_leaves(tree, loss, X, residual, weight):
        """Give each leaf the loss's own estimate from its samples (Friedman's line search).

        The tree's shape comes from the first-order objective; its leaf values are then the
        minimisers of the true loss over the leaf's in-bag residuals (0 if it has none).
        """
        values = loss.leaf_values(residual, weight, tree.apply(X), tree.node_count)
        leaves = tree.is_leaf
        tree.value[leaves, 0, 0] = np.nan_to_num(values[leaves], nan=0.0)

    @staticmethod
    def _tree_outputs(trees, X):
        return np.column_stack([tree.value[tree.apply(X), 0, 0] for tree in trees])

    def _staged_raw(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        for trees in self.estimators_:
            raw += self.learning_rate * self._tree_outputs(trees, X)
            yield raw.copy()

    def _raw(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        for trees in self.estimators_:
            raw += self.learning_rate * self._tree_outputs(trees, X)
        return raw


_BOOSTING_PARAMETERS = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds.
    learning_rate : float, default=0.1
        Shrinkage of each tree's contribution.
    max_depth : int, default=3
        Depth limit of each tree.
    candidates : int or tuple of int, default=(3, 3, 3)
        Candidate splits per depth of the DPDT search (see :class:`DPDTreeClassifier`).
    splitter : {"cart", "exhaustive", "quantile"} or sequence of them, default="cart"
        The split generator, or one per depth; ``"cart"`` grows a CART on the Newton gain.
    reg_lambda : float, default=1.0
        L2 penalty on leaf values (the lambda of -G / (H + lambda)).
    gamma : float, default=0.0
        Penalty per leaf added to the objective each tree minimises.
    subsample : float, default=1.0
        Fraction of the samples drawn for each round. The others get weight 0 for that round
        (the features are prepared once for every round): they add nothing to the objective but
        still count for ``min_samples_leaf`` and can place a threshold.
    min_samples_leaf : int, default=1
        Minimum number of samples in each leaf.
    max_bins : int or None, default=255
        Each feature is cut once into at most this many bins (2 to 65535) of training values,
        at quantiles, and every tree searches histograms, as LightGBM and scikit-learn's
        HistGradientBoosting do; thresholds are training values, so prediction needs no bins.
        None keeps the exact thresholds of presorted features (slower).
    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` for this many rounds;
        None disables early stopping.
    tol : float, default=1e-7
        Improvement of the validation loss that counts for early stopping.
    n_jobs : int, default=None
        Threads of each tree's search; the model does not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the validation split and the subsampling.
"""


class DPDTGradientBoostingRegressor(RegressorMixin, _BaseDPDTBoosting):
    __doc__ = """Gradient boosting of DPDT regression trees.

    Each round fits the tree of depth at most ``max_depth`` minimising XGBoost's second-order
    objective, sum over leaves of ``-G^2 / (2 (H + reg_lambda)) + gamma``, exactly over the
    candidate splits of the DPDT search, rather than a greedy approximation of it. The features
    are binned (or presorted) once and reused by every tree.

    For ``loss="absolute_error"`` and ``loss="huber"`` the trees are grown on the first-order
    objective (hessian 1), and each leaf's value is then re-estimated from the leaf's in-bag
    samples, as scikit-learn's GradientBoostingRegressor does: the weighted median residual
    (absolute error), or that median plus the weighted mean of the deviations from it clipped
    to the Huber delta (Friedman, 2001). ``reg_lambda`` and ``gamma`` then shape the trees
    only. The starting prediction is the weighted median of y.
""" + _BOOSTING_PARAMETERS.replace("""    ----------
""", """    ----------
    loss : {"squared_error", "absolute_error", "huber"}, default="squared_error"
        The loss minimised; ``train_score_``, ``validation_score_`` and early stopping use it.
    huber_quantile : float, default=0.9
        For ``loss="huber"``: each round, the Huber delta (where the loss turns from quadratic
        to linear) is this weighted quantile of the absolute training residuals (the ``alpha``
        of scikit-learn's GradientBoostingRegressor).
""", 1) + """
    Attributes
    ----------
    estimators_ : list of list of Tree
        The trees of each round.
    n_estimators_ : int
        Rounds fitted (fewer than ``n_estimators`` after early stopping).
    train_score_ : ndarray of shape (n_estimators_,)
        Training loss after each round: mean squared error, mean absolute error, or mean Huber
        loss at that round's delta.
    validation_score_ : ndarray of shape (n_estimators_,)
        Validation loss after each round (with early stopping only).
    init_raw_ : ndarray of shape (1,)
        The starting prediction: the weighted mean of y (squared error) or its weighted median.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTGradientBoostingRegressor
    >>> X = np.linspace(0, 6, 200).reshape(-1, 1)
    >>> reg = DPDTGradientBoostingRegressor(n_estimators=50).fit(X, np.sin(X[:, 0]))
    >>> bool(reg.score(X, np.sin(X[:, 0])) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        **_BaseDPDTBoosting._parameter_constraints,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber"})],
        "huber_quantile": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, *, loss="squared_error", huber_quantile=0.9, n_estimators=100,
                 learning_rate=0.1, max_depth=3, candidates=(3, 3, 3), splitter="cart",
                 reg_lambda=1.0, gamma=0.0, subsample=1.0, min_samples_leaf=1, max_bins=255,
                 validation_fraction=0.1, n_iter_no_change=None, tol=1e-7, n_jobs=None,
                 random_state=None):
        super().__init__(
            n_estimators=n_estimators, learning_rate=learning_rate, max_depth=max_depth,
            candidates=candidates, splitter=splitter, reg_lambda=reg_lambda, gamma=gamma,
            subsample=subsample, min_samples_leaf=min_samples_leaf, max_bins=max_bins,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change, tol=tol,
            n_jobs=n_jobs, random_state=random_state)
        self.loss = loss
        self.huber_quantile = huber_quantile

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted trees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : DPDTGradientBoostingRegressor
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", y_numeric=True)
        loss = {"squared_error": _SquaredError, "absolute_error": _AbsoluteError,
                "huber": lambda: _Huber(float(self.huber_quantile))}[self.loss]()
        self._boost(X, y.astype(np.float64), sample_weight, loss, stratify=None)
        return self

    def predict(self, X):
        """Return the boosted prediction of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted values.
        """
        return self._raw(X)[:, 0]

    def staged_predict(self, X):
        """Yield the prediction after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Yields
        ------
        y : ndarray of shape (n_samples,)
            Predicted values after 1, 2, ... rounds.
        """
        for raw in self._staged_raw(X):
            yield raw[:, 0]


class DPDTGradientBoostingClassifier(ClassifierMixin, _BaseDPDTBoosting):
    __doc__ = """Gradient boosting of DPDT trees for classification (log-loss).

    Binary problems boost one logit; with K > 2 classes each round fits one tree per class on the
    softmax log-loss. Each tree is optimal for XGBoost's second-order objective over the candidate
    splits of the DPDT search (see :class:`DPDTGradientBoostingRegressor`).
""" + _BOOSTING_PARAMETERS + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    estimators_ : list of list of Tree
        The trees of each round (one per class for K > 2).
    n_estimators_ : int
        Rounds fitted (fewer than ``n_estimators`` after early stopping).
    train_score_ : ndarray of shape (n_estimators_,)
        Training log-loss after each round.
    validation_score_ : ndarray of shape (n_estimators_,)
        Validation log-loss after each round (with early stopping only).
    init_raw_ : ndarray
        The starting logits (class priors).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from dpdt import DPDTGradientBoostingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = DPDTGradientBoostingClassifier(n_estimators=20).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted trees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : DPDTGradientBoostingClassifier
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes == 1:
            raise ValueError("y has 1 class; boosting needs at least two classes")
        loss = _BinaryLogLoss() if n_classes == 2 else _MultinomialLogLoss(n_classes)
        target = codes.astype(np.float64) if n_classes == 2 else codes
        stratify = codes if self.n_iter_no_change is not None else None
        self._boost(X, target, sample_weight, loss, stratify=stratify)
        return self

    def decision_function(self, X):
        """Return the raw logits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        raw : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The logit of the positive class (binary) or one logit per class.
        """
        raw = self._raw(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def _proba(self, raw):
        if raw.shape[1] == 1:
            p = expit(raw[:, 0])
            return np.column_stack([1 - p, p])
        return softmax(raw, axis=1)

    def predict_proba(self, X):
        """Return the class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities, columns ordered as :attr:`classes_`.
        """
        return self._proba(self._raw(X))

    def predict(self, X):
        """Return the most probable class of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X):
        """Yield the class probabilities after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities after 1, 2, ... rounds.
        """
        for raw in self._staged_raw(X):
            yield self._proba(raw)

    def staged_predict(self, X):
        """Yield the predicted labels after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Yields
        ------
        y : ndarray of shape (n_samples,)
            Predicted labels after 1, 2, ... rounds.
        """
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
