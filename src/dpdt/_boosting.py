"""Gradient boosting with DPDT weak learners, optimal for the second-order boosting objective."""

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._binning import bin_features
from ._classes import LogProbaMixin
from ._io import SaveMixin, register_estimator
from ._losses import AbsoluteError, BinaryLogLoss, Huber, MultinomialLogLoss, SquaredError
from ._objectives import NEWTON
from ._params import BOOSTING, BOOSTING_REGRESSOR, declare
from ._progress import reporter
from ._runner import call_core, map_threads, n_threads
from ._search_policy import resolve_candidates, resolve_splitters, search_depth
from ._tree import Tree
from ._validation import binary_exponent, check_monotonic_cst, training_weight, validate_numeric


def _hold_monotone(tree, values, monotonic_cst):
    """Return ``values`` (one per node of ``tree``) clipped so that the tree is monotone.

    scikit-learn's rule, top-down: a node's value is clipped to the bounds it inherits; at a
    split on a constrained feature the children's clipped values have a midpoint, which bounds
    the subtree on the constraint's lower side from above and the other from below; a split on
    a free feature passes its bounds on. Two leaves whose boxes a move along the constraints
    joins part at a split on a constrained feature (a free feature sends both points the same
    way), whose midpoint then lies between their values: the tree is monotone whatever the
    values were.
    """
    values = np.asarray(values, dtype=np.float64).copy()
    low = np.full(tree.node_count, -np.inf)
    high = np.full(tree.node_count, np.inf)
    # Preorder numbering: a parent comes before its children.
    for node in range(tree.node_count):
        values[node] = np.clip(values[node], low[node], high[node])
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.is_leaf[node]:
            continue
        low[[left, right]], high[[left, right]] = low[node], high[node]
        sign = monotonic_cst[tree.feature[node]]
        if sign:
            middle = (np.clip(values[left], low[node], high[node])
                      + np.clip(values[right], low[node], high[node])) / 2
            below, above = (left, right) if sign > 0 else (right, left)
            high[below], low[above] = middle, middle
    return values


class _BaseDPDTBoosting(SaveMixin, BaseEstimator):
    """The boosting loop shared by the classifier and the regressor."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True   # densified by validate_numeric
        return tags

    def _boost(self, X, y, sample_weight, loss, stratify, monotonic_cst):
        """Fit the rounds; ``monotonic_cst`` is validated, as the core takes it."""
        rng = check_random_state(self.random_state)
        weight, kept, weight_scale = training_weight(sample_weight, X)
        # A regression's y is divided by the power of two that brings it near 1 (exact, see
        # _validation): its sums (the mean, the losses) cannot overflow, its gradients are
        # ordinary numbers, and the model and scores are scaled back at the end.
        y_exponent = binary_exponent(y) if loss.score_power else 0
        y = np.ldexp(y, -y_exponent) if y_exponent else y
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
            min_impurity_decrease=0.0, max_features=0, random_state=0, max_states=2**62,
            monotonic_cst=monotonic_cst)
        # One tree per class and round: the classes' trees are independent, so threads take them
        # whole; otherwise the threads share each tree's search.
        threads = n_threads(self.n_jobs)
        per_class = threads > 1 and loss.n_trees_per_round > 1
        options["n_threads"] = 1 if per_class else threads
        # Binned (or presorted) once, for every tree.
        if self.max_bins is None:
            self.n_bins_ = None
            prepared = call_core("prepare", X)
        else:
            codes, self.n_bins_, upper = bin_features(X, int(self.max_bins), rng,
                                                      n_threads=n_threads(self.n_jobs))
            prepared = call_core("prepare", X, codes=codes, n_bins=self.n_bins_, upper=upper)

        self._loss = loss
        self.init_raw_ = loss.init_raw(y, weight)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        # tol is in y's unit (the scores' power of it): in the scaled unit, the same comparison.
        with np.errstate(over="ignore", under="ignore"):
            tol = float(np.ldexp(self.tol, -(loss.score_power or 0) * y_exponent))
        if early_stopping:
            raw_val = np.tile(self.init_raw_, (X_val.shape[0], 1))
            best_val, rounds_without_gain = np.inf, 0
            self.validation_score_ = []
        self.estimators_ = []
        self.train_score_ = []
        progress = reporter(self.verbose, type(self).__name__, "rounds", total=self.n_estimators)
        try:
            for _ in range(self.n_estimators):
                round_weight = weight
                if self.subsample < 1.0:
                    round_weight = weight * (rng.uniform(size=weight.shape[0]) < self.subsample)
                gradient, hessian = loss.gradients(y, raw, weight)

                def fit_tree(k, gradient=gradient, hessian=hessian, round_weight=round_weight):
                    return self._newton_tree(prepared, gradient[:, k] * round_weight,
                                             hessian[:, k] * round_weight, round_weight,
                                             weight_scale, options, X.shape[1])

                trees = map_threads(fit_tree, range(loss.n_trees_per_round),
                                    threads if per_class else 1)
                for k, tree in enumerate(trees):
                    if loss.refits_leaves:
                        self._refit_leaves(tree, loss, X, y - raw[:, k], round_weight,
                                           monotonic_cst)
                    raw[:, k] += self.learning_rate * tree.value[tree.apply(X), 0, 0]
                self.estimators_.append(trees)
                self.train_score_.append(loss.loss(y, raw, weight))
                if early_stopping:
                    raw_val += self.learning_rate * self._tree_outputs(trees, X_val)
                    score = loss.loss(y_val, raw_val, w_val)
                    self.validation_score_.append(score)
                    if score < best_val - tol:
                        best_val, rounds_without_gain = score, 0
                    else:
                        rounds_without_gain += 1
                        if rounds_without_gain >= self.n_iter_no_change:
                            break
                progress.update(len(self.estimators_), notes=self._progress_notes(y_exponent))
            stopped = ["stopped early"] if len(self.estimators_) < self.n_estimators else []
            progress.finish(len(self.estimators_),
                            notes=self._progress_notes(y_exponent) + stopped)
        except BaseException:
            progress.close()
            raise
        self.n_estimators_ = len(self.estimators_)
        self.train_score_ = np.asarray(self.train_score_)
        if early_stopping:
            self.validation_score_ = np.asarray(self.validation_score_)
        if y_exponent:
            self._unscale(loss, y_exponent)
        # A huge learning_rate can push the sum of the trees past float64 (NaN predictions).
        # The training rows' scores are at hand, in y's unit once scaled back (exactly).
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(np.ldexp(raw, y_exponent)).all()
        if not finite:
            raise ValueError(f"the model's raw predictions on the training data overflow float64 "
                             f"(learning_rate={self.learning_rate:.3g}): lower learning_rate")

    def _progress_notes(self, y_exponent):
        """Return the notes of a progress report: the last round's losses, in y's unit."""
        power = (self._loss.score_power or 0) * y_exponent
        with np.errstate(over="ignore", under="ignore"):
            notes = [f"train loss {np.ldexp(self.train_score_[-1], power):.6g}"]
            if self.n_iter_no_change is not None:
                notes.append(f"validation loss {np.ldexp(self.validation_score_[-1], power):.6g}")
        return notes

    def _unscale(self, loss, exponent):
        """Bring a model fitted on y / 2**exponent back to y's unit (exact).

        The leaves and the start are in y's unit; the Newton statistics of the split nodes
        (their values and every node's impurity) in that of the gradients, y's to the power
        ``loss.gradient_power``; the scores in y's to the power ``loss.score_power``. Scores
        beyond float64's range become inf or 0: they are reported, and compared by early
        stopping in the scaled unit.
        """
        gradient = loss.gradient_power * exponent
        with np.errstate(over="ignore", under="ignore"):
            self.init_raw_ = np.ldexp(self.init_raw_, exponent)
            for tree in (tree for trees in self.estimators_ for tree in trees):
                leaf = tree.is_leaf
                tree.value[leaf] = np.ldexp(tree.value[leaf],
                                            exponent if loss.refits_leaves else gradient)
                tree.value[~leaf] = np.ldexp(tree.value[~leaf], gradient)
                tree.impurity = np.ldexp(tree.impurity, 2 * gradient)
            self.train_score_ = np.ldexp(self.train_score_, loss.score_power * exponent)
            if self.n_iter_no_change is not None:
                self.validation_score_ = np.ldexp(self.validation_score_,
                                                  loss.score_power * exponent)
        loss.unscale(exponent)

    @property
    def feature_importances_(self):
        """Normalised total gain of each feature's splits over all the trees.

        A split's gain is the decrease of the boosting objective it brings, its node's
        ``-G^2 / (2 (H + reg_lambda)) + gamma`` less its children's (``gamma`` paid once for the
        split); for ``"absolute_error"`` and ``"huber"`` that of the first-order objective the
        trees were grown on. As in scikit-learn's gradient boosting, each tree's gains are summed
        per feature, averaged over the trees, and normalised to sum to 1 (all zeros when no tree
        splits). A non-greedy tree may hold a split of negative gain that its children's splits
        repay, so a feature's share can be negative. Like every impurity-based importance it
        favours features of many values: :func:`sklearn.inspection.permutation_importance` is
        the alternative.

        Returns
        -------
        feature_importances_ : ndarray of shape (n_features_in_,)
            The share of each feature in the total gain.
        """
        check_is_fitted(self)
        trees = [tree for trees in self.estimators_ for tree in trees]
        # Brought near 1 by one power of two for all the trees (exact: the shares do not
        # change), as a sum of gains can overflow where no gain does.
        exponent = max(binary_exponent(tree.impurity) for tree in trees)
        total = np.zeros(self.n_features_in_)
        for tree in trees:
            impurity = np.ldexp(tree.impurity, -exponent)
            split = np.flatnonzero(~tree.is_leaf)
            gain = (impurity[split] - impurity[tree.children_left[split]]
                    - impurity[tree.children_right[split]])
            np.add.at(total, tree.feature[split], gain)
        mean = total / len(trees)
        norm = mean.sum()
        return mean / norm if norm != 0 else mean

    def _check_fitted_state(self, decoder, where):
        rounds, init_raw = getattr(self, "estimators_", None), getattr(self, "init_raw_", None)
        decoder.expect(isinstance(rounds, list)
                       and all(isinstance(r, list) and all(isinstance(t, Tree) for t in r)
                               for r in rounds), f"{where}: bad estimators_")
        decoder.expect(isinstance(init_raw, np.ndarray) and init_raw.ndim == 1
                       and init_raw.dtype.kind == "f" and len(init_raw) >= 1
                       and all(len(r) == len(init_raw) for r in rounds),
                       f"{where}: estimators_ and init_raw_ do not match")
        decoder.expect(np.all(np.isfinite(init_raw)), f"{where}: init_raw_ is not finite")
        # The largest raw score any input can reach: what fit refuses to overflow on its rows.
        with np.errstate(over="ignore", invalid="ignore"):
            reach = np.abs(init_raw) + self.learning_rate * np.sum(
                [[np.abs(t.value[t.is_leaf]).max() for t in r] for r in rounds] or [[0.0]],
                axis=0)
        decoder.expect(np.all(np.isfinite(reach)),
                       f"{where}: the trees' leaf values sum beyond float64 (raw scores of inf)")
        # One score per round (validation's: per round of early stopping), none NaN.
        scores = [vars(self).get(name) for name in ("train_score_", "validation_score_")]
        decoder.expect(vars(self).get("n_estimators_") == len(rounds)
                       and isinstance(scores[0], np.ndarray)
                       and all(s is None or (isinstance(s, np.ndarray) and s.dtype.kind == "f"
                                             and s.shape == (len(rounds),)
                                             and not np.isnan(s).any()) for s in scores),
                       f"{where}: n_estimators_, train_score_ or validation_score_ does not "
                       "match estimators_ or holds NaN")
        for tree in (tree for r in rounds for tree in r):
            decoder.expect(tree.n_features == self.n_features_in_,
                           f"{where}: a tree has {tree.n_features} features, the estimator "
                           f"{self.n_features_in_}")
            decoder.expect(tree.value.shape[1:] == (1, 1), f"{where}: a tree's values are not "
                           "one output each")
        # One raw score per round for a regressor or two classes, else one per class.
        classes = getattr(self, "classes_", None)
        n_classes = (1 if classes is None
                     else len(classes) if isinstance(classes, np.ndarray) and classes.ndim == 1
                     else 0)
        decoder.expect(n_classes != 0 and (classes is None or n_classes >= 2)
                       and len(init_raw) == (1 if n_classes <= 2 else n_classes),
                       f"{where}: classes_ does not match init_raw_")

    def _newton_tree(self, prepared, g, h, w, weight_scale, options, n_features):
        """Fit the tree optimal for the Newton objective of per-sample ``g``, ``h`` and ``w``.

        They come with the weights normalised (``training_weight``), divided by
        ``weight_scale``; the objective scales them, reg_lambda and gamma for the core, and
        its tree back (``_objectives.NewtonObjective.to_core``).
        """
        scale, arrays, arguments = NEWTON.to_core(g, h, w, weight_scale, self.reg_lambda,
                                                  self.gamma)
        result = call_core("fit", NEWTON.name, prepared, *arrays, params=options, **arguments)
        # The tree optimal at alpha = 0: gamma is the boosting objective's own penalty.
        tree = NEWTON.make_tree(result["front"][0]["tree"], n_features)
        scale.unscale_tree(tree)
        return tree

    @staticmethod
    def _refit_leaves(tree, loss, X, residual, weight, monotonic_cst):
        """Give each leaf the loss's own estimate from its samples (Friedman's line search).

        The tree's shape comes from the first-order objective; its leaf values are then the
        minimisers of the true loss over the leaf's in-bag residuals (0 if it has none). Under
        ``monotonic_cst`` they are then held to the bounds of scikit-learn's rule
        (:func:`_hold_monotone`), which the core's own leaf values obey.
        """
        leaves = tree.is_leaf
        if not monotonic_cst:
            values = loss.leaf_values(residual, weight, tree.apply(X), tree.node_count)
            tree.value[leaves, 0, 0] = np.nan_to_num(values[leaves], nan=0.0)
            return
        # Every node's estimate, from the samples reaching it: a constrained split's bound is
        # the midpoint of its children's.
        values = np.zeros(tree.node_count)
        path = tree.decision_path(X).tocoo()
        for depth in range(tree.max_depth + 1):
            at = tree.node_depth[path.col] == depth
            rows, nodes = path.row[at], path.col[at]
            found = loss.leaf_values(residual[rows], weight[rows], nodes, tree.node_count)
            reached = np.unique(nodes)
            values[reached] = found[reached]
        tree.value[leaves, 0, 0] = _hold_monotone(tree, np.nan_to_num(values, nan=0.0),
                                                  monotonic_cst)[leaves]

    @staticmethod
    def _tree_outputs(trees, X):
        return np.column_stack([tree.value[tree.apply(X), 0, 0] for tree in trees])

    def _staged_raw(self, X):
        check_is_fitted(self)
        X = validate_numeric(self, X, reset=False)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        for trees in self.estimators_:
            raw += self.learning_rate * self._tree_outputs(trees, X)
            yield raw.copy()

    def _raw(self, X):
        check_is_fitted(self)
        X = validate_numeric(self, X, reset=False)
        raw = np.tile(self.init_raw_, (X.shape[0], 1))
        for trees in self.estimators_:
            raw += self.learning_rate * self._tree_outputs(trees, X)
        return raw


@register_estimator
@declare(BOOSTING_REGRESSOR)
class DPDTGradientBoostingRegressor(RegressorMixin, _BaseDPDTBoosting):
    """Gradient boosting of DPDT regression trees.

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
    feature_importances_ : ndarray of shape (n_features_in_,)
        The share of each feature in the total gain of the trees' splits (see the property).

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTGradientBoostingRegressor
    >>> X = np.linspace(0, 6, 200).reshape(-1, 1)
    >>> reg = DPDTGradientBoostingRegressor(n_estimators=50).fit(X, np.sin(X[:, 0]))
    >>> bool(reg.score(X, np.sin(X[:, 0])) > 0.95)
    True
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted trees.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value). A sparse matrix is densified,
            with the memory of a dense float64 array.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : DPDTGradientBoostingRegressor
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True, y_numeric=True)
        loss = {"squared_error": SquaredError, "absolute_error": AbsoluteError,
                "huber": lambda: Huber(float(self.huber_quantile))}[self.loss]()
        monotonic_cst = check_monotonic_cst(self, self.monotonic_cst)
        self._boost(X, y.astype(np.float64), sample_weight, loss, stratify=None,
                    monotonic_cst=monotonic_cst)
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


@register_estimator
@declare(BOOSTING)
class DPDTGradientBoostingClassifier(LogProbaMixin, ClassifierMixin, _BaseDPDTBoosting):
    """Gradient boosting of DPDT trees for classification (log-loss).

    Binary problems boost one logit; with K > 2 classes each round fits one tree per class on the
    softmax log-loss. Each tree is optimal for XGBoost's second-order objective over the candidate
    splits of the DPDT search (see :class:`DPDTGradientBoostingRegressor`).

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
    feature_importances_ : ndarray of shape (n_features_in_,)
        The share of each feature in the total gain of the trees' splits (see the property).

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
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value). A sparse matrix is densified,
            with the memory of a dense float64 array.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : DPDTGradientBoostingClassifier
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes == 1:
            raise ValueError("y has 1 class; boosting needs at least two classes")
        monotonic_cst = check_monotonic_cst(self, self.monotonic_cst, n_classes=n_classes)
        loss = BinaryLogLoss() if n_classes == 2 else MultinomialLogLoss(n_classes)
        target = codes.astype(np.float64) if n_classes == 2 else codes
        stratify = codes if self.n_iter_no_change is not None else None
        self._boost(X, target, sample_weight, loss, stratify=stratify,
                    monotonic_cst=monotonic_cst)
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
