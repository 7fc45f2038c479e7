"""Validation of the inputs that every estimator family shares: sample weights, feature costs."""

import numpy as np
from sklearn.utils.validation import _check_sample_weight


def training_weight(sample_weight, X, factor=None):
    """Return the validated weights (times ``factor``) and the mask of the samples that count.

    A sample of zero weight is a removed sample: it must not even shape the thresholds. ``X``
    gives the number of samples. Raises ValueError for weights that are negative or not finite,
    or that sum to zero.
    """
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if factor is not None:
        # class_weight's factors: a negative one would turn its samples into removed ones (or
        # worse, let them cancel others) without a word.
        if not np.all(np.isfinite(factor)) or np.any(factor < 0):
            raise ValueError("class_weight must be finite and non-negative")
        weight = weight * factor
    if not np.all(np.isfinite(weight)) or weight.sum() <= 0:
        raise ValueError("sample_weight must be finite and sum to a positive value")
    return weight, weight > 0


def power_of_two_scale(weight):
    """Return the power of two that brings the largest weight into [1, 2) (1.0 if none is > 0).

    Every objective is invariant to the scale of the weights, but sums of squares overflow near
    1e300 and absolute tolerances swallow weights near 1e-300. Dividing by a power of two brings
    the weights to a safe scale without rounding any of them (and leaves unit weights alone).
    """
    largest = np.max(weight, initial=0.0)
    return float(np.ldexp(1.0, int(np.frexp(largest)[1]) - 1)) if largest > 0 else 1.0


def check_feature_costs(feature_costs, n_features, max_tests):
    """Return the costs of testing each feature as a float64 array (empty for None).

    Raises ValueError unless there is one finite, non-negative cost per feature, and unless a
    tree's complexity, which sums at most ``max_tests`` of these costs, stays finite with room
    for the sums and differences of complexities the search takes.
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
    if not np.isfinite(largest * float(max_tests) * 4):
        raise ValueError(
            f"feature_costs up to {largest:.3g} overflow a tree's complexity, which can sum "
            f"{max_tests:.3g} of them; divide every cost by a common factor (the trees stay the "
            "same when alpha is multiplied by that factor)")
    return costs
