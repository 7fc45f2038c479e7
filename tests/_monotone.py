"""The leaf-pair check of monotonic constraints, for any tree in scikit-learn's ``tree_`` layout.

A tree is monotone for ``monotonic_cst`` (scikit-learn's meaning: +1 increasing, -1 decreasing,
0 free, one entry per feature) when no two points ``x`` and ``x'`` that differ only along
constrained features, each moved in its direction (``x'_j >= x_j`` where the constraint is +1,
``<=`` where it is -1, equal elsewhere), get predictions in the wrong order. Checking this on
points samples the question; on leaves it is exact: each leaf is a box of half-open intervals
``(low, high]`` (a split sends ``x <= threshold`` left), and two leaves ``a`` and ``b`` hold such a
pair ``x in a``, ``x' in b`` exactly when, feature by feature,

- free features: the intervals of ``a`` and ``b`` intersect;
- increasing features: ``b`` reaches above ``a``'s floor (``high_b > low_a``);
- decreasing features: ``a`` reaches above ``b``'s floor (``high_a > low_b``).

Then ``value(a) <= value(b)`` must hold. The check compares every ordered pair of leaves, so it
does not trust how the tree was built. Missing values are outside its scope, as they are outside
the constraint's: NaN has no order, and scikit-learn (from 1.9) and dpdt route it as they would
without constraints. The boxes describe where the numbers go.
"""

import numpy as np


def leaf_boxes(tree, n_features):
    """Leaves of ``tree`` and their boxes: (leaf ids, low, high), each box ``(low, high]``."""
    leaves, lows, highs = [], [], []
    stack = [(0, np.full(n_features, -np.inf), np.full(n_features, np.inf))]
    while stack:
        node, low, high = stack.pop()
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            leaves.append(node)
            lows.append(low)
            highs.append(high)
            continue
        f, t = int(tree.feature[node]), float(tree.threshold[node])
        left_high, right_low = high.copy(), low.copy()
        left_high[f] = min(high[f], t)
        right_low[f] = max(low[f], t)
        stack.append((left, low, left_high))
        stack.append((right, right_low, high))
    return np.array(leaves), np.array(lows), np.array(highs)


def leaf_scores(tree, classifier):
    """The value the constraint reads at each node: P(positive class) or the regression value."""
    value = np.asarray(tree.value, dtype=float)
    value = value.reshape(value.shape[0], -1) if value.ndim == 3 and value.shape[1] == 1 else value
    if classifier:
        value = value.reshape(value.shape[0], -1)
        total = value.sum(axis=1)
        return np.divide(value[:, 1], total, out=np.zeros(len(total)), where=total > 0)
    return value.reshape(value.shape[0], -1)[:, 0]


def violations(tree, monotonic_cst, classifier, tol=1e-12):
    """Every ordered pair of leaves (a, b) that can hold x in a, x' in b with x' above x, and
    value(a) > value(b) beyond ``tol`` (relative to the values' magnitude)."""
    cst = np.asarray(monotonic_cst)
    leaves, low, high = leaf_boxes(tree, len(cst))
    score = leaf_scores(tree, classifier)[leaves]
    scale = max(1.0, float(np.max(np.abs(score), initial=0.0)))
    free, up, down = cst == 0, cst == 1, cst == -1
    found = []
    for a in range(len(leaves)):
        # Vectorised over b: can some x in a and x' in b differ only in the allowed directions?
        meets = np.all((np.maximum(low[a], low) < np.minimum(high[a], high))[:, free], axis=1)
        meets &= np.all((high > low[a])[:, up], axis=1)
        meets &= np.all((high[a] > low)[:, down], axis=1)
        meets[a] = False
        bad = meets & (score[a] > score + tol * scale)
        found.extend((int(leaves[a]), int(leaves[b])) for b in np.flatnonzero(bad))
    return found


def assert_monotone(estimator_or_tree, monotonic_cst, classifier=None):
    """Fail, naming the first offending pair of leaves, unless the tree is monotone."""
    tree = getattr(estimator_or_tree, "tree_", estimator_or_tree)
    if classifier is None:
        classifier = hasattr(estimator_or_tree, "classes_")
    found = violations(tree, monotonic_cst, classifier)
    if found:
        scores = leaf_scores(tree, classifier)
        a, b = found[0]
        raise AssertionError(f"{len(found)} leaf pairs break monotonic_cst={list(monotonic_cst)}; "
                             f"e.g. leaf {a} ({scores[a]:.6g}) lies below leaf {b} "
                             f"({scores[b]:.6g})")


def witness(tree, a, b, monotonic_cst):
    """Two points x in leaf a and x' in leaf b, x' reached from x along the allowed directions:
    the ground truth that a pair found by ``violations`` must have."""
    leaves, low, high = leaf_boxes(tree, len(monotonic_cst))
    at = {int(leaf): k for k, leaf in enumerate(leaves)}
    la, ha, lb, hb = low[at[a]], high[at[a]], low[at[b]], high[at[b]]

    def point(lo, hi):
        # A point of (lo, hi]: hi itself when finite, a threshold's exact side.
        return hi if np.isfinite(hi) else (lo + 1.0 if np.isfinite(lo) else 0.0)

    def ordered(l_low, l_high, h_low, h_high):
        # x in (l_low, l_high] and x2 in (h_low, h_high] with x2 >= x, given h_high > l_low.
        x = point(l_low, min(l_high, h_high))
        return x, h_high if np.isfinite(h_high) else max(x, point(h_low, h_high))

    x, x2 = np.empty(len(la)), np.empty(len(la))
    for j, c in enumerate(np.asarray(monotonic_cst)):
        if c == 0:
            x[j] = x2[j] = point(max(la[j], lb[j]), min(ha[j], hb[j]))
        elif c == 1:
            x[j], x2[j] = ordered(la[j], ha[j], lb[j], hb[j])
        else:
            x2[j], x[j] = ordered(lb[j], hb[j], la[j], ha[j])
    return x, x2
