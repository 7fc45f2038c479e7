"""The losses of gradient boosting: gradients, hessians, starting values and leaf refits.

Each loss is saved in model files under the tag "loss" and the name it has always had there.
"""

import numpy as np
from scipy.special import expit, logsumexp, softmax

from ._io import register_type

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


class _Loss:
    """A boosting loss in a model file: its name and, for the few it needs, its state.

    A regression loss says how it scales with y (boosting fits y divided by a power of two and
    scales the model back): its value as y to the power ``score_power``, its gradients as y to
    the power ``gradient_power``. A classification loss has ``score_power`` None.
    """

    score_power = None
    gradient_power = 0

    def unscale(self, exponent):
        """Bring the state of a fit on y / 2**exponent back to y's unit."""

    def _encode(self, encoder, where):
        return {"n_classes": self.n_trees_per_round}

    @classmethod
    def _decode(cls, node, decoder, where):
        return cls()


@register_type("loss", name="_SquaredError")
class SquaredError(_Loss):
    """Half squared error: gradient raw - y, hessian 1."""

    n_trees_per_round = 1
    refits_leaves = False
    score_power, gradient_power = 2, 1

    def init_raw(self, y, w):
        return np.full((1,), np.average(y, weights=w))

    def gradients(self, y, raw, w):
        return (raw[:, 0] - y)[:, None], np.ones_like(raw)

    def loss(self, y, raw, w):
        return np.average((y - raw[:, 0]) ** 2, weights=w)


@register_type("loss", name="_AbsoluteError")
class AbsoluteError(_Loss):
    """Absolute error: first-order trees on -sign(y - raw), leaves the weighted median residual."""

    n_trees_per_round = 1
    refits_leaves = True
    score_power, gradient_power = 1, 0

    def init_raw(self, y, w):
        return np.array([_weighted_quantile(y, w, 0.5)])

    def gradients(self, y, raw, w):
        return np.sign(raw[:, 0] - y)[:, None], np.ones_like(raw)

    def loss(self, y, raw, w):
        return np.average(np.abs(y - raw[:, 0]), weights=w)

    def leaf_values(self, residual, w, leaf, n_nodes):
        return _grouped_quantile(residual, w, leaf, n_nodes, 0.5)


@register_type("loss", name="_Huber")
class Huber(_Loss):
    """Huber loss whose delta is, each round, the ``quantile`` of the absolute residuals.

    As in scikit-learn's GradientBoostingRegressor: the trees are first-order (hessian 1) on the
    clipped residuals, and each leaf then takes Friedman's (2001) one-step estimate, the median
    residual plus the weighted mean of the residuals' deviations from it clipped to delta.
    """

    n_trees_per_round = 1
    refits_leaves = True
    score_power, gradient_power = 2, 1

    def __init__(self, quantile, delta=np.nan):
        self.quantile = quantile
        self.delta = delta   # set by each round's gradients, used by loss and leaf_values

    def unscale(self, exponent):
        """Bring the state of a fit on y / 2**exponent back to y's unit."""
        self.delta = float(np.ldexp(self.delta, exponent))

    def _encode(self, encoder, where):
        return {"quantile": encoder.float(self.quantile), "delta": encoder.float(self.delta)}

    @classmethod
    def _decode(cls, node, decoder, where):
        quantile = decoder.float(node.get("quantile"), where)
        decoder.expect(0 < quantile < 1, f"{where}: bad huber quantile")
        return cls(quantile, decoder.float(node.get("delta"), where))

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


@register_type("loss", name="_BinaryLogLoss")
class BinaryLogLoss(_Loss):
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


@register_type("loss", name="_MultinomialLogLoss")
class MultinomialLogLoss(_Loss):
    """Log-loss of a softmax over one logit per class (one tree per class and round)."""

    refits_leaves = False

    def __init__(self, n_classes):
        self.n_trees_per_round = n_classes

    @classmethod
    def _decode(cls, node, decoder, where):
        n_classes = node.get("n_classes")
        decoder.expect(isinstance(n_classes, int) and n_classes > 2, f"{where}: bad loss")
        return cls(n_classes)

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
