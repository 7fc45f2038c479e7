"""Rewards for policy trees from observational or experimental data: doubly robust scores."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils.validation import check_array, check_consistent_length, column_or_1d

from ._validation import is_missing_label

#: The least estimated propensity a score divides by, unless ``min_propensity`` says otherwise.
MIN_PROPENSITY = 0.01

#: How far from 1 the sum of a sample's known propensities may be (rounding, not a design).
PROPENSITY_SUM_TOLERANCE = 1e-6


def doubly_robust_rewards(X, treatment, outcome, *, actions=None, outcome_model=None,
                          propensity_model=None, cv=5, min_propensity=MIN_PROPENSITY,
                          random_state=None):
    r"""Estimate the reward of every action for every sample by doubly robust scores.

    The rewards to fit :class:`DPDTreePolicy` on, from data where each sample received one
    treatment (action) and its outcome was observed. The reward of action ``a`` for sample
    ``i`` is the augmented inverse propensity weighted (AIPW) score

    .. math::

        \Gamma_{ia} = \mu_a(x_i) + \frac{[t_i = a]}{e_a(x_i)} \left(y_i - \mu_a(x_i)\right),

    where :math:`\mu_a(x)` estimates the expected outcome under action ``a`` and :math:`e_a(x)`
    the probability of receiving ``a`` (the propensity). Its mean over samples estimates the
    mean outcome had everyone received ``a``, without bias when either model is right (hence
    "doubly robust"), and the mean of :math:`\Gamma_{i\pi(x_i)}` estimates the value of a
    policy :math:`\pi`. Both models are cross-fitted: the data are cut into ``cv`` folds,
    stratified by treatment, and the scores of a fold come from models fitted on the other
    folds, so that no sample's score uses a model that saw its outcome.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        Covariates, as the models take them. The default models take NaN as missing, and a
        DataFrame's category columns, and its columns of text as categories, as categorical.
    treatment : array-like of shape (n_samples,)
        The action each sample received: any labels (no missing value).
    outcome : array-like of shape (n_samples,)
        The observed outcome, higher is better (negate a cost). A binary outcome is a 0/1
        number.
    actions : array-like of shape (n_actions,), default=None
        The actions to score, in the order of the output's columns; each must have been
        received by some samples, and every treatment must be one of them. None: the distinct
        treatments, sorted.
    outcome_model : regressor, default=None
        The model of the outcome given X, cloned and fitted on the samples of each action
        separately (per fold). None: ``HistGradientBoostingRegressor(early_stopping=True)``.
    propensity_model : classifier or array-like of shape (n_samples, n_actions), default=None
        The model of the treatment given X (cloned, fitted per fold; its ``predict_proba`` gives
        the propensities), or the known propensities themselves, one column per action (a
        randomised experiment's design), each row summing to 1, which are then used as given. None:
        ``HistGradientBoostingClassifier(early_stopping=True)``, which stops adding trees when
        the log-loss on a held-out tenth no longer falls, so that the propensities do not
        overfit towards 0 and 1 (no early stopping for an action with fewer than 10 samples
        among a fold's training samples).
    cv : int or cross-validation splitter, default=5
        The number of cross-fitting folds (>= 2), stratified by treatment and shuffled with
        ``random_state``, or a splitter whose ``split(X, treatment)`` gives the folds. Every
        action must be among the training samples of every fold.
    min_propensity : float, default=0.01
        Estimated propensities below this floor are raised to it before the division, so that
        a sample that received an action its model deemed nearly impossible cannot dominate the
        scores (the price is a small bias for such samples). In (0, 1]. Known propensities are
        refused below it.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds and the default models.

    Returns
    -------
    rewards : ndarray or DataFrame of shape (n_samples, n_actions)
        The score of each action for each sample, columns in the order of ``actions``. A
        DataFrame when X is one: X's index, one column per action, named by it.

    Raises
    ------
    ValueError
        If the lengths differ, the treatment has missing values, fewer than two actions are
        given, an action was never received (or is missing from some fold's training samples),
        a treatment is not among ``actions``, the outcome is not finite, or known propensities
        are not probabilities above ``min_propensity`` that sum to 1 in each row.
    TypeError
        If the treatment's (or ``actions``') labels mix types that do not compare, such as 1
        and "1".

    Examples
    --------
    >>> import numpy as np
    >>> from dpdt import doubly_robust_rewards
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> treatment = rng.integers(0, 2, size=2000)          # a randomised experiment
    >>> outcome = X[:, 0] * treatment + rng.normal(size=2000)
    >>> rewards = doubly_robust_rewards(X, treatment, outcome, random_state=0)
    >>> rewards.shape
    (2000, 2)
    """
    if not (isinstance(min_propensity, Real) and 0 < min_propensity <= 1):
        raise ValueError(f"min_propensity must be in (0, 1], got {min_propensity!r}")
    check_consistent_length(X, treatment, outcome)
    treatment = _check_treatment(treatment)
    outcome = column_or_1d(check_array(outcome, ensure_2d=False, dtype=np.float64,
                                       input_name="outcome"))
    actions, codes = _encode_actions(treatment, actions)
    n_actions = len(actions)
    known = None
    if propensity_model is not None and not hasattr(propensity_model, "fit"):
        known = _known_propensities(propensity_model, len(codes), n_actions, min_propensity)
    # The work is done with the actions sorted, so that their order in ``actions`` changes the
    # columns only, not the folds nor the models' seeds.
    rank = np.empty(n_actions, dtype=np.intp)
    rank[np.argsort(actions, kind="stable")] = np.arange(n_actions)
    codes = rank[codes]
    labels = np.empty_like(actions)
    labels[rank] = actions
    rng = check_random_state(random_state)
    folds = list(_folds(cv, rng).split(_row_stand_in(X), codes))

    # The default models take a DataFrame's text columns as categories; given ones take X as is.
    X_outcome = _default_model_input(X) if outcome_model is None else X
    X_propensity = _default_model_input(X) if propensity_model is None else X
    rows = np.arange(len(codes))
    mu = np.empty((len(codes), n_actions))
    propensity = np.empty((len(codes), n_actions))
    if known is not None:
        propensity[:, rank] = known
    for k, (train, test) in enumerate(folds):
        missing = np.setdiff1d(np.arange(n_actions), codes[train])
        if missing.size:
            raise ValueError(
                f"the training samples of fold {k} never received action "
                f"{_label(labels[missing[0]])!r}: its reward cannot be estimated there; use "
                "fewer folds (cv) or more samples of that action")
        X_test = _safe_indexing(X_outcome, test)
        for a in range(n_actions):
            mine = train[codes[train] == a]
            model = _model(outcome_model, HistGradientBoostingRegressor, rng,
                           early_stopping=True)
            mu[test, a] = _fit_predict(model, _safe_indexing(X_outcome, mine), outcome[mine],
                                       X_test, "predict")
        if known is None:
            # Early stopping holds out a stratified tenth, which needs a few samples of each
            # action; without it the propensities overfit towards 0 and 1.
            rare = np.bincount(codes[train], minlength=n_actions).min() < 10
            model = _model(propensity_model, HistGradientBoostingClassifier, rng,
                           early_stopping=not rare)
            proba = _fit_predict(model, _safe_indexing(X_propensity, train), codes[train],
                                 _safe_indexing(X_propensity, test), "predict_proba")
            # The columns follow the classifier's classes_, which are the codes 0..k-1 as every
            # action is among the training samples.
            propensity[test] = proba[:, np.searchsorted(model.classes_, np.arange(n_actions))]

    received = np.zeros((len(codes), n_actions), dtype=bool)
    received[rows, codes] = True
    residual = (outcome - mu[rows, codes]) / np.maximum(propensity[rows, codes], min_propensity)
    rewards = (mu + received * residual[:, np.newaxis])[:, rank]
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        import pandas as pd  # X is a DataFrame: pandas is there
        return pd.DataFrame(rewards, index=X.index, columns=list(actions))
    return rewards


def _check_treatment(treatment):
    """Return the treatment as a 1-D array, refusing a missing label in any of its forms.

    None, NaN, NaT and pandas' NA (a nullable or categorical column's) are all missing, and
    none is an action: each sample must have received one.
    """
    treatment = column_or_1d(check_array(treatment, ensure_2d=False, dtype=None,
                                         ensure_all_finite=False, input_name="treatment"))
    if treatment.dtype.kind in "fc":
        missing = np.isnan(treatment)
    elif treatment.dtype.kind in "mM":
        missing = np.isnat(treatment)
    elif treatment.dtype.kind == "O":
        missing = np.array([is_missing_label(v) for v in treatment], dtype=bool)
    else:
        missing = np.zeros(len(treatment), dtype=bool)
    if missing.any():
        raise ValueError(f"treatment has missing values (None, NaN or NA; {missing.sum()} "
                         f"rows, the first row {np.argmax(missing)}): every sample must have "
                         "received an action")
    return treatment


def _encode_actions(treatment, actions):
    """Return the actions (an array) and each sample's action code, checked."""
    present = _distinct(treatment, "treatment")
    if actions is None:
        actions = present
    else:
        actions = np.asarray(actions)
        if actions.ndim != 1 or len(_distinct(actions, "actions")) != len(actions):
            raise ValueError("actions must be a list of distinct labels")
        unseen = [a for a in actions if not np.any(present == a)]
        if unseen:
            raise ValueError(f"action {_label(unseen[0])!r} was never received: its reward "
                             "cannot be estimated from these data")
    if len(actions) < 2:
        raise ValueError(f"the treatment takes {len(actions)} value(s): rewards need at least "
                         "two actions to compare")
    order = np.argsort(actions, kind="stable")
    position = np.searchsorted(actions[order], treatment)
    position = np.minimum(position, len(actions) - 1)
    codes = order[position]
    stray = actions[codes] != treatment
    if np.any(stray):
        raise ValueError(f"treatment {_label(treatment[np.argmax(stray)])!r} is not among the "
                         "actions")
    return actions, codes.astype(np.intp)


def _distinct(labels, name):
    """Return the sorted distinct labels, refusing labels of types that do not compare."""
    try:
        return np.unique(labels)
    except TypeError:   # such as 1 and "1"
        kinds = sorted({type(v).__name__ for v in np.ravel(labels)})
        raise TypeError(f"{name} mixes labels of types that do not compare ({', '.join(kinds)}): "
                        "give every action a label of one type, all numbers or all strings"
                        ) from None


def _label(value):
    """Return a label as Python writes it (``2``, not ``np.int64(2)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _folds(cv, rng):
    """Return the splitter of the cross-fitting folds."""
    if hasattr(cv, "split"):
        return cv
    if isinstance(cv, Integral) and not isinstance(cv, bool) and cv >= 2:
        return StratifiedKFold(int(cv), shuffle=True,
                               random_state=rng.randint(np.iinfo(np.int32).max))
    raise ValueError(f"cv must be an int >= 2 or a cross-validation splitter, got {cv!r}")


def _default_model_input(X):
    """Return X as the default models take it: a DataFrame's columns of text as categories.

    scikit-learn's gradient boosting takes a pandas category column as categorical, and refuses
    strings without naming the column. Columns of numbers (of any dtype) stay as they are.
    """
    if not (hasattr(X, "columns") and hasattr(X, "astype")):
        return X
    text = {}
    for name in X.columns:
        column = X[name]
        if column.dtype.kind in "OSU" or str(column.dtype) in ("string", "str"):
            try:
                column.astype(np.float64)
            except (TypeError, ValueError):
                text[name] = "category"
    return X.astype(text) if text else X


def _row_stand_in(X):
    """Return an array with X's rows, for a splitter that only counts them."""
    return np.zeros((_rows(X), 1))


def _fit_predict(model, X_fit, y_fit, X_predict, method):
    """Fit ``model`` and return ``method``'s output on ``X_predict`` as float64.

    Features that are missing for every sample the model is fitted on (a feature not recorded
    for one action, say) carry nothing and break some models (scikit-learn's gradient
    boosting): they are left out of that model's fit and prediction.
    """
    try:
        empty = np.isnan(np.asarray(X_fit, dtype=np.float64)).all(axis=0)
    except (TypeError, ValueError):   # not all numbers: the model's business
        empty = None
    if empty is not None and empty.any():
        kept = np.flatnonzero(~empty)
        if not kept.size:   # nothing to learn from: a constant feature stands in
            X_fit, X_predict = np.zeros((len(y_fit), 1)), np.zeros((_rows(X_predict), 1))
        else:
            X_fit = _safe_indexing(X_fit, kept, axis=1)
            X_predict = _safe_indexing(X_predict, kept, axis=1)
    model.fit(X_fit, y_fit)
    output = np.asarray(getattr(model, method)(X_predict), dtype=np.float64)
    return output.reshape(-1) if method == "predict" else output


def _rows(X):
    return len(X) if hasattr(X, "__len__") else X.shape[0]


def _model(given, default, rng, **settings):
    """Return a fresh copy of the model ``given``, or the default model seeded from ``rng``."""
    if given is None:
        return default(random_state=rng.randint(np.iinfo(np.int32).max), **settings)
    return clone(given)


def _known_propensities(propensity, n_samples, n_actions, min_propensity):
    """Return the known propensities checked: shape, probabilities, at least the floor."""
    propensity = check_array(propensity, dtype=np.float64, input_name="propensity_model")
    if propensity.shape != (n_samples, n_actions):
        raise ValueError(f"known propensities must have shape (n_samples, n_actions) = "
                         f"{(n_samples, n_actions)}, got {propensity.shape}")
    if np.any(propensity < min_propensity) or np.any(propensity > 1):
        raise ValueError(f"known propensities must lie in [min_propensity, 1] = "
                         f"[{min_propensity}, 1]")
    # Every treatment is one of the actions: a sample's probabilities of receiving them are a
    # distribution. Rows that are not (a column per action of the wrong design) would weigh
    # the residuals wrongly without a sign.
    total = propensity.sum(axis=1)
    off = np.abs(total - 1.0) > PROPENSITY_SUM_TOLERANCE
    if off.any():
        row = int(np.argmax(off))
        raise ValueError(f"known propensities must sum to 1 over the actions in every row "
                         f"(each sample receives one of them), to {PROPENSITY_SUM_TOLERANCE:g};"
                         f" row {row} sums to {total[row]:.6g}")
    return propensity
