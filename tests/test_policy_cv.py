"""DPDTreePolicyCV: the policy tree whose alpha (and depth) is chosen by cross-validated value.

Ground truth is recomputed the plain way: a fresh DPDTreePolicy fit per candidate alpha and
fold, its held-out value summed by hand, and the selection rule restated.
"""

import numpy as np
import pandas as pd
import pytest
from _trees import assert_tree_equal
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.estimator_checks import parametrize_with_checks
from test_policy import NOT_Y

import dpdt
from dpdt import DPDTreePolicy, DPDTreePolicyCV, export_text

TIE = 1e-9


def _rewards(n=300, seed=0, noise=1.5):
    """Three actions whose best depends on two features, under noise that overfitting follows."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 4)
    mean = np.column_stack([np.zeros(n), np.where(X[:, 0] > 0.5, 0.6, -0.6),
                            np.where(X[:, 1] > 0.3, 0.3, -0.3)])
    return X, mean + rng.normal(scale=noise, size=mean.shape)


def _value(model, X, rewards):
    """The mean reward of the actions the model chooses, by hand."""
    return float(np.mean(rewards[np.arange(len(X)), model.predict(X)]))


def _candidates(full, folds):
    """The alphas the folds score each tree of the whole-data front at (Breiman et al.)."""
    front = full.pareto_front_
    last = max(f.pareto_front_["alpha_min"][-1] for f in [full, *folds])
    alphas = [0.0]
    for lo, hi in zip(front["alpha_min"][1:-1], front["alpha_max"][1:-1], strict=True):
        assert 0 < lo < hi   # the data have no tie-broken rows, which take other alphas
        alphas.append(float(np.sqrt(lo * hi)))
    return np.array(alphas + [2.0 * last + 1.0])


@pytest.mark.parametrize("selection", [None, "best", "1se"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chosen_alpha_is_the_brute_force_choice_on_the_same_folds(seed, selection):
    X, R = _rewards(seed=seed)
    params = {"max_depth": 3, "complexity": "n_splits", "random_state": seed}
    chosen_by = {} if selection is None else {"selection": selection}
    model = DPDTreePolicyCV(cv=4, **params, **chosen_by).fit(X, R)
    folds = list(KFold(4, shuffle=True, random_state=seed).split(X))
    full = DPDTreePolicy(**params).fit(X, R)
    fold_fits = [DPDTreePolicy(**params).fit(X[train], R[train]) for train, _ in folds]
    alphas = _candidates(full, fold_fits)
    # A fresh fit per (alpha, fold), not the fold's front at that alpha.
    values = np.array([[_value(DPDTreePolicy(alpha=a, **params).fit(X[tr], R[tr]), X[te], R[te])
                        for tr, te in folds] for a in alphas])
    means = values.mean(axis=1)
    assert_allclose(model.validation_curve_["mean_score"], means, rtol=1e-12)
    # The simplest of those at least the floor: the front runs from the most complex tree to
    # a single leaf. The floor is the best mean value, less, under the one-standard-error rule
    # (the default), the standard error of the best row's fold values.
    best = means.max()
    best_row = max(k for k in range(len(means)) if means[k] >= best - TIE * max(1.0, abs(best)))
    floor = best
    if selection in (None, "1se"):
        floor -= values[best_row].std(ddof=1) / np.sqrt(len(folds))
    chosen = max(k for k in range(len(means)) if means[k] >= floor - TIE * max(1.0, abs(floor)))
    assert model.best_score_ == pytest.approx(means[chosen], rel=1e-12)
    assert model.get_n_leaves() == full.trees_[chosen].n_leaves
    if chosen < len(alphas) - 1:
        assert model.alpha_ == pytest.approx(alphas[chosen], rel=1e-12)


def test_the_defaults_overfit_the_noise_that_the_cv_does_not():
    X, R = _rewards(n=600, seed=3, noise=3.0)
    X_test, R_test = _rewards(n=20_000, seed=4, noise=0.0)
    default = DPDTreePolicy(max_depth=4).fit(X, R)
    cv = DPDTreePolicyCV(max_depth=4).fit(X, R)
    assert cv.get_n_leaves() < default.get_n_leaves()
    assert cv.score(X_test, R_test) > default.score(X_test, R_test)


def test_refit_is_the_plain_policy_at_the_chosen_alpha_and_depth():
    X, R = _rewards(seed=5)
    model = DPDTreePolicyCV(max_depths=[1, 2, 3], cv=3, selection="best",
                            random_state=0).fit(X, R)
    plain = DPDTreePolicy(max_depth=model.max_depth_, alpha=model.alpha_,
                          complexity="n_splits", random_state=0).fit(X, R)
    assert_tree_equal(model.tree_, plain.tree_)
    assert_array_equal(model.pareto_front_, plain.pareto_front_)
    assert_array_equal(model.predict(X), plain.predict(X))
    assert_allclose(model.predict_value(X), plain.predict_value(X))
    assert model.score(X, R) == plain.score(X, R)
    # Among the depths' rows, the chosen one has the best mean value.
    assert model.best_score_ == pytest.approx(model.validation_curve_["mean_score"].max())


def test_one_standard_error_rule_takes_a_tree_no_larger():
    X, R = _rewards(seed=6)
    best = DPDTreePolicyCV(max_depths=[2, 3], cv=5, selection="best").fit(X, R)
    one_se = clone(best).set_params(selection="1se").fit(X, R)
    assert_array_equal(one_se.validation_curve_, best.validation_curve_)
    assert one_se.get_n_leaves() <= best.get_n_leaves()
    assert one_se.best_score_ <= best.best_score_


def test_dataframe_rewards_name_the_actions_and_features():
    X, R = _rewards(seed=7, noise=0.5)
    X_df = pd.DataFrame(X, columns=["age", "dose", "weight", "height"])
    R_df = pd.DataFrame(R, columns=["control", "drug", "surgery"])
    model = DPDTreePolicyCV(max_depth=2, cv=3).fit(X_df, R_df)
    assert_array_equal(model.actions_, ["control", "drug", "surgery"])
    assert model.n_actions_ == 3
    assert set(model.predict(X_df)) <= {"control", "drug", "surgery"}
    assert_array_equal(model.predict(X_df), model.actions_[model.predict_value(X_df).argmax(1)])
    # Columns by name in any order score the same.
    assert model.score(X_df, R_df[["surgery", "control", "drug"]]) == model.score(X_df, R_df)
    text = export_text(model)
    assert "age" in text or "dose" in text
    plain = DPDTreePolicyCV(max_depth=2, cv=3).fit(X, R)
    assert_array_equal(model.validation_curve_, plain.validation_curve_)


def test_deterministic_and_independent_of_n_jobs():
    X, R = _rewards(seed=8)
    fits = [DPDTreePolicyCV(max_depths=[2, 3], cv=3, random_state=4, n_jobs=n_jobs).fit(X, R)
            for n_jobs in (1, 1, 2)]
    for other in fits[1:]:
        assert_array_equal(other.validation_curve_, fits[0].validation_curve_)
        assert_tree_equal(other.tree_, fits[0].tree_)
    other_seed = DPDTreePolicyCV(max_depths=[2, 3], cv=3, random_state=5).fit(X, R)
    assert not np.array_equal(other_seed.validation_curve_["mean_score"],
                              fits[0].validation_curve_["mean_score"])


def test_clone_and_get_params():
    model = DPDTreePolicyCV(max_depths=[1, 2], cv=3, selection="1se", min_samples_leaf=5)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert "max_cost" not in model.get_params()
    assert model.get_params()["complexity"] == "n_splits"


def test_sample_weight_weights_the_fits_and_the_score():
    X, R = _rewards(seed=9)
    w = np.random.RandomState(0).randint(0, 3, size=len(X)).astype(float)
    model = DPDTreePolicyCV(max_depth=2, cv=3, random_state=0).fit(X, R, sample_weight=w)
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    alpha = 0.0
    by_hand = np.mean([
        DPDTreePolicy(max_depth=2, complexity="n_splits", alpha=alpha, random_state=0)
        .fit(X[tr], R[tr], sample_weight=w[tr]).score(X[te], R[te], sample_weight=w[te])
        for tr, te in folds])
    assert model.validation_curve_["mean_score"][0] == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize(("kwargs", "fit_kwargs", "error", "match"), [
    ({}, {"action_costs": [0.0, 1.0, 1.0]}, ValueError, "action_costs"),
    ({"scoring": "accuracy"}, {}, ValueError, "scoring"),
    ({"max_depths": [2, 0]}, {}, ValueError, "max_depths"),
    ({"max_depth": 4, "max_depths": [2, 3]}, {}, ValueError, "max_depth=4"),
    ({"cv": 1}, {}, ValueError, "n_splits"),
])
def test_bad_parameters_give_clear_errors(kwargs, fit_kwargs, error, match):
    X, R = _rewards(n=60)
    with pytest.raises(error, match=match):
        DPDTreePolicyCV(**kwargs).fit(X, R, **fit_kwargs)


def test_a_budget_is_not_a_parameter():
    with pytest.raises(TypeError, match="max_cost"):
        DPDTreePolicyCV(max_cost=3.0)


@pytest.mark.parametrize(("rewards", "match"), [
    (lambda R: R[:, 0], "2-D"),
    (lambda R: np.where(np.arange(R.size).reshape(R.shape) == 7, np.nan, R), "NaN|finite"),
    (lambda R: R[:-1], "inconsistent|samples"),
])
def test_bad_rewards_give_clear_errors(rewards, match):
    X, R = _rewards(n=60)
    with pytest.raises(ValueError, match=match):
        DPDTreePolicyCV(cv=3).fit(X, rewards(R))


def test_save_load_round_trip(tmp_path):
    X, R = _rewards(seed=10)
    R_df = pd.DataFrame(R, columns=["a", "b", "c"])
    model = DPDTreePolicyCV(max_depths=[1, 2], cv=3).fit(X, R_df)
    model.save(tmp_path / "policy_cv.json")
    loaded = dpdt.load(tmp_path / "policy_cv.json")
    assert isinstance(loaded, DPDTreePolicyCV)
    assert loaded.get_params() == model.get_params()
    assert_array_equal(loaded.validation_curve_, model.validation_curve_)
    assert_array_equal(loaded.actions_, model.actions_)
    assert_array_equal(loaded.predict(X), model.predict(X))
    assert (loaded.alpha_, loaded.max_depth_, loaded.best_score_) == (
        model.alpha_, model.max_depth_, model.best_score_)
    # The other depth's refit came back too: select_tree re-chooses over the whole curve.
    assert_array_equal(loaded.select_tree(max_depth=1).predict(X),
                       model.select_tree(max_depth=1).predict(X))


@parametrize_with_checks([DPDTreePolicyCV(max_depth=2, cv=3)],
                         expected_failed_checks=lambda _: NOT_Y)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
