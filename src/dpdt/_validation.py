"""Validation of the inputs that every estimator family shares: features, sample weights, costs.

It also holds the one rule by which every estimator is independent of the scale of its inputs:
the core's tolerances are absolute, so what crosses into it (weights, targets, gradients) is
first divided by the power of two that brings its largest magnitude into [1, 2). That division
is exact, so multiplying y or the weights by a power of two changes no bit of what the core
sees, and any other factor changes it by less than 2 (results then agree to rounding).
"""

from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils import check_random_state
from sklearn.utils._missing import is_pandas_na
from sklearn.utils.validation import _check_sample_weight, validate_data


def validate_numeric(estimator, X, y="no_validation", *, reset, **check_params):
    """Validate numeric features (and y, if given) for a DPDT estimator's fit or predict.

    The one path by which the numeric estimators (trees, CV, boosting) take X: scikit-learn's
    ``validate_data`` to float64, C order, NaN a missing value (every numeric estimator routes it
    at each split; infinities raise). Sparse matrices (CSR, CSC, or any format scipy
    converts to CSR) are accepted, as scikit-learn's trees accept them, and densified, since
    the core reads dense arrays: they then take the memory of a dense float64 array. Features
    that are not numbers (a DataFrame's string or category columns) raise a ValueError that
    names them and the ways to use them. ``check_params`` go to ``validate_data``.
    """
    try:
        # scikit-learn's finiteness check sums the values first, and a sum of huge finite
        # values of both signs is inf - inf: no error (an exact check follows), no warning.
        with np.errstate(over="ignore", invalid="ignore"):
            validated = validate_data(estimator, X, y, reset=reset, dtype=np.float64,
                                      order="C", accept_sparse=("csr", "csc"),
                                      ensure_all_finite="allow-nan", **check_params)
    except ValueError as error:   # strings (objects that are no numbers raise TypeError)
        columns = _non_numeric_columns(X)
        if not columns:
            raise
        # BranchesClassifier splits on categories, but classifies only.
        branches = (" or fit dpdt.BranchesClassifier, which splits on categories"
                    if is_classifier(estimator) else "")
        raise ValueError(
            f"{type(estimator).__name__} takes numeric features, and {_name_columns(columns)} "
            f"of X {'is' if len(columns) == 1 else 'are'} not numeric ({error}): one-hot encode "
            "categorical columns (sklearn.preprocessing.OneHotEncoder, or pandas.get_dummies)"
            f"{branches}") from error
    if isinstance(validated, tuple):
        return _dense(validated[0]), validated[1]
    return _dense(validated)


def _dense(X):
    return X.toarray(order="C") if hasattr(X, "toarray") else X


def _non_numeric_columns(X):
    """Return the names (or indices) of the columns of X that do not convert to float64."""
    if hasattr(X, "toarray"):   # sparse matrices are numeric or fail for another reason
        return []
    if hasattr(X, "iloc") and getattr(X, "ndim", 0) == 2:
        columns, named = [(name, X.iloc[:, j]) for j, name in enumerate(X.columns)], True
    else:
        try:
            array = np.asarray(X, dtype=object)
        except ValueError:   # ragged rows: not a matter of columns
            return []
        if array.ndim != 2:
            return []
        columns, named = list(enumerate(array.T)), False
    bad = []
    for name, column in columns:
        try:
            np.asarray(column, dtype=np.float64)
        except (ValueError, TypeError):
            bad.append(repr(name) if named else str(name))
    return bad if named or not bad else [f"at index {bad[0]}", *bad[1:]]


def _name_columns(columns):
    """Return "column 'city'", "columns at index 0, 2" and the like, cut after five."""
    more = f" and {len(columns) - 5} more" if len(columns) > 5 else ""
    return f"column{'s' if len(columns) > 1 else ''} {', '.join(columns[:5])}{more}"


def binary_exponent(values):
    """Return the e for which ``max(abs(values)) / 2**e`` is in [1, 2) (0 if none is nonzero).

    ``np.ldexp(values, -e)`` is then exact (bar subnormal values), so fits on ``values`` and
    on ``values`` times any power of two see the same numbers. Every objective is invariant to
    the scale of the weights, but sums of squares overflow near 1e300 and absolute tolerances
    swallow weights near 1e-300: divided so, the weights are at a safe scale, none rounded.
    """
    largest = np.max(np.abs(values), initial=0.0)
    return int(np.frexp(largest)[1]) - 1 if largest > 0 else 0


def core_seed(random_state):
    """Return the core's seed of ``random_state``: the first int32 draw of its random state.

    An int's seed is drawn once per process: numpy makes a ``RandomState`` in about half a
    millisecond, a share of a small fit's time.
    """
    if isinstance(random_state, Integral):
        return _first_draw(random_state)
    return check_random_state(random_state).randint(np.iinfo(np.int32).max)


@lru_cache(maxsize=64)
def _first_draw(seed):
    return check_random_state(seed).randint(np.iinfo(np.int32).max)


def row_min(table):
    """Return the least value of each row of the 2-D ``table``: ``table.min(axis=1)``.

    numpy reduces the rows of a C-ordered table of a few columns one row at a time, some hundred
    times slower than a pass over each column of its transpose, which this makes (a minimum is
    exact in any order; only the sign of a zero may differ, which no sum of the core keeps).
    """
    return np.minimum.reduce(np.ascontiguousarray(table.T), axis=0)


def row_max(table):
    """Return the largest value of each row of the 2-D ``table``: ``table.max(axis=1)``.

    As :func:`row_min`, over the columns of the transpose.
    """
    return np.maximum.reduce(np.ascontiguousarray(table.T), axis=0)


# Fixed-point sums keep this many bits below 2**63: an int64 sum of n terms stays exact.
_FIXED_BITS = 62


def fixed_units(largest, n_rows):
    """Return the power-of-two units in which ``n_rows`` values of at most ``largest`` sum exactly.

    Each value rounded to a multiple of the unit is an int64 of at most 2**62 / n_rows, so
    any sum of them is exact and does not depend on the order of the rows or on how they are
    split between machines. ``largest`` is one bound per column.
    """
    largest = np.asarray(largest, dtype=np.float64)
    exponent = np.frexp(largest)[1] + int(n_rows).bit_length() - _FIXED_BITS
    return np.where(largest > 0, np.ldexp(1.0, np.maximum(exponent, -1074)), 1.0)


def fixed_sums(values, weight, units):
    """Return the exact sums (Python ints) of ``weight * values`` per column, and of ``weight``.

    ``units`` (from :func:`fixed_units`) holds one unit per column of ``values`` and then the
    weights' unit. Sums of several parts of the rows add up to the sums of all of them.
    """
    products = weight[:, np.newaxis] * values
    columns = [int(np.rint(products[:, j] / units[j]).astype(np.int64).sum())
               for j in range(values.shape[1])]
    return columns, int(np.rint(weight / units[-1]).astype(np.int64).sum())


def mean_from_sums(column_sums, weight_sum, units):
    """Return the weighted means of :func:`fixed_sums`' totals."""
    total = float(weight_sum) * units[-1]
    return np.array([float(s) * u / total for s, u in zip(column_sums, units[:-1], strict=True)])


def check_target_spread(spread, exponent):
    """Raise ValueError unless ``spread * 4**exponent``, y's mean squared error, is a float64.

    The front reports the losses in y's unit: a weighted mean squared error beyond the float
    range would be inf for every tree (all tie with a single leaf), one below it 0.
    """
    with np.errstate(over="ignore", under="ignore"):
        reported = np.ldexp(spread, 2 * exponent)
    if not np.isfinite(reported):
        raise ValueError("y is too spread out: its squared error overflows float64; rescale y")
    if spread > 0 and reported < np.finfo(np.float64).tiny:
        raise ValueError("y varies too little: its mean squared error underflows float64 "
                         f"(below {np.finfo(np.float64).tiny:.1e}); rescale y")


def weighted_by_class(weight, factor):
    """Return ``weight * factor`` for class_weight's factors, refused where it cannot be trusted.

    A negative factor would turn its samples into removed ones (or worse, let them cancel
    others) without a word; a product that overflows would reach the core as inf.
    """
    if not np.all(np.isfinite(factor)) or np.any(factor < 0):
        raise ValueError("class_weight must be finite and non-negative")
    weighted = weight * factor
    if not np.all(np.isfinite(weighted)):
        raise ValueError("class_weight times sample_weight overflows float64")
    return weighted


def training_weight(sample_weight, X, factor=None, reports_total=True):
    """Return the validated weights, normalised, the mask of the samples that count, and the scale.

    The weights (times ``factor``, class_weight's) are divided by ``scale``, the power of two
    that brings the largest into [1, 2): every later sum is then safe from overflow, and the
    division is exact. A sample of zero weight (or one that the division flushes to zero, more
    than 2**1074 times lighter than the heaviest) is a removed sample: it must not even shape
    the thresholds. ``X`` gives the number of samples. Raises ValueError for weights that are
    negative or not finite, that sum to zero, or, for an estimator that ``reports_total`` (node
    weights in the weights' own unit), whose sum overflows float64.
    """
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if not np.all(np.isfinite(weight)):
        raise ValueError("sample_weight must be finite and sum to a positive value")
    exponent = binary_exponent(weight)
    weight = np.ldexp(weight, -exponent)
    if factor is not None:
        weight = weighted_by_class(weight, factor)
        shift = binary_exponent(weight)
        weight, exponent = np.ldexp(weight, -shift), exponent + shift
    total = weight.sum()
    if not total > 0:
        raise ValueError("sample_weight must be finite and sum to a positive value")
    if reports_total and exponent + np.frexp(total)[1] > 1024:   # ldexp(total, exponent): inf
        raise ValueError(f"sample_weight sums to about 2**{int(np.log2(total)) + exponent}, "
                         "beyond float64's range (node weights are reported in the weights' "
                         "unit): divide the weights by a common factor")
    with np.errstate(over="ignore"):   # inf only where the total is not reported
        return weight, weight > 0, float(np.ldexp(1.0, exponent))


def is_missing_label(value):
    """Return whether a label (an action, a treatment) is missing: None, NaN, NaT or pandas' NA.

    NaN and NaT are the values unequal to themselves; NA answers neither True nor False.
    """
    return value is None or is_pandas_na(value) or bool(value != value)


def check_monotonic_cst(estimator, monotonic_cst, *, n_classes=None, n_outputs=1):
    """Return the monotonic constraints as the core takes them: one int per feature, or none.

    ``monotonic_cst`` is an array-like of -1, 0 and 1, one per feature, or a dict of them by
    feature name (or a Series labelled by feature names), checked with scikit-learn's messages
    (its trees' for arrays, HistGradientBoosting's for a dict) once the data's validation has
    set ``n_features_in_`` (and ``feature_names_in_``). As in scikit-learn, constraints are
    refused for more than two classes (``n_classes``) and for several outputs, even constraints
    that are all 0.
    Those return an empty list, the core's "unconstrained", as None does: they fit the same
    tree.
    """
    if monotonic_cst is None:
        return []
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    if n_classes is not None and n_classes > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass "
                         "classification")
    if _labelled(monotonic_cst):
        # A Series labelled by feature names means them, whatever its order (as a dict does);
        # scikit-learn would read its values in order, which agrees only when they are.
        monotonic_cst = dict(monotonic_cst.items())
    if isinstance(monotonic_cst, dict):
        constraints = _constraints_by_name(estimator, monotonic_cst)
    else:
        constraints = np.asarray(monotonic_cst)
        if constraints.dtype.kind == "O" and all(isinstance(c, Real | np.bool_)
                                                 for c in constraints.ravel()):
            # Numbers held as objects (a Series of dtype object) are numbers, as for
            # scikit-learn; None, strings and NA are not.
            constraints = constraints.astype(np.float64)
        n_features = estimator.n_features_in_
        if constraints.ndim != 1 or constraints.shape[0] != n_features:
            raise ValueError(f"monotonic_cst has shape {constraints.shape} but the input data "
                             f"X has {n_features} features.")
        # Numbers only: strings and objects compare unequal to -1, 0 and 1, or fail to.
        if constraints.dtype.kind not in "biuf" or not np.isin(constraints, (-1, 0, 1)).all():
            raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                             f"got {_distinct(constraints)}")
    return [int(c) for c in constraints] if np.any(constraints != 0) else []


def _labelled(values):
    """Return whether ``values`` is a pandas Series with labels other than its positions."""
    index = getattr(values, "index", None)
    if index is None or not hasattr(values, "items") or getattr(values, "ndim", 0) != 1:
        return False
    return not np.array_equal(np.asarray(index, dtype=object), np.arange(len(index)))


def _constraints_by_name(estimator, by_name):
    """Return the constraints of a dict by feature name, one per feature (0 where absent)."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        raise ValueError(f"{type(estimator).__name__} was not fitted on data with feature "
                         "names. Pass monotonic_cst as an integer array instead.")
    unexpected = sorted(map(str, set(by_name) - set(names)))
    if unexpected:
        shown = unexpected[:5] + (["..."] if len(unexpected) > 5 else [])
        raise ValueError(f"monotonic_cst contains {len(unexpected)} unexpected feature "
                         f"names: {shown}.")
    constraints = np.zeros(len(names), dtype=np.int8)
    for j, name in enumerate(names):
        if name in by_name:
            value = by_name[name]
            # Real numbers equal to -1, 0 or 1 (True and 1.0 too, as for an array).
            if not isinstance(value, Real | np.bool_) or value not in (-1, 0, 1):
                raise ValueError(f"monotonic_cst[{name!r}] must be either -1, 0 or 1. Got "
                                 f"{value!r}.")
            constraints[j] = int(value)
    return constraints


def _distinct(values):
    """Return the distinct values of an array for a message, sorted where they can be."""
    try:
        return np.unique(values)
    except TypeError:   # objects of types that do not compare
        return list(dict.fromkeys(values.ravel().tolist()))


def check_feature_costs(feature_costs, n_features, max_tests, weight_total=1.0):
    """Return the costs of testing each feature as a float64 array (empty for None).

    Raises ValueError unless there is one finite, non-negative cost per feature, and unless a
    tree's complexity stays finite with room for the sums and differences of complexities the
    search takes. The core sums, per split, its cost times the weight of the node's samples
    (``weight_total`` at most, the sum of the normalised weights), at most ``max_tests`` such
    terms per unit of weight.
    """
    if feature_costs is None:
        return np.zeros(0)
    costs = np.ascontiguousarray(feature_costs, dtype=np.float64)
    if costs.shape != (n_features,):
        raise ValueError(f"feature_costs must have shape ({n_features},), got {costs.shape}")
    if not np.all(np.isfinite(costs)) or np.any(costs < 0):
        raise ValueError("feature_costs must be finite and non-negative")
    largest = float(costs.max(initial=0.0))
    # A factor 4 of headroom: a node's complexity adds its children's, and the front subtracts
    # complexities of neighbouring trees.
    with np.errstate(over="ignore"):
        overflows = not np.isfinite(largest * float(max_tests) * float(weight_total) * 4)
    if overflows:
        raise ValueError(
            f"feature_costs up to {largest:.3g} overflow a tree's complexity, which can sum "
            f"{max_tests:.3g} of them times the samples' weight; divide every cost by a common "
            "factor (the trees stay the same when alpha is multiplied by that factor)")
    return costs
