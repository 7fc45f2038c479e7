"""Budgets of policy trees: the front of value against cost, by brute force and across scales."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from _policy_brute import all_policy_assignments, hull_vertices, policy_reward
from _trees import assert_tree_equal
from sklearn.exceptions import ConvergenceWarning

from dpdt import DPDTreePolicy, load


def tiny(seed, n=10, p=2, k=3, costs="sample", integer=False):
    """Tiny data, and costs: per sample and action, action 0 (the control) free ("sample"),
    none free ("positive"), or per action, the control free ("action")."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, p)).astype(float)
    R = rng.integers(-2, 3, (n, k)).astype(float) if integer else rng.normal(size=(n, k))
    C = rng.random((n, k)) + (costs == "positive")
    if costs == "sample":
        C[:, 0] = 0.0
    elif costs == "action":
        C = np.r_[0.0, rng.random(k - 1) + 0.5]
    return X, R, C, rng.random(n) + 0.1


def exact(**params):
    return DPDTreePolicy(splitter="exhaustive", **params)


def treated(policy, X, w):
    """Weighted count of the units that the policy does not leave to action 0 (the control)."""
    return float(w @ (policy.predict(X) != 0))


# ------------------------------------------------------------------ optimality: brute force

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("k, costs", [(2, "action"), (3, "sample"), (3, "action"),
                                      (3, "positive"), (4, "sample")])
def test_front_is_the_brute_force_hull(seed, depth, k, costs):
    X, R, C, w = tiny(seed, k=k, costs=costs)
    policy = exact(max_depth=depth).fit(X, R, w, action_costs=C)
    trees = all_policy_assignments(X, R, C, w, depth)
    cost, reward = hull_vertices(trees["cost"], trees["reward"])
    front = policy.cost_front_
    np.testing.assert_allclose(front["cost"], cost, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(front["value"] * w.sum(), reward, rtol=1e-9, atol=1e-12)
    assert policy.is_optimal_
    # Each row is the best from price_min to price_max, its fit's price among them.
    tol = 1e-9 * front["price_max"][:-1].max(initial=1.0)
    assert np.all(front["price_min"] <= front["price"] + tol)
    assert np.all(front["price"] <= front["price_max"] + tol)
    # The non-inferior set scheme's count: a fit per point and one per edge.
    assert policy.stats_["budget_fits"] <= 2 * len(front) - 1
    # Each row describes its tree: the cost and value of the tree's own actions.
    C = np.broadcast_to(C, R.shape)
    for row, tree in enumerate(policy.cost_trees_):
        chosen = np.argmax(tree.value[tree.apply(X), :, 0], axis=1)
        assert w @ C[np.arange(len(X)), chosen] == pytest.approx(front["cost"][row], rel=1e-12)
        assert policy_reward(chosen, R, w) == pytest.approx(reward[row], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", [0.01, 0.05, 100.0])
def test_alpha_prices_the_complexity_on_the_front(seed, scale):
    # The front of value - alpha * expected tests; the largest alpha leaves single leaves.
    X, R, C, w = tiny(seed, costs="action")
    alpha = scale * np.ptp(R)
    policy = exact(max_depth=2, alpha=alpha).fit(X, R, w, action_costs=C)
    trees = all_policy_assignments(X, R, C, w, 2)
    cost, net = hull_vertices(trees["cost"], trees["reward"] - alpha * trees["tested_weight"])
    front = policy.cost_front_
    np.testing.assert_allclose(front["cost"], cost, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose((front["value"] - alpha * front["complexity"]) * w.sum(), net,
                               rtol=1e-9, atol=1e-12)
    if scale == 100.0:
        assert np.all(front["n_leaves"] == 1)
    assert policy.select_tree(max_cost=1.0).alpha == alpha


@pytest.mark.parametrize("seed", range(4))
def test_ties_of_integer_rewards_and_costs(seed):
    # Small integers tie trees in cost, in value and on the hull's edges: no point on an edge
    # is a vertex, and of equal costs or values only the better or cheaper counts.
    X, R, _, w = tiny(seed, integer=True)
    C = np.random.default_rng(seed).integers(0, 3, R.shape).astype(float)
    policy = exact(max_depth=2).fit(X, R, action_costs=C)
    trees = all_policy_assignments(X, R, C, None, 2)
    cost, reward = hull_vertices(trees["cost"], trees["reward"])
    np.testing.assert_allclose(policy.cost_front_["cost"], cost, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(policy.cost_front_["value"] * len(X), reward, rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_treat_at_most_n_units(seed):
    # Unit costs: treating a unit (action 1 or 2) costs 1, the control 0.
    X, R, _, w = tiny(seed, costs="action")
    costs = [0.0, 1.0, 1.0]
    policy = exact(max_depth=2).fit(X, R, w, action_costs=costs)
    trees = all_policy_assignments(X, R, costs, w, 2)
    hull_cost, hull_reward = hull_vertices(trees["cost"], trees["reward"])
    for n in (0, 0.5, 1, 2, 3, 5, 8, 100):
        policy.select_tree(max_cost=n)
        assert treated(policy, X, w) <= n * (1 + 1e-12)
        # The best hull point within the budget ...
        best_hull = hull_reward[hull_cost <= n].max()
        assert policy_reward(policy.predict(X), R, w) == pytest.approx(best_hull, rel=1e-9)
        # ... which the best tree of that budget can beat, but never beyond lower_bound_.
        best_within = trees["reward"][trees["cost"] <= n + 1e-12].max()
        assert best_within >= best_hull - 1e-9
        bound_value = (w @ R.max(axis=1) - policy.lower_bound_ * w.sum())
        assert best_within <= bound_value + 1e-9
        assert policy.objective_ >= policy.lower_bound_ - 1e-12


def test_budget_between_points_gets_the_cheaper_point():
    # The documented limit: a budget between two hull points selects the cheaper one, even
    # where a tree off the hull uses more of the budget for a higher value.
    gaps = 0
    for seed in range(10):
        X, R, _, w = tiny(seed, costs="action")
        costs = [0.0, 1.0, 1.0]
        policy = exact(max_depth=2).fit(X, R, w, action_costs=costs)
        trees = all_policy_assignments(X, R, costs, w, 2)
        for n in np.linspace(0, w.sum(), 7):
            chosen = policy_reward(policy.select_tree(max_cost=n).predict(X), R, w)
            gaps += trees["reward"][trees["cost"] <= n + 1e-12].max() > chosen + 1e-9
    assert gaps > 0


def test_default_points_are_the_plain_fits_of_their_price():
    rng = np.random.default_rng(3)
    X = rng.random((400, 3))
    R = rng.normal(size=(400, 3))
    R[:, 1] += 2 * (X[:, 0] - 0.5)
    R[:, 2] += 2 * (X[:, 1] - 0.3)
    C = rng.random((400, 3))
    policy = DPDTreePolicy(max_depth=3).fit(X, R, action_costs=C)
    front = policy.cost_front_
    assert len(front) > 3
    assert np.all(np.diff(front["cost"]) < 0) and np.all(np.diff(front["value"]) < 0)
    # A heuristic search is no optimum: a price above 0 may well find a better tree than price 0
    # did, which then heads the front. Whatever the price, the point is the plain fit's.
    for price, tree in zip(front["price"], policy.cost_trees_, strict=True):
        plain = DPDTreePolicy(max_depth=3).fit(X, -C if np.isinf(price) else R - price * C)
        assert_tree_equal(tree, plain.tree_)


# ------------------------------------------------------------------ scales, threads, state

def _same_front(a, b, cost_factor=1.0, reward_factor=1.0):
    assert len(a.cost_front_) == len(b.cost_front_)
    np.testing.assert_allclose(b.cost_front_["cost"], a.cost_front_["cost"] * cost_factor,
                               rtol=1e-9)
    np.testing.assert_allclose(b.cost_front_["value"], a.cost_front_["value"] * reward_factor,
                               rtol=1e-9, atol=1e-300)
    for x, y in zip(a.cost_trees_, b.cost_trees_, strict=True):
        assert_tree_equal(x, y, skip=("value", "impurity"))


@pytest.mark.parametrize("factor", [1e-9, 1e9, 3.0])
def test_scale_of_rewards_and_costs_gives_the_same_trees(factor):
    X, R, C, w = tiny(1, n=12, p=3)
    base = exact(max_depth=2).fit(X, R, w, action_costs=C)
    both = exact(max_depth=2).fit(X, R * factor, w, action_costs=C * factor)
    _same_front(base, both, factor, factor)
    np.testing.assert_allclose(both.cost_front_["price_max"][:-1],
                               base.cost_front_["price_max"][:-1], rtol=1e-9)
    costs = exact(max_depth=2).fit(X, R, w, action_costs=C * factor)
    _same_front(base, costs, factor)
    # Prices are reward per unit of cost.
    np.testing.assert_allclose(costs.cost_front_["price_max"][:-1],
                               base.cost_front_["price_max"][:-1] / factor, rtol=1e-9)
    for n in base.cost_front_["cost"]:
        # The values are the rewards less the price times the costs (minus the costs at an
        # infinite price): the same actions.
        assert_tree_equal(base.select_tree(max_cost=n).tree_,
                          costs.select_tree(max_cost=n * factor).tree_, skip=("value", "impurity"))
        np.testing.assert_array_equal(base.predict(X), costs.predict(X))


@pytest.mark.parametrize("factor", [1e-320, 2.0**-1000, 1e300])
def test_costs_of_extreme_size_give_the_same_trees(factor):
    # Prices are rewards per unit of cost: beyond float64 for costs of 1e-320, yet the fits
    # see the same tables of rewards less price times costs.
    X, R, C, w = tiny(5, n=12, p=3, costs="action")
    base = exact(max_depth=2).fit(X, R, w, action_costs=C)
    scaled = exact(max_depth=2).fit(X, R, w, action_costs=C * factor)
    assert len(base.cost_front_) == len(scaled.cost_front_)
    for x, y in zip(base.cost_trees_, scaled.cost_trees_, strict=True):
        assert_tree_equal(x, y, skip=("value", "impurity"))
    np.testing.assert_allclose(scaled.cost_front_["cost"], base.cost_front_["cost"] * factor,
                               rtol=1e-6 if factor < 1e-300 else 1e-12)
    for n in base.cost_front_["cost"]:
        np.testing.assert_array_equal(base.select_tree(max_cost=n).predict(X),
                                      scaled.select_tree(max_cost=n * factor).predict(X))


def test_offsets_of_rewards_and_costs_give_the_same_trees():
    X, R, C, w = tiny(2, n=12, p=3)
    base = DPDTreePolicy(max_depth=2).fit(X, R, w, action_costs=C)
    shifted = DPDTreePolicy(max_depth=2).fit(X, R + 100.0 * np.arange(12)[:, None], w,
                                             action_costs=C + 100.0)
    assert len(base.cost_front_) == len(shifted.cost_front_)
    for x, y in zip(base.cost_trees_, shifted.cost_trees_, strict=True):
        assert_tree_equal(x, y, skip=("value", "impurity"))


def test_threads_give_the_same_front():
    rng = np.random.default_rng(5)
    X = rng.random((600, 4))
    R = rng.normal(size=(600, 3))
    R[:, 1] += X[:, 0] > 0.5
    C = np.array([0.0, 1.0, 1.5])
    one = DPDTreePolicy(max_depth=3, n_jobs=1).fit(X, R, action_costs=C)
    three = DPDTreePolicy(max_depth=3, n_jobs=3).fit(X, R, action_costs=C)
    np.testing.assert_array_equal(one.cost_front_, three.cost_front_)
    for a, b in zip(one.cost_trees_, three.cost_trees_, strict=True):
        assert_tree_equal(a, b)


def test_time_limit_is_one_deadline_for_the_front():
    rng = np.random.default_rng(6)
    X = rng.random((3000, 5))
    R = rng.normal(size=(3000, 3))
    R[:, 1] += X[:, 0]
    with pytest.warns(ConvergenceWarning) as caught:
        policy = DPDTreePolicy(max_depth=4, splitter="exhaustive", time_limit=1e-6).fit(
            X, R, action_costs=[0.0, 1.0, 1.0])
    # The fits of price 0 and of the least cost always run; past the deadline no other.
    assert policy.stats_["budget_fits"] == 2 and not policy.is_optimal_
    budget = [str(w.message) for w in caught if "cost_front_" in str(w.message)]
    assert len(budget) == 1 and "not every price was fitted" in budget[0]
    assert treated(policy.select_tree(max_cost=0.0), X, np.ones(3000)) == 0


def test_weights_act_as_repeated_rows():
    X, R, C, _ = tiny(4, n=10)
    counts = np.arange(10) % 3 + 1
    weighted = exact(max_depth=2).fit(X, R, counts, action_costs=C)
    repeated = exact(max_depth=2).fit(np.repeat(X, counts, axis=0),
                                      np.repeat(R, counts, axis=0),
                                      action_costs=np.repeat(C, counts, axis=0))
    np.testing.assert_allclose(weighted.cost_front_["cost"], repeated.cost_front_["cost"],
                               rtol=1e-12)
    np.testing.assert_allclose(weighted.cost_front_["value"], repeated.cost_front_["value"],
                               rtol=1e-12)


def test_max_cost_parameter_selects_and_select_tree_resets_it():
    X, R, C, w = tiny(0)
    policy = exact(max_depth=2).fit(X, R, w, action_costs=C)
    middle = float(policy.cost_front_["cost"][1])
    budgeted = exact(max_depth=2, max_cost=middle).fit(X, R, w, action_costs=C)
    assert_tree_equal(budgeted.tree_, policy.cost_trees_[1])
    assert budgeted.score(X, R) == pytest.approx(
        exact(max_depth=2).fit(X, R, w, action_costs=C).set_params(max_cost=middle)
        .score(X, R))
    assert budgeted.select_tree(max_leaves=1).max_cost is None
    assert budgeted.get_n_leaves() == 1
    # Cost and leaf budgets together: the best row meeting both.
    leaves = int(np.median(policy.cost_front_["n_leaves"]))
    budgeted.select_tree(max_cost=1e9, max_leaves=leaves)
    assert budgeted.get_n_leaves() <= leaves
    rows = policy.cost_front_[policy.cost_front_["n_leaves"] <= leaves]
    assert budgeted.cost_front_["value"][budgeted._cost_row()] == rows["value"].max()


def test_refit_without_costs_forgets_the_front():
    X, R, C, w = tiny(0)
    policy = exact(max_depth=2).fit(X, R, w, action_costs=C)
    policy.fit(X, R, w)
    assert not hasattr(policy, "cost_front_")
    with pytest.raises(ValueError, match="fitted without action_costs"):
        policy.select_tree(max_cost=1.0)


def test_equal_costs_give_a_single_point():
    X, R, _, w = tiny(0)
    policy = exact(max_depth=2).fit(X, R, w, action_costs=np.full(R.shape, 2.0))
    assert len(policy.cost_front_) == 1 and policy.stats_["budget_fits"] == 1
    assert_tree_equal(policy.cost_trees_[0], policy.set_params(max_cost=None).tree_)


def test_named_costs_follow_the_actions():
    X, R, C, w = tiny(0)
    rewards = pd.DataFrame(R, columns=["none", "mail", "call"])
    by_name = pd.Series({"call": 2.0, "none": 0.0, "mail": 1.0})
    named = DPDTreePolicy(max_depth=2).fit(X, rewards, action_costs=by_name)
    plain = DPDTreePolicy(max_depth=2).fit(X, R, action_costs=[0.0, 1.0, 2.0])
    np.testing.assert_array_equal(named.cost_front_, plain.cost_front_)
    per_sample = pd.DataFrame(C, columns=["none", "mail", "call"])[["call", "none", "mail"]]
    named.fit(X, rewards, action_costs=per_sample)
    plain.fit(X, R, action_costs=C)
    np.testing.assert_array_equal(named.cost_front_, plain.cost_front_)
    with pytest.raises(ValueError, match="names the actions"):
        named.fit(X, rewards, action_costs=pd.Series({"none": 0.0, "sms": 1.0, "call": 2.0}))


def test_save_and_load_round_trip(tmp_path):
    X, R, C, w = tiny(3)
    policy = exact(max_depth=2).fit(X, R, w, action_costs=C).select_tree(max_cost=1.0)
    path = tmp_path / "policy.json"
    policy.save(path)
    loaded = load(path)
    assert loaded.max_cost == policy.max_cost
    np.testing.assert_array_equal(loaded.cost_front_, policy.cost_front_)
    for a, b in zip(policy.cost_trees_, loaded.cost_trees_, strict=True):
        assert_tree_equal(a, b)
    np.testing.assert_array_equal(loaded.predict(X), policy.predict(X))
    assert loaded.lower_bound_ == policy.lower_bound_
    assert loaded.select_tree(max_cost=0.5).max_cost == 0.5


def _tampered(tmp_path, policy, change):
    from dpdt._io import _digest

    path = tmp_path / "policy.json"
    policy.save(path)
    document = json.loads(path.read_text())
    change(document)
    document.pop("sha256")
    document["sha256"] = _digest(document)
    path.write_text(json.dumps(document))
    return path


def _column(document, name):
    return document["attributes"]["cost_front_"]["data"][name]


@pytest.mark.parametrize("change, message", [
    (lambda d: d["attributes"].pop("cost_trees_"), "cost_front_ and cost_trees_"),
    (lambda d: (d["attributes"].pop("cost_front_"), d["attributes"].pop("cost_trees_"),
                d["attributes"].pop("_cost_alpha")), "max_cost is set"),
    (lambda d: _column(d, "price").__setitem__(1, -5.0), "values no fit makes"),
    (lambda d: _column(d, "cost").reverse(), "values no fit makes"),
    (lambda d: _column(d, "price_max").__setitem__(0, 1e300), "values no fit makes"),
    (lambda d: _column(d, "train_loss").__setitem__(0, "nan"), "values no fit makes"),
    (lambda d: _column(d, "n_leaves").__setitem__(0, 99), "does not describe its trees"),
    (lambda d: d["attributes"].__setitem__("_cost_alpha", "x"), "_cost_alpha"),
])
def test_load_refuses_a_broken_front(tmp_path, change, message):
    X, R, C, w = tiny(3)
    policy = exact(max_depth=2).fit(X, R, w, action_costs=C).select_tree(max_cost=1.0)
    with pytest.raises(ValueError, match=message):
        load(_tampered(tmp_path, policy, change))


# ------------------------------------------------------------------ refused inputs

@pytest.mark.parametrize("costs, message", [
    (np.zeros(2), r"shape \(3,\), one cost per action, or \(10, 3\)"),
    (np.zeros((10, 2)), r"got \(10, 2\)"),
    (np.zeros((9, 3)), r"got \(9, 3\)"),
    (np.zeros((10, 3, 1)), "shape"),
    (np.r_[0.0, np.nan, 1.0], "NaN"),
    (np.r_[0.0, np.inf, 1.0], "finite"),
    (np.r_[0.0, -1.0, 1.0], "non-negative"),
    (np.r_[[-1e-300], np.zeros(29)].reshape(10, 3), "non-negative"),
    (["a", "b", "c"], "numbers"),
    (np.array([0, 1j, 1]), "numbers"),
])
def test_invalid_costs_are_refused(costs, message):
    X, R, _, _ = tiny(0)
    with pytest.raises(ValueError, match=message):
        DPDTreePolicy(max_depth=1).fit(X, R, action_costs=costs)


@pytest.mark.parametrize("costs, weight", [([0.0, 1e308, 1.0], None),
                                           ([0.0, 100.0, 1.0], np.full(10, 1e307))])
def test_overflowing_totals_are_refused(costs, weight):
    X, R, _, _ = tiny(0)
    with pytest.raises(ValueError, match="overflows float64: divide them"):
        DPDTreePolicy(max_depth=1).fit(X, R, weight, action_costs=costs)


def test_budgets_out_of_reach_are_refused():
    X, R, C, w = tiny(0)
    C = C + 1.0   # every action costs something
    with pytest.raises(ValueError, match="pass action_costs"):
        DPDTreePolicy(max_depth=1, max_cost=1.0).fit(X, R)
    policy = DPDTreePolicy(max_depth=1).fit(X, R, w, action_costs=C)
    with pytest.raises(ValueError, match="the cheapest costs"):
        policy.select_tree(max_cost=0.1)
    with pytest.raises(ValueError, match="max_cost"):
        policy.select_tree(max_cost=-1.0)
    with pytest.raises(ValueError, match="the cheapest costs"):
        policy.set_params(max_cost=0.1).predict(X)
    policy.select_tree(max_cost=1e9)
    with pytest.raises(ValueError, match="fitted for alpha=0.0"):
        policy.set_params(alpha=0.5).predict(X)


def test_texts_name_the_net_reward_of_a_budget():
    from dpdt import export_text

    X, R, _, w = tiny(0, costs="action")
    policy = DPDTreePolicy(max_depth=2).fit(X, R, w, action_costs=[0.0, 1.0, 1.0])
    assert "mean reward" in export_text(policy) and "net reward" not in export_text(policy)
    policy.select_tree(max_cost=2.0)
    assert "net reward" in export_text(policy) and "mean reward" not in export_text(policy)


@pytest.mark.parametrize("seed", range(3))
def test_a_search_stopped_early_bounds_the_optimal_policy(seed):
    # A policy search stopped after few states (under a time limit, so by rounds over every
    # root feature) reports a bound of the objective that the optimum, found unstopped, never
    # beats, and that rises above 0 before the search certifies.
    rng = np.random.default_rng(seed)
    X = rng.random((200, 4))
    R = rng.normal(size=(200, 3))
    R[:, 1] += 2.0 * (X[:, 0] > 0.5) - 1.0
    R[:, 2] += 2.0 * (X[:, 1] * X[:, 2] > 0.25) - 1.0
    optimum = exact(max_depth=3, full_front=False, n_jobs=1).fit(X, R)
    assert optimum.is_optimal_
    bounds = []
    for max_states in (5, 10, 20, 40, 80, 160, 320):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            policy = exact(max_depth=3, full_front=False, n_jobs=1, max_states=max_states,
                           time_limit=3600).fit(X, R)
        if policy.is_optimal_:
            break
        assert policy.lower_bound_ <= optimum.objective_ + 1e-12
        assert policy.objective_ >= policy.lower_bound_ - 1e-12
        bounds.append(policy.lower_bound_)
    assert bounds and max(bounds) > 0.0
