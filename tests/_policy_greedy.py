"""A welfare-greedy policy tree, written for clarity: the ground truth of the default's floor.

At each node the split of largest welfare gain (the sum over the children of the reward of
their best action, less the node's), among the splits that leave each child at least 5 % of
the node's samples, as econml's greedy ``PolicyTree`` grows them (``min_balancedness_tol=0.45``).
Where no split gains (every split keeps the node's best action on both sides), the split of
best least-squares fit of the reward contrasts (each action's reward less the mean over the
actions) decides, not the first tie. The last level's split is any that gains most, whatever
its balance: no later split is at stake there.
"""

import numpy as np

SHARE = 0.05


def _contrast_fit(sums, weight):
    centred = sums - sums.mean()
    return float(centred @ centred) / weight


def _best_split(X, R, idx, least):
    """(gain, contrast fit, feature, threshold) of each valid split of the rows idx."""
    total, m = R[idx].sum(axis=0), len(idx)
    splits = []
    for f in range(X.shape[1]):
        order = idx[np.argsort(X[idx, f], kind="stable")]
        x = X[order, f]
        left = np.cumsum(R[order], axis=0)[:-1]
        for j in range(m - 1):
            n_left = j + 1
            if x[j + 1] == x[j] or min(n_left, m - n_left) < least:
                continue
            right = total - left[j]
            gain = max(0.0, left[j].max() + right.max() - total.max())
            fit = _contrast_fit(left[j], n_left) + _contrast_fit(right, m - n_left)
            splits.append((gain, fit, f, (x[j] + x[j + 1]) / 2))
    return splits


def welfare_greedy_value(X, R, max_depth):
    """Total training reward of the welfare-greedy tree of depth at most ``max_depth``."""
    X, R = np.asarray(X, dtype=float), np.asarray(R, dtype=float)

    def grow(idx, depth):
        total = R[idx].sum(axis=0)
        m = len(idx)
        if depth == 0 or m < 2:
            return total.max()
        last = depth == 1
        splits = _best_split(X, R, idx, 1 if last else max(1, int(np.ceil(SHARE * m))))
        if not splits:
            return total.max()
        tol = 1e-11 * (abs(total.max()) + m)
        best = max(s[0] for s in splits)
        if best <= tol and not last:
            top = max(s[1] for s in splits)
            chosen = next(s for s in splits if s[1] >= top - 1e-11 * abs(top))
        else:
            chosen = next(s for s in splits if s[0] >= best - tol)
        go_left = X[idx, chosen[2]] <= chosen[3]
        return grow(idx[go_left], depth - 1) + grow(idx[~go_left], depth - 1)

    return grow(np.arange(len(R)), max_depth)
