"""The midpoint rule of monotonic constraints by brute force, independent of the core.

The rule (scikit-learn's, which the core's ``dpdt/split_rule.hpp`` applies): a node has bounds
``[lo, hi]``, open at the root. A split on a constrained feature is admissible only if both
children's values lie in ``[lo, hi]`` and are ordered in the constraint's direction; the left
child then gets ``[lo, mid]`` and the right ``[mid, hi]`` under +1 (mirrored under -1), ``mid``
the mean of the two values. A split on a free feature passes ``[lo, hi]`` on. A leaf outputs its
value clipped to its bounds, and its loss is the loss at that output.

``best_objective`` is the minimum, over every tree of a depth with every threshold, of the loss
plus ``alpha`` per split under that rule, by enumeration: the optimum the core's exhaustive search
must reach.
"""

import numpy as np

#: The rule's margin on admissibility, relative (``SplitRule::kTol`` in the core).
TOL = 1e-12


class Task:
    """A leaf's value and its loss at a given output, for one objective, from the rows."""

    def __init__(self, kind, y, w, reg_lambda=1.0, gamma=0.0):
        self.kind, self.y, self.w = kind, np.asarray(y), np.asarray(w, dtype=float)
        self.reg_lambda, self.gamma = reg_lambda, gamma

    def value(self, rows):
        w, y = self.w[rows], self.y[rows]
        if self.kind == "regressor":
            return float(np.sum(w * y) / np.sum(w))
        if self.kind == "classifier":
            return float(np.sum(w * (y == 1)) / np.sum(w))
        g, h = y[:, 0], y[:, 1]
        return float(-np.sum(g) / (np.sum(h) + self.reg_lambda))

    def loss_at(self, rows, v):
        w, y = self.w[rows], self.y[rows]
        if self.kind == "regressor":
            return float(np.sum(w * (y - v) ** 2))
        if self.kind == "classifier":
            # A leaf of P(class 1) = v predicts class 1 when v > 1/2 (argmax: class 0 on a tie).
            predicted = 1 if v > 0.5 else 0
            unclipped = self.value(rows)
            if v == unclipped:   # its own majority: the 0-1 loss, ties either way
                return float(min(np.sum(w * (y == 0)), np.sum(w * (y == 1))))
            return float(np.sum(w * (y != predicted)))
        g, h = y[:, 0], y[:, 1]
        return float(np.sum(g) * v + 0.5 * (np.sum(h) + self.reg_lambda) * v * v + self.gamma)

    def leaf_loss(self, rows, lo, hi):
        return self.loss_at(rows, min(max(self.value(rows), lo), hi))


def admissible(c, vl, vr, lo, hi):
    """Whether a split of child values vl, vr on a feature of constraint c is admissible."""
    if c == 0:
        return True
    tol = TOL * (1.0 + abs(vl) + abs(vr))
    inside = all(lo - tol <= v <= hi + tol for v in (vl, vr))
    return inside and (vl - vr) * c <= tol


def child_bounds(c, vl, vr, lo, hi):
    """The bounds the children of an admissible split inherit."""
    if c == 0:
        return (lo, hi), (lo, hi)
    mid = 0.5 * (min(max(vl, lo), hi) + min(max(vr, lo), hi))
    low, high = (lo, mid), (mid, hi)
    return (low, high) if c > 0 else (high, low)


def best_objective(X, task, cst, depth, alpha_weight=0.0):
    """Minimum over trees of depth <= `depth` of loss + alpha_weight per split, under the rule."""

    def best(rows, d, lo, hi):
        value = task.leaf_loss(rows, lo, hi)
        if d == 0 or rows.sum() < 2:
            return value
        for f in range(X.shape[1]):
            values = np.unique(X[rows, f])
            for t in (values[:-1] + values[1:]) / 2:
                left, right = rows & (X[:, f] <= t), rows & ~(X[:, f] <= t)
                vl, vr = task.value(left), task.value(right)
                if not admissible(cst[f], vl, vr, lo, hi):
                    continue
                (llo, lhi), (rlo, rhi) = child_bounds(cst[f], vl, vr, lo, hi)
                total = alpha_weight + best(left, d - 1, llo, lhi) + best(right, d - 1, rlo, rhi)
                value = min(value, total)
        return value

    return best(np.ones(len(X), dtype=bool), depth, -np.inf, np.inf)
