"""The vocabulary of the Pareto front: its rows, the tolerance of ties, choosing within budgets."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval, validate_parameter_constraints

PARETO_DTYPE = np.dtype([
    ("alpha_min", np.float64),
    ("alpha_max", np.float64),
    ("train_loss", np.float64),
    ("complexity", np.float64),
    ("n_leaves", np.int64),
    ("depth", np.int64),
])

# Relative tolerance under which two objectives are equal and the tie-break decides.
TIE_TOL = 1e-9

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


def objective_at(rows, alpha):
    """Return ``train_loss + alpha * complexity`` of front rows (records or the core's dicts)."""
    # A large alpha prices every split at infinity, which selects the leaf, as it should.
    with np.errstate(over="ignore"):
        return rows["train_loss"] + alpha * rows["complexity"]


def within_complexity(complexity, max_complexity):
    """Return the mask of the complexities within ``max_complexity``.

    A complexity is a sum of rounded terms: a budget equal to it up to rounding admits it.
    """
    return np.asarray(complexity) <= max_complexity * (1 + TIE_TOL) + TIE_TOL


def within_cost(cost, max_cost):
    """Return the mask of the total costs within ``max_cost``, to a relative rounding.

    Relative only: costs have any unit, and one of 1e-9 per treated sample must still tell
    N treated samples from N + 1.
    """
    return np.asarray(cost) <= max_cost * (1 + TIE_TOL)


def alpha_inside(alpha_min, alpha_max):
    """Return an alpha strictly inside ``[alpha_min, alpha_max]`` (``alpha_min`` if it is a point).

    At an end of the range the neighbouring tree ties and the tie-break decides; inside it the
    tree is the only optimum, so the choice does not hang on rounding.
    """
    # A Python float: it becomes the estimator's alpha, which get_params and repr show.
    if alpha_max == alpha_min:
        return float(alpha_min)
    if np.isinf(alpha_max):
        return float(2.0 * alpha_min) if alpha_min > 0 else 1.0
    return float(0.5 * alpha_min + 0.5 * alpha_max)   # the same, bar overflow



def held_out_figures(estimator, X, y):
    """Return, per tree of a fitted estimator's front, its accuracy (or MSE) on ``(X, y)``.

    Accuracy for a classifier, else the loss of the estimator's objective (mean squared
    error, a policy's mean regret): the figures the front's ``train_loss`` gives on the
    training data. NaN for a tree that no alpha selects (the trees between the hull's of
    ``front="pareto"``). Each tree is selected by an alpha inside its range, no refit; the
    estimator (a CV estimator's ``best_estimator_``) is left as it was.
    """
    model = getattr(estimator, "best_estimator_", estimator)
    params = model.get_params()
    kept = {name: params[name] for name in ("alpha", "max_complexity", "max_cost")
            if name in params}
    figures = np.full(len(model.pareto_front_), np.nan)
    try:
        for k, row in enumerate(model.pareto_front_):
            if np.isnan(row["alpha_min"]):
                continue
            # The tree of that alpha on the whole front: no budget.
            select = {name: None for name in kept}
            select["alpha"] = alpha_inside(row["alpha_min"], row["alpha_max"])
            model.set_params(**select)
            figures[k] = (model.score(X, y) if is_classifier(model)
                          else model._objective.held_out_loss(model, X, y))
    finally:
        model.set_params(**kept)
    return figures
