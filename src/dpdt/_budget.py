"""The budget front of policy trees: policy value against total cost, one tree per point.

For a price ``p >= 0`` (reward per unit of cost), the tree of largest ``value - p * cost`` is a
plain policy fit on ``rewards - p * costs``: both the value and the cost of a policy are sums
over its leaves. The points of the (cost, value) front that some price selects, the vertices of
its upper convex hull, are then found by the non-inferior set scheme (Cohon's, as Eisner and
Severance use it for parametric problems): fit at price 0 and at an infinite price, then at the
price of each edge between neighbouring points found, the slope of the line through them; a
fit above that line is a new point and splits the edge, one on it confirms the edge. ``K``
points take ``2K - 1`` fits when each is an optimum (one more for each end whose first fit is
beaten by a tie: as good and cheaper, or as cheap and better), more for a heuristic search,
whose points can hide one another; those of one round run side by side.
"""

from dataclasses import dataclass
from functools import partial

import numpy as np
from sklearn.utils.validation import check_array

from ._front import TIE_TOL
from ._runner import STOP, map_threads
from ._validation import binary_exponent

#: The rows of ``cost_front_``, from the dearest point (the best policy, price 0) to the cheapest.
COST_DTYPE = np.dtype([
    ("price_min", np.float64),
    ("price_max", np.float64),
    ("price", np.float64),
    ("cost", np.float64),
    ("value", np.float64),
    ("train_loss", np.float64),
    ("complexity", np.float64),
    ("n_leaves", np.int64),
    ("depth", np.int64),
])


def check_action_costs(action_costs, n_samples, actions, named):
    """Return ``action_costs`` as a float64 array of shape (n_samples, n_actions), checked.

    One cost per action (shape (n_actions,)) is every sample's. When the rewards were a
    DataFrame (``named``; ``actions`` are its column names), a pandas Series or DataFrame of
    costs naming the same actions is put in their order. Raises ValueError naming the problem:
    a shape that is neither, names that are not the actions, costs that are not numbers,
    NaN, infinite or negative.
    """
    if named and hasattr(action_costs, "iloc"):
        names = list(action_costs.columns if action_costs.ndim == 2 else action_costs.index)
        if set(names) != set(actions.tolist()) or len(names) != len(actions):
            raise ValueError(f"action_costs names the actions {names}, the rewards "
                             f"{actions.tolist()}")
        action_costs = np.asarray(action_costs)[..., [names.index(a) for a in actions.tolist()]]
    try:
        costs = check_array(action_costs, dtype=np.float64, ensure_2d=False, allow_nd=True,
                            ensure_all_finite=False, input_name="action_costs")
    except (TypeError, ValueError) as error:
        raise ValueError(f"action_costs must be numbers: {error}") from None
    n_actions = len(actions)
    if costs.shape == (n_actions,):
        costs = np.broadcast_to(costs, (n_samples, n_actions))
    elif costs.shape != (n_samples, n_actions):
        raise ValueError(f"action_costs must have shape ({n_actions},), one cost per action, or "
                         f"({n_samples}, {n_actions}), one per sample and action; got "
                         f"{costs.shape}")
    if np.isnan(costs).any():
        raise ValueError("action_costs has NaN: give every action of every sample a cost")
    if not np.isfinite(costs).all():
        raise ValueError("action_costs must be finite (it has an infinity)")
    if (costs < 0).any():
        raise ValueError(f"action_costs must be non-negative (it has {costs.min():.6g})")
    return np.ascontiguousarray(costs)


@dataclass
class _Point:
    """A fitted tree and where it stands: ``u`` its cost and ``z`` its value, both rescaled."""

    u: float
    z: float
    tree: object
    complexity: float
    price: float
    value: float
    cost: float
    regret: float


def budget_front(fit_at, X, rewards, costs, weight, alpha, first, threads):
    """Return ``cost_front_``, its trees, the number of fits made and whether all were.

    ``fit_at(table, n_jobs=, least_cost=)`` fits the policy of the rewards ``table`` on
    ``n_jobs`` threads (``least_cost``: the table is minus the costs, to fit with ``alpha`` 0)
    and returns its tree and complexity; ``first`` is that of ``rewards``, already fitted.
    ``rewards``, ``costs`` (n_samples, n_actions) and ``weight`` (the user's) are those of the
    training samples ``X``; ``alpha`` prices the complexity as the fits do, so the front is
    that of ``value - alpha * complexity``. ``threads`` is the fits' budget. Past the
    deadline of the context's stop (:func:`_runner.shared_stop`), no further round of fits
    is started, and the front is that of the points found. Raises ValueError if the total
    cost or reward of a policy overflows float64.
    """
    with np.errstate(over="ignore"):
        overflows = not (np.isfinite(weight @ costs.max(axis=1))
                         and np.isfinite(weight @ np.ptp(rewards, axis=1)))
    if overflows:
        raise ValueError("the total cost or reward of a policy (action_costs or rewards times "
                         "sample_weight, summed) overflows float64: divide them by a common "
                         "factor")
    # The costs' unit does not matter (the prices take its inverse): divided by a power of two,
    # exactly, the prices stay finite for costs of any size.
    shift = binary_exponent(costs)
    costs = np.ldexp(costs, -shift)
    total = weight.sum()
    best = np.average(rewards.max(axis=1), weights=weight)
    # Per-sample constants change no comparison between policies: offsets are left out of the
    # sums, so that a large one costs no precision, and the rest is rescaled to spreads of 1,
    # so that TIE_TOL is relative, whatever the units.
    low_reward, low_cost = rewards.min(axis=1), costs.min(axis=1)
    reward_scale = float(weight @ (rewards.max(axis=1) - low_reward)) or 1.0
    cost_scale = float(weight @ (costs.max(axis=1) - low_cost))

    def point(tree, complexity, price):
        # The action of each sample is the one predict gives it.
        chosen = np.argmax(tree.value[tree.apply(X), :, 0], axis=1)
        rows = np.arange(len(X))
        reward, cost = rewards[rows, chosen], costs[rows, chosen]
        value = float(np.average(reward, weights=weight))
        net = float(weight @ (reward - low_reward)) - alpha * total * complexity
        u = float(weight @ (cost - low_cost)) / cost_scale if cost_scale > 0 else 0.0
        with np.errstate(over="ignore"):
            price = float(np.ldexp(price, -shift))
        return _Point(u, net / reward_scale, tree, complexity, price, value,
                      float(np.ldexp(weight @ cost, shift)), best - value)

    def fit_at_price(price, n_jobs):
        # The least cost, whatever the complexity, is the limit of growing prices; its tree's
        # leaves hold minus the mean costs in the user's unit (the power of two undone, exactly).
        table = -np.ldexp(costs, shift) if np.isinf(price) else rewards - price * costs
        return fit_at(table, n_jobs=n_jobs, least_cost=np.isinf(price))

    points = [point(*first, 0.0)]
    n_fits = 1
    if cost_scale > 0:   # else every policy costs the same: the best one is the front
        points.append(point(*fit_at_price(np.inf, threads), np.inf))
        n_fits += 1
    fitted = set()
    stop = STOP.get()
    while True:
        hull = _upper_hull(points)
        edges = [edge for edge in zip(hull, hull[1:], strict=False) if edge not in fitted]
        if not edges or (stop is not None and stop.remaining <= 0):
            break
        prices = [_slope(points[a], points[b]) * reward_scale / cost_scale for a, b in edges]
        concurrent = min(threads, len(prices))
        found = map_threads(partial(fit_at_price, n_jobs=max(1, threads // concurrent)),
                            prices, concurrent)
        n_fits += len(prices)
        for edge, price, (tree, complexity) in zip(edges, prices, found, strict=True):
            fitted.add(edge)
            new = point(tree, complexity, price)
            if not any(abs(new.u - p.u) <= TIE_TOL and abs(new.z - p.z) <= TIE_TOL
                       for p in points):
                points.append(new)
    unit = reward_scale / cost_scale if cost_scale > 0 else 0.0   # no edge without costs
    return _rows(points, _upper_hull(points)[::-1], unit, shift), n_fits, not edges


def _slope(cheap, dear):
    return (dear.z - cheap.z) / (dear.u - cheap.u)


def _upper_hull(points):
    """Return the indices of the vertices of the points' upper convex hull, cheapest first.

    Only the part that some price selects: each vertex is dearer and better than the one
    before, by more than ``TIE_TOL``, and above the line through its neighbours by more than
    it (a point on an edge is no vertex). Of equal costs the better point stays.
    """
    order = sorted(range(len(points)), key=lambda k: (points[k].u, -points[k].z, k))
    hull = []
    for k in order:
        p = points[k]
        if hull and p.z <= points[hull[-1]].z + TIE_TOL:
            continue   # no better than a cheaper point
        while hull and p.u - points[hull[-1]].u <= TIE_TOL:
            hull.pop()   # as cheap, and better
        while len(hull) >= 2:
            a, b = points[hull[-2]], points[hull[-1]]
            height = (b.z - a.z) - (p.z - a.z) * (b.u - a.u) / (p.u - a.u)
            if height > TIE_TOL:
                break
            hull.pop()
        hull.append(k)
    return hull


def _rows(points, vertices, unit, shift):
    """Return the front's rows (dearest first) and trees, from its ``vertices``.

    ``unit`` turns a slope of the rescaled points into a price of the costs divided by
    ``2**shift``.
    """
    chosen = [points[k] for k in vertices]
    # A vertex is the best from the price of the edge to its dearer neighbour to that of the
    # edge to its cheaper one: in reward per unit of cost (infinite if beyond float64).
    with np.errstate(over="ignore"):
        slopes = [float(np.ldexp(_slope(cheap, dear) * unit, -shift))
                  for dear, cheap in zip(chosen, chosen[1:], strict=False)]
    lows, highs = [0.0, *slopes], [*slopes, np.inf]
    front = np.array(
        [(low, high, p.price, p.cost, p.value, p.regret, p.complexity, p.tree.n_leaves,
          p.tree.max_depth) for p, low, high in zip(chosen, lows, highs, strict=True)],
        dtype=COST_DTYPE)
    return front, [p.tree for p in chosen]
