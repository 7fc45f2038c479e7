"""Choosing the tree on the Pareto front by cross-validation (the DPDTree*CV estimators)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ._classes import DPDTreeClassifier, DPDTreeRegressor, LogProbaMixin
from ._explorer import ExplorerReprMixin
from ._front import TIE_TOL, alpha_inside, budget_mask
from ._io import SaveMixin, register_estimator
from ._params import CLASSIFIER_CV, MAX_DEPTH, POLICY_CV, REGRESSOR_CV, declare, passed_on
from ._policy import DPDTreePolicy, validate_policy_data
from ._progress import reporter
from ._runner import map_threads, n_threads, shared_stop
from ._validation import binary_exponent, check_monotonic_cst, validate_numeric

LARGEST_DEPTH = np.iinfo(np.int64).max

CURVE_DTYPE = np.dtype([
    ("max_depth", np.int64),
    ("alpha", np.float64),
    ("complexity", np.float64),
    ("mean_score", np.float64),
    ("std_score", np.float64),
])

def representative_alphas(front, fold_fronts):
    """Return, for each tree of the refit's front, the alpha at which the folds score it.

    Breiman et al.'s choice (*Classification and Regression Trees*, 1984, ch. 3): the
    geometric mean of the ends of the tree's alpha range, 0 for the first tree, and for the single
    leaf closing the front an alpha past every fold's last breakpoint, so that the folds score
    single leaves too. A tree that only alpha = 0's tie-break selects takes 0; the next one, whose
    range starts at 0, the middle of its range. Each row of the curve is then one tree of the
    refit, scored by fold trees of the same regularisation: a row's complexity is that of the
    tree its score was measured for, which is what a budget on complexity needs.
    """
    last = max([front["alpha_min"][-1]] + [fold["alpha_min"][-1] for fold in fold_fronts])
    alphas = []
    for k, (lo, hi) in enumerate(zip(front["alpha_min"], front["alpha_max"], strict=True)):
        if np.isinf(hi):
            alphas.append(alpha_inside(last, np.inf))
        elif lo == hi or (lo == 0 and k > 0):
            alphas.append(alpha_inside(lo, hi))
        else:
            alphas.append(geometric_mean(lo, hi))
    return np.array(alphas)


def geometric_mean(a, b):
    """Return sqrt(a * b) for positive a and b, bitwise, without overflowing where a * b would.

    The product is taken of a and b divided by powers of two whose sum is even, so that the
    square root of their product is exact to scale back (alpha is in y's unit squared).
    """
    ea, eb = binary_exponent(a), binary_exponent(b)
    ea -= (ea + eb) % 2
    return float(np.ldexp(np.sqrt(np.ldexp(a, -ea) * np.ldexp(b, -eb)), (ea + eb) // 2))


def standard_error(std_score, n_splits):
    """Return the standard error of a mean over ``n_splits`` folds whose scores have this std.

    ``std_score`` is the folds' standard deviation as :attr:`validation_curve_` holds it
    (numpy's, ``ddof=0``); the standard error of their mean is the sample standard deviation
    (``ddof=1``) over ``sqrt(n_splits)``, i.e. ``std_score / sqrt(n_splits - 1)``, the
    ``cvsd`` of R's ``cv.glmnet``. Zero for a single fold, which has no spread to measure.
    """
    if n_splits < 2:
        return 0.0 * std_score
    return std_score / np.sqrt(n_splits - 1)


def select_row(mean_score, std_score, complexity, max_depth, alpha, *, n_splits, selection):
    """Return the index of the chosen candidate of a validation curve.

    Candidates are ordered simplest first: lower ``complexity``, then smaller ``max_depth``,
    then larger ``alpha``. ``"best"`` takes the simplest of those of best mean score;
    ``"1se"`` the simplest whose mean score is at least that one's minus its standard error
    (Breiman et al.'s one-standard-error rule). Scores within a relative 1e-9 count as equal.
    """
    mean_score = np.asarray(mean_score, dtype=np.float64)
    std_score = np.asarray(std_score, dtype=np.float64)
    order = np.lexsort((-np.asarray(alpha, dtype=np.float64), np.asarray(max_depth),
                        np.asarray(complexity, dtype=np.float64)))
    score = mean_score[order]

    def simplest_at_least(floor):
        return order[np.argmax(score >= floor - TIE_TOL * max(1.0, abs(floor)))]

    best = simplest_at_least(score.max())
    if selection == "best":
        return best
    return simplest_at_least(mean_score[best] - standard_error(std_score[best], n_splits))


def _fit_one(estimator, X, y, sample_weight, rows):
    if rows is not None:
        X, y = X[rows], y[rows]
        sample_weight = None if sample_weight is None else sample_weight[rows]
    return estimator.fit(X, y, sample_weight=sample_weight)


def _fold_scores(model, alphas, scorer, X, y, sample_weight):
    """Return the score on (X, y) of the model's tree at each alpha, scoring each tree once."""
    rows = np.array([model._front_index(alpha) for alpha in alphas])
    kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
    scores = np.empty(len(alphas))
    for row in np.unique(rows):
        at_row = rows == row
        model.set_params(alpha=alphas[np.argmax(at_row)])
        try:
            scores[at_row] = scorer(model, X, y, **kwargs)
        except (AttributeError, TypeError, ValueError) as error:
            # A classification scorer on a regressor lacks a method or rejects continuous
            # targets, a metric without weights rejects them: a choice of scoring that cannot
            # work, which the metric's own message does not name.
            weighted = " with sample_weight" if kwargs else ""
            raise ValueError(f"scoring {scorer!r} cannot score {type(model).__name__}{weighted}: "
                             f"{error}") from error
    return scores


class _BaseDPDTreeCV(ExplorerReprMixin, SaveMixin, BaseEstimator):
    """Cross-validated choice of alpha (and max_depth) shared by the DPDT CV estimators."""

    _estimator_class = None
    # The fitted attributes of the names of the data this estimator took (the fits take arrays),
    # given to the refits.
    _taken_names = ("feature_names_in_",)
    # The fitted attributes of the target's labels, which the refits share with this estimator.
    _labels = ("classes_",)

    def _depths(self):
        """Return the depth limits to cross-validate: ``max_depths``, or ``[max_depth]``."""
        depths = [self.max_depth] if self.max_depths is None else list(self.max_depths)
        if not depths or not all(isinstance(d, Integral) and not isinstance(d, bool) and d >= 1
                                 for d in depths):
            raise ValueError("max_depths must be None or a non-empty sequence of ints >= 1, got "
                             f"{self.max_depths!r}")
        # max_depth is unused when max_depths is given; one set apart from its default and
        # outside max_depths asks for a depth the search would silently not try.
        if (self.max_depths is not None and self.max_depth != MAX_DEPTH.default
                and self.max_depth not in depths):
            raise ValueError(f"max_depth={self.max_depth} is not among max_depths="
                             f"{self.max_depths!r}: with max_depths given, max_depth is unused; "
                             "add it to max_depths or leave max_depth at its default")
        # validation_curve_ holds the limits as int64; a larger one binds no more than it does.
        return sorted(set(min(int(d), LARGEST_DEPTH) for d in depths))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.max_bins is not None
        tags.input_tags.sparse = True   # densified by validate_numeric
        return tags

    def _make(self, max_depth, random_state, time_limit=None, monotonic_cst=None):
        # The tree's parameters this estimator declares: a policy's CV takes no max_cost.
        declared = {param.name for param in self._params}
        params = {param.name: getattr(self, param.name)
                  for param in passed_on(self._estimator_class._params)
                  if param.name in declared}
        params["time_limit"] = time_limit
        if "monotonic_cst" in declared:   # a policy tree predicts no value to order
            params["monotonic_cst"] = monotonic_cst or None
        return self._estimator_class(max_depth=max_depth, random_state=random_state, **params)

    def _fit_cv(self, X, y, sample_weight):
        """Fit every fold and the whole data per depth, score the fronts, keep the best tree."""
        depths = self._depths()
        # Checked once, before any fit. A dict by feature name becomes the array that the fits,
        # which take the validated array without names, read.
        monotonic_cst = None
        if hasattr(self, "monotonic_cst"):
            monotonic_cst = check_monotonic_cst(self, self.monotonic_cst,
                                                n_classes=getattr(self, "n_classes_", None),
                                                n_outputs=getattr(self, "n_outputs_", 1))
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                 ensure_non_negative=True)
            # The scores weigh by them divided by a power of two (exact, and the scores ignore
            # the scale): weighted sums of squared errors overflow near 1e300.
            score_weight = np.ldexp(sample_weight, -binary_exponent(sample_weight))
        scorer = check_scoring(self._estimator_class(), scoring=self.scoring)
        # Every fit gets the same seed, so the refit is the plain fit of the same parameters.
        random_state = self.random_state
        if isinstance(random_state, np.random.RandomState):
            random_state = check_random_state(random_state).randint(np.iinfo(np.int32).max)
        folds = list(self._splitter(y, random_state).split(X, y))

        # Per depth, the refit first, then the folds in order: a time limit that ends the fits
        # leaves whole depths' refits with their first folds.
        jobs = [(depth, train) for depth in depths
                for train in [None] + [train for train, _ in folds]]
        threads = n_threads(self.n_jobs)
        progress = reporter(self.verbose, type(self).__name__, "fits", total=len(jobs))

        def fit_job(job):
            k, (depth, train) = job
            # The first depth's refit and first fold always run (the choice needs one scored
            # fold); past the deadline, the others are not started.
            if k >= 2 and stop.remaining <= 0:
                return None
            # Each fit's own limit is the whole one, so the shared deadline is the one that binds.
            model = _fit_one(self._make(depth, random_state, self.time_limit, monotonic_cst),
                             X, y, sample_weight, train)
            progress.update(advance=1, notes=[f"depth {depth}"])
            return model

        # The whole fit shares one deadline (binning, every search, scoring) and one stop: an
        # error or Ctrl-C in any fit stops them all.
        with progress, shared_stop(self.time_limit) as stop:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                models = map_threads(fit_job, enumerate(jobs), threads)
            progress.finish()
        per_depth = len(folds) + 1
        fitted = [models[i * per_depth:(i + 1) * per_depth] for i in range(len(depths))]
        # The folds fitted for the first depth; the depths fitted on as many are scored on them.
        n_used = sum(model is not None for model in fitted[0][1:])
        kept = [i for i, fits in enumerate(fitted)
                if all(model is not None for model in fits[:1 + n_used])]
        self._warn_limits(caught, [depths[i] for i in kept], n_used, len(folds))
        self._refits = {}
        curves = []
        for i in kept:
            depth = depths[i]
            refit = self._refits[depth] = fitted[i][0]
            fold_models = fitted[i][1:1 + n_used]
            # The fits took the validated arrays; the refit is the model users, scores and
            # pictures call with the data this estimator took, names and all.
            for name in self._taken_names:
                if hasattr(self, name):
                    setattr(refit, name, getattr(self, name))
            alphas = representative_alphas(refit.pareto_front_,
                                           [model.pareto_front_ for model in fold_models])
            scores = np.array([
                _fold_scores(model, alphas, scorer, X[test], y[test],
                             None if sample_weight is None else score_weight[test])
                for model, (_, test) in zip(fold_models, folds[:n_used], strict=True)])
            curve = np.empty(len(alphas), dtype=CURVE_DTYPE)
            curve["max_depth"] = depth
            curve["alpha"] = alphas
            curve["complexity"] = [refit.pareto_front_["complexity"][refit._front_index(alpha)]
                                   for alpha in alphas]
            curve["mean_score"] = scores.mean(axis=0)
            curve["std_score"] = scores.std(axis=0)
            curves.append(curve)
        self.validation_curve_ = np.concatenate(curves)
        self.n_splits_ = n_used
        self._choose(np.ones(len(self.validation_curve_), dtype=bool))
        return self

    def _splitter(self, y, random_state):
        """Return the cross-validation splitter of ``cv``: an int's folds are of shuffled rows.

        A table sorted by date or by outcome, common in practice, gives folds in row order that
        are unlike the whole, and validation then favours trees too small (on the wide corpus,
        shuffled folds validated better at every depth; see the docs' benchmarks). The shuffle
        is seeded by ``random_state``, and by 0 when it is None, so that the same data give the
        same folds and tree.
        """
        splitter = check_cv(self.cv, y, classifier=is_classifier(self))
        if isinstance(self.cv, Integral):
            seed = 0 if random_state is None else random_state
            splitter = type(splitter)(n_splits=splitter.n_splits, shuffle=True, random_state=seed)
        return splitter

    def _warn_limits(self, caught, depths, n_used, n_folds):
        """Warn once if limits cut searches short or ``time_limit`` left fits out.

        ``caught`` are the warnings of the fits, the others re-issued; ``depths`` the depth
        limits scored, on ``n_used`` of the ``n_folds`` folds.
        """
        cut = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        for w in caught:
            if w not in cut:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        every_depth = self._depths()
        left_out = depths != every_depth or n_used != n_folds
        if not cut and not left_out:
            return
        # A fit's warning opens with the limit that stopped it ("max_states=1000 reached").
        limits = sorted({str(w.message).split(":")[0] for w in cut})
        head = (f"time_limit={self.time_limit} s expired: the fits left were not started, "
                f"max_depth {depths} of {every_depth} scored on {n_used} of {n_folds} folds; "
                if left_out else "")
        stopped = f" ({'; '.join(limits)})" if limits else ""
        warnings.warn(f"{head}{len(cut)} searches cut short{stopped} returned the best trees "
                      "explored so far", ConvergenceWarning, stacklevel=4)

    def _choose(self, allowed):
        """Select among the allowed curve rows by ``selection``; ties go to the simpler tree."""
        curve = self.validation_curve_[allowed]
        chosen = curve[select_row(curve["mean_score"], curve["std_score"], curve["complexity"],
                                  curve["max_depth"], curve["alpha"], n_splits=self.n_splits_,
                                  selection=self.selection)]
        self.max_depth_ = int(chosen["max_depth"])
        self.alpha_ = float(chosen["alpha"])
        self.best_score_ = float(chosen["mean_score"])
        self.best_estimator_ = self._refits[self.max_depth_].set_params(alpha=self.alpha_)

    def select_tree(self, *, max_leaves=None, max_complexity=None, max_depth=None):
        """Choose the best cross-validated tree within a budget.

        No refit: among the rows of :attr:`validation_curve_` whose refit tree has at most
        ``max_leaves`` leaves, ``complexity`` at most ``max_complexity`` and depth at most
        ``max_depth``, one is chosen by the estimator's ``selection`` rule (``"best"``: best
        ``mean_score``, ties to the simpler tree; ``"1se"``: the simplest within one standard
        error of that one), and ``alpha_``, ``max_depth_``, ``best_score_`` and
        ``best_estimator_`` are updated. Without a budget, it re-chooses over the whole curve,
        e.g. after ``set_params(selection=...)``.

        Parameters
        ----------
        max_leaves : int or None, default=None
            Largest number of leaves allowed (>= 1). None: no limit.
        max_complexity : float or None, default=None
            Largest ``complexity`` allowed (>= 0), e.g. expected tests per training sample.
            None: no limit.
        max_depth : int or None, default=None
            Largest depth of the tree allowed (>= 0). None: no limit.

        Returns
        -------
        self : object
            The estimator, now predicting with the chosen tree.
        """
        check_is_fitted(self)
        curve = self.validation_curve_
        trees = [self._refits[depth].trees_[self._refits[depth]._front_index(alpha)]
                 for depth, alpha in zip(curve["max_depth"], curve["alpha"], strict=True)]
        allowed = budget_mask([tree.n_leaves for tree in trees], curve["complexity"],
                              [tree.max_depth for tree in trees], max_leaves=max_leaves,
                              max_complexity=max_complexity, max_depth=max_depth,
                              caller="select_tree")
        # A single leaf meets every budget and every depth's front ends with one.
        self._choose(allowed)
        return self

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_numeric(self, X, reset=False)

    def _check_fitted_state(self, decoder, where):
        # The refit models were checked when they were decoded.
        best = vars(self).get("best_estimator_")
        decoder.expect(isinstance(best, self._estimator_class),
                       f"{where}: best_estimator_ is not a {self._estimator_class.__name__}")
        labels = " or ".join(["n_features_in_", *self._labels])

        def same_labels(model):
            return all(np.array_equal(getattr(model, name, []), getattr(self, name, []))
                       for name in self._labels)

        decoder.expect(best.n_features_in_ == self.n_features_in_ and same_labels(best),
                       f"{where}: best_estimator_ does not match {labels}")
        classes = getattr(self, "classes_", None)
        if classes is not None:
            decoder.expect(isinstance(classes, np.ndarray) and classes.ndim == 1
                           and self.tree_.value.shape[-1] == len(classes),
                           f"{where}: the trees' class fractions do not match classes_")
        # The refits and the validation curve, as _fit_cv leaves them: a refit per depth of the
        # curve, of the estimator's features and classes, and the chosen row among the curve's.
        # Scores may be NaN (R² of a fold of one sample).
        refits, curve = vars(self).get("_refits"), vars(self).get("validation_curve_")
        decoder.expect(isinstance(refits, dict) and len(refits) >= 1
                       and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1
                               and isinstance(m, self._estimator_class)
                               and m.n_features_in_ == self.n_features_in_
                               and same_labels(m)
                               for d, m in refits.items()),
                       f"{where}: _refits is not one {self._estimator_class.__name__} of the "
                       "estimator's features and classes per depth")
        decoder.expect(isinstance(curve, np.ndarray) and curve.dtype == CURVE_DTYPE
                       and curve.ndim == 1 and len(curve) >= 1
                       and set(curve["max_depth"].tolist()) <= set(refits)
                       and np.all(np.isfinite(curve["alpha"])) and np.all(curve["alpha"] >= 0)
                       and np.all(np.isfinite(curve["complexity"]))
                       and np.all(curve["complexity"] >= 0)
                       and not np.any(curve["std_score"] < 0),
                       f"{where}: validation_curve_ holds values no fit makes")
        n_splits, depth = vars(self).get("n_splits_"), vars(self).get("max_depth_")
        alpha, score = vars(self).get("alpha_"), vars(self).get("best_score_")
        decoder.expect(isinstance(n_splits, int) and n_splits >= 1
                       and isinstance(depth, int) and depth in refits
                       and isinstance(alpha, float) and np.isfinite(alpha) and alpha >= 0
                       and alpha == best.alpha and isinstance(score, float),
                       f"{where}: n_splits_, max_depth_, alpha_ or best_score_ is not what a fit "
                       "chooses")

    @property
    def pareto_front_(self):
        """The Pareto front of the refit model, see :attr:`DPDTreeClassifier.pareto_front_`."""
        check_is_fitted(self)
        return self.best_estimator_.pareto_front_

    @property
    def trees_(self):
        """The trees of :attr:`pareto_front_`."""
        check_is_fitted(self)
        return self.best_estimator_.trees_

    @property
    def tree_(self):
        """The chosen tree: the refit model's tree at ``alpha_``."""
        check_is_fitted(self)
        return self.best_estimator_.tree_

    @property
    def stats_(self):
        """Search statistics of the refit."""
        check_is_fitted(self)
        return self.best_estimator_.stats_

    @property
    def feature_importances_(self):
        """Feature importances of :attr:`tree_`."""
        check_is_fitted(self)
        return self.best_estimator_.feature_importances_

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
        check_is_fitted(self)
        return self.best_estimator_.apply(X)

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
        check_is_fitted(self)
        return self.best_estimator_.decision_path(X)

    def get_depth(self):
        """Return the depth of :attr:`tree_` (0 for a single leaf)."""
        check_is_fitted(self)
        return self.best_estimator_.get_depth()

    def get_n_leaves(self):
        """Return the number of leaves of :attr:`tree_`."""
        check_is_fitted(self)
        return self.best_estimator_.get_n_leaves()


@register_estimator
@declare(CLASSIFIER_CV)
class DPDTreeClassifierCV(LogProbaMixin, ClassifierMixin, _BaseDPDTreeCV):
    """DPDT classifier with ``alpha`` (and ``max_depth``) chosen by cross-validation.

    In the spirit of scikit-learn's ``LassoCV``: the estimator is itself the final model, a
    :class:`DPDTreeClassifier` refit on all the data at the chosen ``alpha_`` and ``max_depth_``.

    The cross-validation runs ``len(max_depths) * (n_folds + 1)`` fits in all: per depth limit, one
    fit per fold gives that fold's whole Pareto front, and one fit on all the data gives the front
    the final tree is taken from. The candidates are the trees of that whole-data front, each
    at the alpha of Breiman et al. (*Classification and Regression Trees*, 1984, ch. 3): the
    geometric mean of the ends of its alpha range (0 for the most complex tree, past every fold's
    last breakpoint for the single leaf). Each fold's tree at that alpha is scored on the
    held-out part, and a candidate is chosen by ``selection`` from the mean and spread of its
    scores; the final model is the whole-data fit with that ``max_depth`` and ``alpha``. No tree
    is ever refit per alpha.

    Candidates are ordered simplest first: lower ``complexity`` of the whole-data tree, then
    smaller depth limit, then larger alpha. ``selection="best"`` takes the simplest of those of
    best mean score. ``selection="1se"`` is the one-standard-error rule of Breiman et al.
    (*Classification and Regression Trees*, 1984, ch. 3): the simplest candidate whose mean
    score is at least the best one's minus its standard error, the folds' sample standard
    deviation over ``sqrt(n_splits_)``. Differences within one standard error are mostly fold
    noise, so the rule keeps the smaller tree the data cannot tell apart from the best one.

    ``time_limit`` is one deadline for the whole fit (binning, searches and scoring): the fits
    run depth by depth, the whole-data fit first, and those not started when it passes are
    left out, with a ``ConvergenceWarning``; the choice is then made among the depths fitted
    on as many folds as the first (always the whole-data fit and one fold of the first depth).

    Attributes
    ----------
    alpha_ : float
        The chosen alpha.
    max_depth_ : int
        The chosen depth limit.
    best_score_ : float
        Mean validation score of the chosen alpha and depth limit (under ``"1se"``, not
        necessarily the highest of :attr:`validation_curve_`).
    n_splits_ : int
        Number of cross-validation folds scored: fewer than ``cv`` makes when ``time_limit``
        ended the fits first.
    validation_curve_ : ndarray, structured
        One row per (depth limit, candidate alpha), fields ``max_depth``, ``alpha``,
        ``complexity`` (of the refit tree at that alpha, comparable with
        :attr:`pareto_front_`), ``mean_score`` and ``std_score`` over the folds.
    best_estimator_ : DPDTreeClassifier
        The model refit on all the data at ``max_depth_``, its ``alpha`` set to ``alpha_``.
    pareto_front_, trees_, tree_, stats_, feature_importances_
        Those of ``best_estimator_``.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.

    Examples
    --------
    >>> from dpdt import DPDTreeClassifierCV
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = DPDTreeClassifierCV(max_depths=[2, 3], cv=3).fit(X, y)
    >>> clf.max_depth_ in (2, 3), clf.best_score_ > 0.9
    (True, True)
    """

    _estimator_class = DPDTreeClassifier

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Cross-validate alpha (and max_depth), then keep the whole-data fit's chosen tree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (numbers). A sparse matrix is densified, with the memory of a
            dense float64 array.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights, used by the fits and by the validation score.

        Returns
        -------
        self : DPDTreeClassifierCV
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        self.n_classes_ = len(self.classes_)
        return self._fit_cv(X, y, sample_weight)

    def predict_proba(self, X):
        """Return the weighted class fractions of each sample's leaf in :attr:`tree_`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities, columns ordered as :attr:`classes_`.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def predict(self, X):
        """Return the predicted class of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            The class of largest weight in each sample's leaf of :attr:`tree_`.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)


@register_estimator
@declare(REGRESSOR_CV)
class DPDTreeRegressorCV(RegressorMixin, _BaseDPDTreeCV):
    """DPDT regressor with ``alpha`` (and ``max_depth``) chosen by cross-validation.

    The estimator is itself the final model, a :class:`DPDTreeRegressor` refit on all the data
    at the chosen ``alpha_`` and ``max_depth_``, found as by :class:`DPDTreeClassifierCV`
    (``len(max_depths) * (n_folds + 1)`` fits, no refit per alpha).

    Attributes
    ----------
    alpha_ : float
        The chosen alpha.
    max_depth_ : int
        The chosen depth limit.
    best_score_ : float
        Mean validation score of the chosen alpha and depth limit (under ``"1se"``, not
        necessarily the highest of :attr:`validation_curve_`).
    n_splits_ : int
        Number of cross-validation folds scored: fewer than ``cv`` makes when ``time_limit``
        ended the fits first.
    validation_curve_ : ndarray, structured
        As for :class:`DPDTreeClassifierCV`.
    best_estimator_ : DPDTreeRegressor
        The model refit on all the data at ``max_depth_``, its ``alpha`` set to ``alpha_``.
    pareto_front_, trees_, tree_, stats_, feature_importances_
        Those of ``best_estimator_``.
    n_outputs_ : int
        Number of outputs.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTreeRegressorCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(200, 3)
    >>> y = 10.0 * (X[:, 0] > 0.5) + rng.normal(scale=0.1, size=200)
    >>> reg = DPDTreeRegressorCV(cv=3).fit(X, y)
    >>> reg.get_n_leaves(), reg.best_score_ > 0.9
    (2, True)
    """

    _estimator_class = DPDTreeRegressor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Cross-validate alpha (and max_depth), then keep the whole-data fit's chosen tree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (numbers). A sparse matrix is densified, with the memory of a
            dense float64 array.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights, used by the fits and by the validation score.

        Returns
        -------
        self : DPDTreeRegressorCV
            The fitted estimator.
        """
        X, y = validate_numeric(self, X, y, reset=True, multi_output=True,
                                y_numeric=True)
        self.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]
        return self._fit_cv(X, y, sample_weight)

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
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


@register_estimator
@declare(POLICY_CV)
class DPDTreePolicyCV(_BaseDPDTreeCV):
    """DPDT policy tree with ``alpha`` (and ``max_depth``) chosen by cross-validated value.

    A :class:`DPDTreePolicy` at its default ``alpha=0`` takes the tree of highest training
    reward, which on noisy rewards (doubly robust scores are noisy) assigns actions by the
    noise as the depth grows. This estimator chooses instead by the policies' mean reward on
    held-out folds, as :class:`DPDTreeRegressorCV` chooses by held-out score
    (``len(max_depths) * (n_folds + 1)`` fits, folds of shuffled rows, no refit per alpha):
    by default (``selection="1se"``) the simplest tree whose held-out value is within one
    standard error of the best, as the folds' values of such rewards differ by noise as much
    as by the trees. It is itself the final model: a :class:`DPDTreePolicy` refit on all the
    data at the chosen ``alpha_`` and ``max_depth_``. For the value of a policy on new data,
    this is the estimator to use. The rewards of the held-out fold should be
    estimated without its samples' outcomes in the fit of their models, as cross-fitted
    doubly robust scores (:func:`doubly_robust_rewards`) are.

    Budgets on the costs of the actions are not cross-validated: fit a :class:`DPDTreePolicy`
    with ``action_costs`` at the chosen ``alpha_`` and ``max_depth_`` for a cost front.

    Attributes
    ----------
    alpha_ : float
        The chosen alpha, in the rewards' unit.
    max_depth_ : int
        The chosen depth limit.
    best_score_ : float
        Mean validation score (by default the held-out value of the policy) of the chosen
        alpha and depth limit (under ``"1se"``, not necessarily the highest of
        :attr:`validation_curve_`).
    n_splits_ : int
        Number of cross-validation folds scored: fewer than ``cv`` makes when ``time_limit``
        ended the fits first.
    validation_curve_ : ndarray, structured
        As for :class:`DPDTreeClassifierCV`.
    best_estimator_ : DPDTreePolicy
        The model refit on all the data at ``max_depth_``, its ``alpha`` set to ``alpha_``.
    pareto_front_, trees_, tree_, stats_, feature_importances_
        Those of ``best_estimator_``.
    actions_ : ndarray of shape (n_actions,)
        The actions: the column names of ``rewards`` when it was a DataFrame, else
        ``0 .. n_actions - 1``. :meth:`predict` returns them.
    n_actions_ : int
        The number of actions.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import DPDTreePolicyCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(400, 3)
    >>> effect = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    >>> rewards = np.column_stack([np.zeros(400), effect + rng.normal(scale=2.0, size=400)])
    >>> policy = DPDTreePolicyCV(max_depths=[1, 2, 3], cv=5).fit(X, rewards)
    >>> policy.predict([[0.2, 0.5, 0.5], [0.8, 0.5, 0.5]])
    array([0, 1])
    """

    _estimator_class = DPDTreePolicy
    _taken_names = ("feature_names_in_", "actions_")
    _labels = ("actions_",)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, rewards, sample_weight=None, action_costs=None):
        """Cross-validate alpha (and max_depth), then keep the whole-data fit's chosen tree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (numbers). A sparse matrix is densified, with the memory of a
            dense float64 array.
        rewards : array-like or DataFrame of shape (n_samples, n_actions)
            The reward of each action for each sample, higher is better (finite numbers). A
            DataFrame's columns name the actions (:attr:`actions_`).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights, used by the fits and by the validation score.
        action_costs : None
            Not taken (a ValueError): a budget selects the tree by its cost, not by the
            ``alpha`` this estimator validates. Fit a :class:`DPDTreePolicy` with
            ``action_costs`` at the chosen ``alpha_`` and ``max_depth_``.

        Returns
        -------
        self : DPDTreePolicyCV
            The fitted estimator.
        """
        if action_costs is not None:
            raise ValueError("DPDTreePolicyCV does not take action_costs: a budget selects "
                             "the tree by its cost, not by the alpha cross-validated here; fit "
                             "DPDTreePolicy(alpha=alpha_, max_depth=max_depth_) with "
                             "action_costs and select_tree(max_cost=...) instead")
        X, rewards = validate_policy_data(self, X, rewards)
        return self._fit_cv(X, rewards, sample_weight)

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
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

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
        check_is_fitted(self)
        return self.best_estimator_.predict_value(X)

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
        check_is_fitted(self)
        return self.best_estimator_.score(X, rewards, sample_weight=sample_weight)

    def _check_fitted_state(self, decoder, where):
        super()._check_fitted_state(decoder, where)
        n_actions = vars(self).get("n_actions_")
        decoder.expect(isinstance(n_actions, int) and n_actions == len(self.actions_),
                       f"{where}: n_actions_ does not match actions_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags
