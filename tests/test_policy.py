"""DPDTreePolicy against brute force, across scales, saved and loaded, and as an estimator."""

import numpy as np
import pandas as pd
import pytest
from _policy_brute import all_policy_trees, best_objective, best_policy_value, policy_reward
from _policy_greedy import welfare_greedy_value
from _trees import assert_tree_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpdt import DPDTreeClassifier, DPDTreePolicy, export_text, load


def tiny(seed, n=24, p=3, k=3, missing=0.0, integer_rewards=False):
    """Tiny data: few distinct feature values, rewards continuous or small integers (ties)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, p)).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    R = rng.integers(-2, 3, (n, k)).astype(float) if integer_rewards else rng.normal(size=(n, k))
    return X, R, rng.random(n) + 0.1


def train_reward(policy, X, R, w=None):
    """Total weighted reward of the policy's actions on the training rows."""
    return policy_reward(policy.predict(X), R, w)


# ------------------------------------------------------------------ optimality: brute force

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("k", [2, 4, 6])
def test_exhaustive_search_reaches_the_brute_force_optimum(seed, depth, k):
    X, R, w = tiny(seed, n=18 if depth == 3 else 24, k=k)
    policy = DPDTreePolicy(max_depth=depth, splitter="exhaustive").fit(X, R, w)
    best = best_policy_value(X, R, w, depth)
    assert train_reward(policy, X, R, w) == pytest.approx(best, rel=1e-12, abs=1e-12)
    assert policy.is_optimal_
    # The front reports the tree's regret, the brute force's optimum.
    assert policy.objective_ == pytest.approx(best_objective(X, R, w, depth), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_ties_and_integer_rewards(seed):
    # Small integer rewards tie between actions and between trees everywhere.
    X, R, w = tiny(seed, integer_rewards=True)
    for depth in (1, 2):
        policy = DPDTreePolicy(max_depth=depth, splitter="exhaustive").fit(X, R)
        assert train_reward(policy, X, R) == pytest.approx(best_policy_value(X, R, None, depth))


def test_tied_actions_go_to_the_first():
    X = np.zeros((4, 1))
    R = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    policy = DPDTreePolicy(max_depth=2).fit(X, R)   # actions 0 and 1 earn 4, action 2 earns 4
    np.testing.assert_array_equal(policy.predict(X), [0, 0, 0, 0])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("depth", [1, 2])
def test_missing_values_reach_the_brute_force_optimum(seed, depth):
    X, R, w = tiny(seed, n=16, missing=0.3)
    policy = DPDTreePolicy(max_depth=depth, splitter="exhaustive", max_bins=None).fit(X, R, w)
    best = best_policy_value(X, R, w, depth)
    # Prediction routes missing values as the fit did: the reward reported is the reward.
    assert train_reward(policy, X, R, w) == pytest.approx(best, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
def test_front_is_the_brute_force_trade_off(seed, complexity):
    # Every alpha selects a tree of the brute force's least objective.
    X, R, w = tiny(seed, n=10, p=2)
    policy = DPDTreePolicy(max_depth=2, splitter="exhaustive", complexity=complexity)
    policy.fit(X, R, w)
    trees = all_policy_trees(X, R, w, max_depth=2)
    spread = np.ptp(R)
    for alpha in (0.0, 0.01 * spread, 0.05 * spread, 0.2 * spread, 10 * spread):
        expected = best_objective(X, R, w, 2, alpha, complexity)
        assert policy.set_params(alpha=alpha).objective_ == pytest.approx(expected, abs=1e-12)
    assert len(trees["reward"]) > len(policy.pareto_front_)


def test_weights_act_as_repeated_rows():
    X, R, _ = tiny(3, n=20)
    counts = np.arange(20) % 3 + 1
    weighted = DPDTreePolicy(max_depth=2, splitter="exhaustive").fit(X, R, counts)
    repeated = DPDTreePolicy(max_depth=2, splitter="exhaustive").fit(
        np.repeat(X, counts, axis=0), np.repeat(R, counts, axis=0))
    assert_tree_equal(weighted.tree_, repeated.tree_, skip=("n_node_samples",
                                                            "weighted_n_node_samples"),
                      rtol=1e-12)


def test_default_is_at_least_the_greedy_tree():
    rng = np.random.default_rng(0)
    X = rng.random((3000, 6))
    R = rng.normal(size=(3000, 4))
    R[np.arange(3000), ((X[:, 0] > 0.5) * 2 + (X[:, 1] > 0.3)).astype(int)] += 1.0
    for depth in (2, 3, 4):
        greedy = DPDTreePolicy(max_depth=depth, splitter="cart", candidates=1).fit(X, R)
        default = DPDTreePolicy(max_depth=depth).fit(X, R)
        assert train_reward(default, X, R) >= train_reward(greedy, X, R) - 1e-9


def heavy_tailed(seed, n=600):
    """Rewards of two small effects under heavy-tailed noise, as doubly robust scores have."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 30, (n, 4)).astype(float)
    R = rng.standard_t(1.5, size=(n, 3))
    R[:, 1] += 0.5 * (X[:, 0] > 15)
    R[:, 2] += 0.5 * (X[:, 1] > 10)
    return X, R


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [4, 5])
def test_default_is_at_least_the_welfare_greedy_tree(seed, depth):
    # The largest welfare gain is often that of a split that cuts off a few extreme rewards:
    # the generator keeps 5 % of a node on each side, as econml's greedy tree does, so that
    # the greedy tree is one of the default's candidate trees at every depth, budget-1 levels
    # included, and the default is never below it.
    X, R = heavy_tailed(seed)
    greedy = welfare_greedy_value(X, R, depth)
    one = DPDTreePolicy(max_depth=depth, splitter="cart", candidates=1).fit(X, R)
    assert train_reward(one, X, R) == pytest.approx(greedy, rel=1e-12)
    default = DPDTreePolicy(max_depth=depth).fit(X, R)
    assert train_reward(default, X, R) >= greedy - 1e-9 * abs(greedy)


def flat_quadrants(n_actions, side, informative):
    """Action 1 pays 1 in one quadrant of two features, -2 in the quadrant beside it and -5 in
    the other half; action 0 pays 0. No single split leaves a child where action 1 pays on
    average (the regret's decrease is 0 for every split at the root), yet the depth-2 tree
    that splits off the half, then the quadrant, earns every sample's best action."""
    rng = np.random.default_rng(side + n_actions)
    cells = (np.arange(side) + 0.5) / side
    a, b = (c.ravel() for c in np.meshgrid(cells, cells))
    n = side * side
    X = rng.permutation(n)[:, np.newaxis] / n * np.ones((1, 3))   # an uninformative feature
    X[:, informative[0]], X[:, informative[1]] = a, b
    effect = np.where(a < 0.5, -5.0, np.where(b < 0.5, -2.0, 1.0))
    R = np.column_stack([np.zeros(n), effect] + [np.full(n, -0.2)] * (n_actions - 2))
    return X, R


@pytest.mark.parametrize("n_actions", [2, 3])
@pytest.mark.parametrize("side", [8, 14])
@pytest.mark.parametrize("informative", [(0, 1), (1, 2), (2, 0)])
def test_default_gains_where_the_regret_is_flat_at_the_root(n_actions, side, informative):
    # A generator that stops at zero gain, or splits where the first tie falls, misses the
    # optimum; the default must reach it, which is at least what any greedy tree earns, those
    # that split at zero gain included.
    X, R = flat_quadrants(n_actions, side, informative)
    policy = DPDTreePolicy(max_depth=2).fit(X, R)
    assert train_reward(policy, X, R) == pytest.approx(best_policy_value(X, R, None, 2), abs=1e-9)


@pytest.mark.parametrize("n_actions", [2, 3])
@pytest.mark.parametrize("side", [8, 14])
@pytest.mark.parametrize("informative", [(0, 1), (1, 2), (2, 0)])
def test_greedy_tree_splits_by_the_contrasts_where_no_split_gains(n_actions, side, informative):
    # The greedy tree alone (a budget of 1, as the default's deep levels have) splits where the
    # actions' effects differ most when no split gains, not where the first tie falls: here
    # the half, after which the quadrant's split earns the optimum.
    X, R = flat_quadrants(n_actions, side, informative)
    greedy = DPDTreePolicy(max_depth=2, splitter="cart", candidates=1).fit(X, R)
    assert train_reward(greedy, X, R) == pytest.approx(best_policy_value(X, R, None, 2), abs=1e-9)


@pytest.mark.parametrize("splitter", ["cart", "topk"])
def test_splitters_serve_policies(splitter):
    X, R, w = tiny(4, n=60)
    policy = DPDTreePolicy(max_depth=3, splitter=splitter, candidates=2).fit(X, R, w)
    exact = DPDTreePolicy(max_depth=3, splitter="exhaustive").fit(X, R, w)
    assert train_reward(policy, X, R, w) <= train_reward(exact, X, R, w) + 1e-9
    assert not policy.is_optimal_ and np.isnan(policy.lower_bound_)


# ------------------------------------------------------------------------------ invariance

@pytest.mark.parametrize("change", [
    lambda R: R * 1e-9, lambda R: R * 1e9, lambda R: R * 3.7,
    lambda R: R + 1e6, lambda R: R + np.arange(len(R))[:, None] * 1e3,
    # Rewards whose sums over a leaf overflow float64, their means being finite.
    lambda R: R * 1e307])
def test_scale_and_offsets_of_the_rewards_give_the_same_tree(change):
    rng = np.random.default_rng(1)
    X = rng.random((400, 4))
    R = rng.normal(size=(400, 3))
    R[:, 1] += X[:, 0] > 0.4
    R[:, 2] += (X[:, 1] > 0.6) * 1.5
    changed = change(R)
    for params in (dict(max_depth=3), dict(max_depth=2, splitter="exhaustive")):
        one = DPDTreePolicy(**params).fit(X, R)
        other = DPDTreePolicy(**params).fit(X, changed)
        assert_tree_equal(one.tree_, other.tree_, skip=("value", "impurity"))
        np.testing.assert_array_equal(one.predict(X), other.predict(X))
        # The leaves hold the mean rewards, in the rewards' unit.
        leaves = other.tree_.apply(X)
        for leaf in np.unique(leaves):
            mean = np.ldexp(np.ldexp(changed[leaves == leaf], -1000).mean(axis=0), 1000)
            np.testing.assert_allclose(other.tree_.value[leaf, :, 0], mean, rtol=1e-9)
        # The policy's value is the mean reward of its actions, in the rewards' unit.
        chosen = changed[np.arange(len(X)), np.argmax(one.predict_value(X), axis=1)]
        np.testing.assert_allclose(other.score(X, changed),
                                   np.ldexp(np.ldexp(chosen, -1000).mean(), 1000), rtol=1e-9)


@pytest.mark.parametrize("k", [2, 9, 17])
def test_the_sign_of_a_zero_reward_changes_nothing(k):
    # Each row's least reward is taken over the columns of the transposed rewards (fast), which
    # may pick the other zero of a row holding both signs than numpy's row reduction: no sum
    # keeps the sign, and every fitted array is the same bit for bit.
    rng = np.random.default_rng(k)
    X = rng.random((300, 3))
    R = rng.choice([0.0, -0.0, 0.5, 1.0], size=(300, k))
    R[:, 0] += X[:, 0] > 0.5
    canonical = R + 0.0   # every -0.0 becomes 0.0
    assert np.signbit(R).any() and not np.signbit(canonical).any()
    for params in (dict(max_depth=3), dict(max_depth=2, splitter="exhaustive")):
        one = DPDTreePolicy(**params).fit(X, R)
        other = DPDTreePolicy(**params).fit(X, canonical)
        for k_tree, (a, b) in enumerate(zip(one.trees_, other.trees_, strict=True)):
            assert_tree_equal(a, b, f"trees_[{k_tree}]")
            assert not np.signbit(a.value).any()
        np.testing.assert_array_equal(one.pareto_front_, other.pareto_front_)


def test_alpha_is_in_the_rewards_unit():
    rng = np.random.default_rng(2)
    X = rng.random((300, 3))
    R = rng.normal(size=(300, 2))
    R[:, 1] += X[:, 0] > 0.5
    one = DPDTreePolicy(max_depth=3, splitter="exhaustive").fit(X, R)
    scaled = DPDTreePolicy(max_depth=3, splitter="exhaustive").fit(X, R * 1000.0)
    np.testing.assert_allclose(scaled.pareto_front_["train_loss"],
                               one.pareto_front_["train_loss"] * 1000.0, rtol=1e-9)
    for alpha in (0.01, 0.05, 0.2):
        assert_tree_equal(one.set_params(alpha=alpha).tree_,
                          scaled.set_params(alpha=alpha * 1000.0).tree_, skip=("value",
                                                                               "impurity"))


# ----------------------------------------------------------------------- the same objective

def test_one_hot_rewards_are_classification():
    # The regret of one-hot rewards is the 0-1 loss: the optimal policy is the optimal tree.
    rng = np.random.default_rng(5)
    X = rng.integers(0, 6, (80, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 80)) % 3
    w = rng.random(80) + 0.5
    clf = DPDTreeClassifier(max_depth=2, splitter="exhaustive").fit(X, y, w)
    policy = DPDTreePolicy(max_depth=2, splitter="exhaustive").fit(X, np.eye(3)[y.astype(int)],
                                                                   w)
    assert policy.pareto_front_["train_loss"][0] == pytest.approx(
        clf.pareto_front_["train_loss"][0], abs=1e-12)


def test_cost_sensitive_classification():
    # Rewards are minus the cost of predicting each class: the policy is the classifier of
    # least total cost, which differs from the most accurate one.
    rng = np.random.default_rng(6)
    X = rng.random((500, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=500) > 0.5).astype(int)
    cost = np.where(np.eye(2)[y] == 1, 0.0, 1.0)
    cost[y == 1, 0] = 10.0   # missing a positive costs ten times a false alarm
    policy = DPDTreePolicy(max_depth=2, splitter="exhaustive").fit(X, -cost)
    clf = DPDTreeClassifier(max_depth=2, splitter="exhaustive").fit(X, y)
    policy_cost = cost[np.arange(500), policy.predict(X)].sum()
    assert policy_cost <= cost[np.arange(500), clf.predict(X)].sum()
    assert policy_cost == pytest.approx(-best_policy_value(X, -cost, None, 2))


# -------------------------------------------------------------------------- the estimator

def test_dataframe_actions_predict_and_score():
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.random((200, 2)), columns=["age", "income"])
    R = pd.DataFrame(rng.normal(size=(200, 3)), columns=["wait", "drug", "surgery"])
    R["surgery"] += 2 * (X["age"] > 0.7)
    policy = DPDTreePolicy(max_depth=2).fit(X, R)
    assert list(policy.actions_) == ["wait", "drug", "surgery"]
    assert set(policy.predict(X)) <= {"wait", "drug", "surgery"}
    assert policy.predict(X.iloc[[0]])[0] in policy.actions_
    chosen = np.argmax(policy.predict_value(X), axis=1)
    assert policy.score(X, R) == pytest.approx(R.to_numpy()[np.arange(200), chosen].mean())
    # Columns in another order are matched by name.
    assert policy.score(X, R[["surgery", "wait", "drug"]]) == pytest.approx(policy.score(X, R))
    w = rng.random(200)
    assert policy.score(X, R, w) == pytest.approx(
        np.average(R.to_numpy()[np.arange(200), chosen], weights=w))
    assert "action: surgery" in export_text(policy)
    assert list(policy.feature_names_in_) == ["age", "income"]


def test_save_and_load_round_trip(tmp_path):
    rng = np.random.default_rng(8)
    X = rng.random((150, 3))
    X[::9, 1] = np.nan
    R = pd.DataFrame(rng.normal(size=(150, 2)), columns=["no", "yes"])
    policy = DPDTreePolicy(max_depth=3).fit(X, R)
    policy.save(tmp_path / "policy.json")
    loaded = load(tmp_path / "policy.json")
    assert type(loaded) is DPDTreePolicy
    np.testing.assert_array_equal(loaded.predict(X), policy.predict(X))
    np.testing.assert_array_equal(loaded.actions_, policy.actions_)
    for a, b in zip(policy.trees_, loaded.trees_, strict=True):
        assert_tree_equal(a, b)


@pytest.mark.parametrize("rewards, message", [
    (np.zeros(10), "2-D"),
    (np.r_[np.nan, np.zeros(19)].reshape(10, 2), "Input rewards contains NaN"),
    (pd.DataFrame(np.zeros((10, 2))).astype("Float64").mask(np.eye(10, 2) == 1),
     "Input rewards contains NaN"),
    (np.zeros((9, 2)), "inconsistent numbers of samples"),
    (pd.DataFrame(np.zeros((10, 2)), columns=["a", "a"]), "unique column names"),
    (np.tile([-1e308, 1e308], (10, 1)), "differ by more than float64"),
    (np.r_[np.inf, np.zeros(19)].reshape(10, 2), "Input rewards contains infinity"),
    # An action without a name: predict could not tell it from a missing value.
    (pd.DataFrame(np.zeros((10, 2)), columns=["a", None]), "column 1 has none"),
    (pd.DataFrame(np.zeros((10, 2)), columns=[np.nan, "b"]), "column 0 has none"),
    (pd.DataFrame(np.zeros((10, 2)), columns=pd.Index(["a", pd.NA], dtype=object)),
     "column 1 has none"),
])
def test_invalid_rewards_are_refused(rewards, message):
    with pytest.raises(ValueError, match=message):
        DPDTreePolicy().fit(np.zeros((10, 2)), rewards)


def test_score_refuses_other_actions():
    policy = DPDTreePolicy(max_depth=1).fit(np.arange(6.0)[:, None], np.eye(3)[[0, 1, 2] * 2])
    with pytest.raises(ValueError, match="3 actions"):
        policy.score(np.arange(6.0)[:, None], np.zeros((6, 2)))
    # Named actions: rewards naming others are refused, not taken in order.
    X, R = np.arange(6.0)[:, None], np.eye(3)[[0, 1, 2] * 2]
    named = DPDTreePolicy(max_depth=1).fit(X, pd.DataFrame(R, columns=["a", "b", "c"]))
    with pytest.raises(ValueError, match=r"rewards name the actions \['b', 'c', 'd'\], the "
                                         r"policy \['a', 'b', 'c'\]"):
        named.score(X, pd.DataFrame(R, columns=["b", "c", "d"]))
    # Actions known by position only take named rewards in order, as an array's.
    assert policy.score(X, pd.DataFrame(R, columns=["b", "c", "d"])) == policy.score(X, R)


# The targets are rewards (named so in fit and score, as the policy libraries name them), and
# predictions are actions, not the targets' shape: the checks that assume either.
NOT_Y = {
    "check_fit_score_takes_y": "fit(X, rewards) and score(X, rewards)",
    "check_n_features_in_after_fitting": "calls score(X, y=...)",
    "check_sample_weight_equivalence_on_dense_data": "calls fit(X, y=...); see "
    "test_weights_act_as_repeated_rows",
    "check_sample_weight_equivalence_on_sparse_data": "calls fit(X, y=...)",
    "check_estimator_sparse_array": "expects predictions shaped as the targets",
    "check_estimator_sparse_matrix": "expects predictions shaped as the targets",
}


@parametrize_with_checks([DPDTreePolicy(max_depth=2)], expected_failed_checks=lambda _: NOT_Y)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_pictures_name_the_actions():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from dpdt import export_html, plot_pareto, plot_tree

    rng = np.random.default_rng(9)
    X = rng.random((200, 2))
    R = pd.DataFrame(rng.normal(size=(200, 2)), columns=["no", "yes"])
    R["yes"] += 2 * (X[:, 0] > 0.5)
    policy = DPDTreePolicy(max_depth=2).fit(X, R)
    texts = [t.get_text() for t in plot_tree(policy).texts]
    assert any(text.startswith("action: yes") for text in texts)
    assert '"actions":["no","yes"]' in export_html(policy)
    ax = plot_pareto(policy, X_test=X, y_test=R)
    assert "mean regret" in ax.get_ylabel()


def test_threads_and_time_limit():
    rng = np.random.default_rng(10)
    X = rng.random((3000, 5))
    R = rng.normal(size=(3000, 3))
    R[:, 2] += (X[:, 0] > 0.5) + (X[:, 1] > 0.3)
    one = DPDTreePolicy(max_depth=4, n_jobs=1).fit(X, R)
    two = DPDTreePolicy(max_depth=4, n_jobs=2).fit(X, R)
    assert_tree_equal(one.tree_, two.tree_)
    greedy = DPDTreePolicy(max_depth=4, splitter="cart", candidates=1).fit(X, R)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        stopped = DPDTreePolicy(max_depth=4, splitter="exhaustive", time_limit=1e-6).fit(X, R)
    assert not stopped.is_optimal_
    assert train_reward(stopped, X, R) >= train_reward(greedy, X, R) - 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_select_tree_gets_the_best_policy_within_a_leaf_budget(seed):
    X, R, w = tiny(seed, n=10, p=2)
    trees = all_policy_trees(X, R, w, max_depth=2)
    policy = DPDTreePolicy(max_depth=2, splitter="exhaustive", front="pareto",
                           complexity="n_splits").fit(X, R, w)
    for leaves in (1, 2, 3, 4):
        best = trees["reward"][trees["n_splits"] <= leaves - 1].max()
        policy.select_tree(max_leaves=leaves)
        assert policy.get_n_leaves() <= leaves
        assert train_reward(policy, X, R, w) == pytest.approx(best, rel=1e-12, abs=1e-12)


def test_binned_fit_restores_the_rewards_of_its_own_trees_only(monkeypatch):
    # A fit that bins first fits its greedy twin, whose splits alone keep the bins' thresholds:
    # bringing the rewards of every node back to the user's unit, a pass over X per tree of a
    # front, is the fit's own trees' work, not the twin's.
    import dpdt._policy as policy_module

    restored = []
    node_means = policy_module._node_means
    monkeypatch.setattr(policy_module, "_node_means",
                        lambda tree, *args: restored.append(tree) or node_means(tree, *args))
    rng = np.random.default_rng(0)
    X = rng.random((10_000, 3))
    rewards = rng.normal(size=(10_000, 2)) + np.c_[X[:, 0] > 0.5, X[:, 1] > 0.3]
    model = DPDTreePolicy(max_depth=3).fit(X, rewards)
    assert model.n_bins_ is not None   # the twin was fitted
    assert [id(tree) for tree in restored] == [id(tree) for tree in model.trees_]
    for tree in model.trees_:   # the root's values are the mean rewards
        np.testing.assert_allclose(tree.value[0, :, 0], rewards.mean(axis=0), rtol=1e-12)


def test_front_routes_the_rows_once_for_the_trees_that_prune_its_first(monkeypatch):
    # The rewards of every node come back from the rows each tree of the front sends there: a
    # tree whose splits are the first tree's near the root reads its leaves off the first's.
    from dpdt._tree import Tree

    rng = np.random.default_rng(1)
    X = rng.random((3000, 4))
    rewards = rng.normal(size=(3000, 3)) + np.c_[X[:, 0] > 0.5, X[:, 1] > 0.3, X[:, 2] > 0.7]
    routed = []
    apply = Tree.apply
    monkeypatch.setattr(Tree, "apply", lambda tree, data: routed.append(tree) or apply(tree, data))
    model = DPDTreePolicy(max_depth=4).fit(X, rewards)
    monkeypatch.setattr(Tree, "apply", apply)
    assert len(model.trees_) >= 3
    assert len(routed) < len(model.trees_)
    for tree in model.trees_:   # each leaf's values: the mean rewards of its rows
        leaves = tree.apply(X)
        for leaf in np.unique(leaves):
            np.testing.assert_allclose(tree.value[leaf, :, 0], rewards[leaves == leaf].mean(axis=0),
                                       rtol=1e-9, atol=1e-12)
