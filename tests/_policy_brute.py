"""Brute-force ground truth for policy trees on tiny data (numpy only, no dpdt import).

A policy tree assigns each leaf the action of largest total weighted reward among its samples
(ties: the lowest action index) and earns that total; a tree earns the sum over its leaves. It
is penalised per split: ``alpha * W_s`` with ``complexity="expected_tests"`` (``W_s`` the
weight reaching the split), ``alpha * W`` with ``"n_splits"`` (``W`` the total weight), so
that ``(best reward - earned + penalties) / W`` is ``train_loss + alpha * complexity`` with the
train loss the mean regret against each sample's best action.

Splits follow dpdt's trees (docs/guide.md, "Missing values"): a threshold between consecutive
distinct present values of a feature at the node, ``x <= t`` left, and, where the node has
missing values of that feature, every such threshold twice (missing values left, or right),
plus the split of present values against missing ones; both sides non-empty.

The search is the Bellman recursion over sample sets with memoisation, its last level
vectorised, so depth 3 is affordable on a few dozen samples; :func:`all_policy_trees` lists
every tree instead (tiny data only), for fronts.
"""

from __future__ import annotations

import numpy as np


def _as_inputs(X, R, w):
    X = np.asarray(X, dtype=float)
    R = np.asarray(R, dtype=float)
    w = np.ones(len(R)) if w is None else np.asarray(w, dtype=float)
    assert X.ndim == 2 and R.ndim == 2 and len(X) == len(R) == len(w) and np.all(w > 0)
    return X, R, w


def partitions(X, idx):
    """Every (feature, go_left mask over ``idx``) a split of the node holding ``idx`` makes."""
    for f in range(X.shape[1]):
        x = X[idx, f]
        missing = np.isnan(x)
        present = np.unique(x[~missing])
        thresholds = present if missing.any() else present[:-1]
        for t in thresholds:
            for missing_left in ((False, True) if missing.any() else (False,)):
                go_left = np.where(missing, missing_left, x <= t)
                if go_left.any() and not go_left.all():
                    yield f, go_left


def leaf_reward(R, w, idx):
    """Total weighted reward of the best single action on ``idx``, and that action."""
    totals = w[idx] @ R[idx]
    action = int(np.argmax(totals))
    return float(totals[action]), action


def _best_stump(X, R, w, idx, penalty):
    """Best of the leaf and every split into two leaves, minus ``penalty`` for a split."""
    best, _ = leaf_reward(R, w, idx)
    weighted = w[idx, np.newaxis] * R[idx]
    for f in range(X.shape[1]):
        x = X[idx, f]
        missing = np.isnan(x)
        order = np.argsort(np.where(missing, np.inf, x), kind="stable")
        n_present = int((~missing).sum())
        xs = x[order][:n_present]
        prefix = np.cumsum(weighted[order][:n_present], axis=0)
        # Boundaries after each last copy of a distinct value.
        ends = np.flatnonzero(np.r_[xs[1:] != xs[:-1], True]) if n_present else np.array([], int)
        nan_sum = weighted[missing].sum(axis=0)
        present_sum = prefix[-1] if n_present else np.zeros(R.shape[1])
        for e in ends:
            left = prefix[e]
            right = present_sum - left
            options = [(left, right + nan_sum, e + 1, n_present - e - 1 + missing.sum())]
            if missing.any():
                options.append((left + nan_sum, right, e + 1 + missing.sum(), n_present - e - 1))
            for lsum, rsum, nl, nr in options:
                if nl and nr:
                    best = max(best, lsum.max() + rsum.max() - penalty)
    return best


def best_policy_value(X, R, w=None, max_depth=2, alpha=0.0, complexity="expected_tests"):
    """Largest ``reward - penalties`` (weighted totals) of a tree of depth <= ``max_depth``."""
    X, R, w = _as_inputs(X, R, w)
    W = w.sum()
    memo = {}

    def best(idx, d):
        key = (idx.tobytes(), d)
        if key in memo:
            return memo[key]
        penalty = alpha * (w[idx].sum() if complexity == "expected_tests" else W)
        if d == 1:
            value = _best_stump(X, R, w, idx, penalty)
        else:
            value, _ = leaf_reward(R, w, idx)
            if d > 1:
                for _, go_left in partitions(X, idx):
                    value = max(value, best(idx[go_left], d - 1) + best(idx[~go_left], d - 1)
                                - penalty)
        memo[key] = value
        return value

    return best(np.arange(len(R)), max_depth)


def best_objective(X, R, w=None, max_depth=2, alpha=0.0, complexity="expected_tests"):
    """Least ``train_loss + alpha * complexity``: mean regret against each sample's best."""
    X, R, w = _as_inputs(X, R, w)
    ceiling = float(w @ R.max(axis=1))
    return (ceiling - best_policy_value(X, R, w, max_depth, alpha, complexity)) / w.sum()


def policy_reward(actions, R, w=None):
    """Total weighted reward of taking ``actions`` (one action index per sample)."""
    R = np.asarray(R, dtype=float)
    w = np.ones(len(R)) if w is None else np.asarray(w, dtype=float)
    return float(w @ R[np.arange(len(R)), np.asarray(actions)])


def all_policy_trees(X, R, w=None, max_depth=2):
    """Every tree of depth <= ``max_depth``: arrays ``reward``, ``tested_weight``, ``n_splits``.

    ``tested_weight`` sums the weight reaching each split (W times the expected tests). Tiny
    data only: the count multiplies the splits of every node.
    """
    X, R, w = _as_inputs(X, R, w)
    assert len(R) <= 12 and X.shape[1] <= 3 and max_depth <= 2, "tiny problems only"

    def trees(idx, d):
        reward, _ = leaf_reward(R, w, idx)
        found = [(np.array([reward]), np.zeros(1), np.zeros(1, int))]
        if d > 0:
            for _, go_left in partitions(X, idx):
                lr, lt, ls = trees(idx[go_left], d - 1)
                rr, rt, rs = trees(idx[~go_left], d - 1)
                found.append(((lr[:, None] + rr[None, :]).ravel(),
                              (lt[:, None] + rt[None, :]).ravel() + w[idx].sum(),
                              (ls[:, None] + rs[None, :]).ravel() + 1))
        return tuple(np.concatenate(part) for part in zip(*found, strict=True))

    reward, tested, splits = trees(np.arange(len(R)), max_depth)
    return {"reward": reward, "tested_weight": tested, "n_splits": splits}


def all_policy_assignments(X, R, C, w=None, max_depth=2):
    """Every tree of depth <= ``max_depth`` with every action at each leaf: arrays ``reward``,
    ``cost`` and ``tested_weight`` (as :func:`all_policy_trees` counts it).

    ``C`` holds the cost of each action, per sample (n, k) or for all (k,); the totals are
    weighted. Tiny data only: each leaf multiplies the count by the number of actions.
    """
    X, R, w = _as_inputs(X, R, w)
    C = np.broadcast_to(np.asarray(C, dtype=float), R.shape)
    assert len(R) <= 12 and X.shape[1] <= 3 and max_depth <= 2, "tiny problems only"

    def trees(idx, d):
        # A leaf, one entry per action.
        found = [(w[idx] @ R[idx], w[idx] @ C[idx], np.zeros(R.shape[1]))]
        if d > 0:
            for _, go_left in partitions(X, idx):
                left, right = trees(idx[go_left], d - 1), trees(idx[~go_left], d - 1)
                reward, cost, tested = ((a[:, None] + b[None, :]).ravel()
                                        for a, b in zip(left, right, strict=True))
                found.append((reward, cost, tested + w[idx].sum()))
        return tuple(np.concatenate(part) for part in zip(*found, strict=True))

    reward, cost, tested = trees(np.arange(len(R)), max_depth)
    return {"reward": reward, "cost": cost, "tested_weight": tested}


def hull_vertices(cost, reward, tol=1e-9):
    """The (cost, reward) points that some price ``p >= 0`` makes the only best of ``reward - p
    * cost``, in the limit ``p -> 0`` for the best reward: the vertices of the upper convex hull,
    dearest first. ``tol`` is relative to the spreads of the points.

    Found as the points whose interval of such prices is not empty: the bounds each other point
    puts on it, checked over the points that no other beats on both cost and reward.
    """
    cu, ru = np.ptp(cost) or 1.0, np.ptp(reward) or 1.0
    scaled = np.column_stack([cost / cu, reward / ru])
    # One point per position (to rounding), its coordinates as computed.
    points = scaled[np.unique(scaled.round(10), axis=0, return_index=True)[1]]
    efficient = [P for P in points
                 if not np.any((points[:, 0] <= P[0] + tol) & (points[:, 1] >= P[1] - tol)
                               & ((points[:, 0] < P[0] - tol) | (points[:, 1] > P[1] + tol)))]
    vertices = []
    for P in efficient:
        # Points within tol of P in both are P itself, to rounding.
        others = np.array([Q for Q in efficient if np.any(np.abs(Q - P) > tol)])
        if not len(others):
            vertices.append(P)
            continue
        dearer, cheaper = others[others[:, 0] > P[0]], others[others[:, 0] < P[0]]
        low = max(0.0, np.max((dearer[:, 1] - P[1]) / (dearer[:, 0] - P[0]), initial=0.0))
        high = np.min((P[1] - cheaper[:, 1]) / (P[0] - cheaper[:, 0]), initial=np.inf)
        if high - low > tol * max(1.0, high if np.isfinite(high) else 1.0) and not any(
                np.all(np.abs(V - P) <= tol) for V in vertices):
            vertices.append(P)
    vertices = np.array(sorted(vertices, key=lambda P: -P[0]))
    return vertices[:, 0] * cu, vertices[:, 1] * ru
