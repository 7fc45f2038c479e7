"""Choosing the tree on the Pareto front: budgets (select_tree) and cross-validation (…CV).

Ground truth is recomputed the plain way: explicit fits at each alpha with scikit-learn's
cross-validation and metrics, explicit fold loops for weights, and brute force over the front.
"""

import functools
import pickle
import warnings

import numpy as np
import pytest
from _trees import assert_tree_equal
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, get_scorer, mean_squared_error, r2_score
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpdt
from dpdt import (
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    export_text,
)

TIE = 1e-9


def _classification(n=150, seed=0):
    return make_classification(n_samples=n, n_features=5, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1, flip_y=0.15,
                               random_state=seed)


def _regression(n=120, seed=0):
    X, y = make_regression(n_samples=n, n_features=4, n_informative=3, noise=20.0,
                           random_state=seed)
    return X, y


def _weights(n, seed=1):
    return np.random.RandomState(seed).randint(0, 4, size=n).astype(float)


def _best_row(mean, complexity, depth, alpha):
    """The selection rule, restated: best mean score, then simpler, shallower, larger alpha."""
    best = mean.max()
    tied = [i for i in range(len(mean)) if mean[i] >= best - TIE * max(1.0, abs(best))]
    return min(tied, key=lambda i: (complexity[i], depth[i], -alpha[i]))


def _one_se_row(mean, standard_error, complexity, depth, alpha):
    """Breiman et al.'s rule, restated: the simplest row within one standard error of the best.

    ``standard_error[i]`` is the standard error of row i's mean score, the anchor is the row
    ``_best_row`` picks, and equal scores (within TIE) count as reaching the floor.
    """
    best = _best_row(mean, complexity, depth, alpha)
    floor = mean[best] - standard_error[best]
    within = [i for i in range(len(mean)) if mean[i] >= floor - TIE * max(1.0, abs(floor))]
    return min(within, key=lambda i: (complexity[i], depth[i], -alpha[i]))


def _curve_standard_error(curve, n_splits):
    """Standard error of each row's mean from the curve: sample std (ddof=1) / sqrt(folds)."""
    if n_splits < 2:
        return np.zeros(len(curve))
    return curve["std_score"] * np.sqrt(n_splits / (n_splits - 1)) / np.sqrt(n_splits)


def _chosen_row(cv_model, curve, standard_error=None):
    """The row the estimator's ``selection`` picks, recomputed by brute force."""
    args = (curve["complexity"], curve["max_depth"], curve["alpha"])
    if cv_model.selection == "best":
        return _best_row(curve["mean_score"], *args)
    if standard_error is None:
        standard_error = _curve_standard_error(curve, cv_model.n_splits_)
    return _one_se_row(curve["mean_score"], standard_error, *args)


# ------------------------------------------------------------------- budget on the front


def _train_loss_by_prediction(model, X, y, k):
    tree = model.trees_[k]
    leaves = tree.apply(np.ascontiguousarray(X, dtype=np.float64))
    if isinstance(model, DPDTreeClassifier):
        return 1.0 - accuracy_score(y, model.classes_[np.argmax(tree.value[leaves, 0], axis=1)])
    return mean_squared_error(y, tree.value[leaves, 0, 0])


BUDGETS = [
    dict(),
    dict(max_leaves=1),
    dict(max_leaves=2),
    dict(max_leaves=3),
    dict(max_leaves=5),
    dict(max_depth=0),
    dict(max_depth=1),
    dict(max_depth=2),
    dict(max_complexity=0.0),
    dict(max_complexity=0.9),
    dict(max_complexity=1.5),
    dict(max_complexity=2.2),
    dict(max_leaves=4, max_depth=2),
    dict(max_leaves=6, max_complexity=1.8),
]


@pytest.mark.parametrize("budget", BUDGETS, ids=repr)
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_select_tree_is_brute_force_over_the_front(kind, budget):
    if kind == "classifier":
        X, y = _classification()
        model = DPDTreeClassifier(max_depth=3).fit(X, y)
    else:
        X, y = _regression()
        model = DPDTreeRegressor(max_depth=3).fit(X, y)
    # Brute force: every tree of the front, its size read from its arrays, its loss recomputed.
    within, losses = [], []
    for k, tree in enumerate(model.trees_):
        ok = (tree.n_leaves <= budget.get("max_leaves", np.inf)
              and tree.max_depth <= budget.get("max_depth", np.inf)
              and model.pareto_front_["complexity"][k] <= budget.get("max_complexity", np.inf))
        if ok:
            within.append(k)
            losses.append(_train_loss_by_prediction(model, X, y, k))
    losses = np.array(losses)
    best = losses.min()
    expected = max(k for k, loss in zip(within, losses, strict=True)
                   if loss <= best + 1e-9 * max(1.0, best))

    assert model.select_tree(**budget) is model
    assert model.tree_ is model.trees_[expected]
    assert model._front_index(model.alpha) == expected
    # The alpha is a plain hyperparameter: a fresh fit with it gives the same tree.
    fresh = type(model)(max_depth=3, alpha=model.alpha).fit(X, y)
    assert_tree_equal(fresh.tree_, model.tree_)


def test_select_tree_without_budget_is_the_most_accurate_simplest_tree():
    X, y = _classification()
    model = DPDTreeClassifier(max_depth=3).fit(X, y).select_tree()
    front = model.pareto_front_
    assert front["train_loss"][model._front_index(model.alpha)] == front["train_loss"].min()
    assert model.get_n_leaves() == min(
        t.n_leaves for t, loss in zip(model.trees_, front["train_loss"], strict=True)
        if loss == front["train_loss"].min())


@pytest.mark.parametrize("budget", [dict(max_leaves=0), dict(max_leaves=2.5),
                                    dict(max_complexity=-1.0), dict(max_complexity="1"),
                                    dict(max_depth=-1), dict(max_complexity=np.nan)], ids=repr)
def test_select_tree_rejects_bad_budgets(budget):
    X, y = _classification()
    name = next(iter(budget))
    with pytest.raises(ValueError, match=f"'{name}' parameter of select_tree"):
        DPDTreeClassifier(max_depth=2).fit(X, y).select_tree(**budget)
    cv = DPDTreeClassifierCV(max_depth=2, cv=3).fit(X, y)
    with pytest.raises(ValueError, match=f"'{name}' parameter of select_tree"):
        cv.select_tree(**budget)


def test_select_tree_before_fit():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        DPDTreeClassifier().select_tree(max_leaves=2)
    with pytest.raises(NotFittedError):
        DPDTreeClassifierCV().select_tree(max_leaves=2)


# ------------------------------------------------------------------ cross-validation


def _plain_cv_scores(make, X, y, cv, scoring=None, sample_weight=None):
    """Mean and std of the validation score by explicit fits, one per fold."""
    scorer = get_scorer(scoring) if scoring is not None else None
    scores = []
    for train, test in cv.split(X, y):
        w_train = None if sample_weight is None else sample_weight[train]
        model = make().fit(X[train], y[train], sample_weight=w_train)
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight[test]}
        scores.append(scorer(model, X[test], y[test], **kwargs) if scorer
                      else model.score(X[test], y[test], **kwargs))
    return np.mean(scores), np.std(scores), np.std(scores, ddof=1) / np.sqrt(len(scores))


def _shuffled(kind, n_splits):
    # What an int cv means: the folds of shuffled rows, seeded by random_state (0 when None).
    return kind(n_splits, shuffle=True, random_state=0)


def test_an_int_cv_shuffles_the_rows_the_same_way_every_time():
    # Rows sorted by class: folds in row order would each miss whole classes' ranges.
    X, y = _classification()
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    one, two = (DPDTreeClassifierCV(max_depth=2, cv=4).fit(X, y) for _ in range(2))
    assert_array_equal(one.validation_curve_, two.validation_curve_)
    assert_tree_equal(one.tree_, two.tree_)
    shuffled = DPDTreeClassifierCV(max_depth=2, cv=_shuffled(StratifiedKFold, 4)).fit(X, y)
    assert_array_equal(one.validation_curve_, shuffled.validation_curve_)
    seeded = DPDTreeClassifierCV(max_depth=2, cv=4, random_state=3).fit(X, y)
    again = DPDTreeClassifierCV(max_depth=2, cv=StratifiedKFold(4, shuffle=True, random_state=3))
    assert_array_equal(seeded.validation_curve_, again.fit(X, y).validation_curve_)
    in_order = DPDTreeClassifierCV(max_depth=2, cv=StratifiedKFold(4)).fit(X, y)
    assert not np.array_equal(one.validation_curve_, in_order.validation_curve_)


def _plain_of(cv_model, kind=None):
    """Return the tree estimator a CV estimator fits, with the parameters it passes on."""
    kind = kind or cv_model._estimator_class
    own = kind().get_params()
    return functools.partial(kind, **{name: value for name, value in cv_model.get_params().items()
                                      if name in own and name != "max_depth"})


def _check_against_refits(cv_model, make_plain, X, y, splitter, scoring=None,
                          sample_weight=None):
    curve = cv_model.validation_curve_
    make_plain = _plain_of(cv_model, make_plain)
    assert cv_model.n_splits_ == splitter.get_n_splits()
    standard_error = []
    for row in curve:
        def make(row=row):
            return make_plain(max_depth=int(row["max_depth"]), alpha=float(row["alpha"]))
        mean, std, se = _plain_cv_scores(make, X, y, splitter, scoring, sample_weight)
        standard_error.append(se)
        assert_allclose(row["mean_score"], mean, rtol=1e-12, atol=1e-12)
        assert_allclose(row["std_score"], std, rtol=1e-10, atol=1e-12)
        refit = make().fit(X, y, sample_weight=sample_weight)
        assert_allclose(row["complexity"], refit.pareto_front_["complexity"][
            refit._front_index(row["alpha"])], rtol=0, atol=0)
    # The standard errors the rule uses are those of the explicit fits' scores.
    assert_allclose(_curve_standard_error(curve, cv_model.n_splits_), standard_error,
                    rtol=1e-9, atol=1e-12)
    chosen = _chosen_row(cv_model, curve, np.array(standard_error))
    assert cv_model.alpha_ == curve["alpha"][chosen]
    assert cv_model.max_depth_ == curve["max_depth"][chosen]
    assert cv_model.best_score_ == curve["mean_score"][chosen]
    # The final model is the plain fit at the chosen hyperparameters.
    plain = make_plain(max_depth=cv_model.max_depth_, alpha=cv_model.alpha_).fit(
        X, y, sample_weight=sample_weight)
    assert_tree_equal(cv_model.tree_, plain.tree_)
    assert_array_equal(cv_model.pareto_front_, plain.pareto_front_)
    assert_array_equal(cv_model.predict(X), plain.predict(X))


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_classifier_cv_equals_explicit_refits_at_every_alpha(selection):
    X, y = _classification()
    cv_model = DPDTreeClassifierCV(max_depths=[1, 2, 3], cv=5, selection=selection).fit(X, y)
    assert set(cv_model.validation_curve_["max_depth"]) == {1, 2, 3}
    _check_against_refits(cv_model, DPDTreeClassifier, X, y, _shuffled(StratifiedKFold, 5))


def _clean_fold_data():
    """A threshold at 20 with 14 of 40 labels flipped; the single fold trains on the 26 others.

    The fold's stump is perfect, so its last breakpoint (0.5) lies far past the whole data's
    (0.15): a leaf's alpha must be taken past the folds' breakpoints, not the refit's alone.
    """
    x = np.arange(40)
    y = (x >= 20).astype(int)
    flipped = np.r_[0:14:2, 26:40:2]
    y[flipped] = 1 - y[flipped]
    clean = np.setdiff1d(x, flipped)
    return x[:, None].astype(float), y, [(clean, flipped)], [1]


@pytest.mark.parametrize("make_data", [
    lambda: (*_classification(), StratifiedKFold(5), [2, 3]),
    lambda: (*_classification(n=300, seed=4), StratifiedKFold(5), [2, 3]),
    lambda: (lambda d: (d.X_train, d.y_train))(dpdt.datasets.load("segment"))
    + (StratifiedKFold(5), [2, 3]),
    _clean_fold_data,
], ids=["synthetic", "synthetic-300", "segment", "clean-fold"])
def test_cv_rows_are_the_refits_trees_scored_at_their_own_regularisation(make_data):
    X, y, splitter, depths = make_data()
    cv_model = DPDTreeClassifierCV(max_depths=depths, cv=splitter).fit(X, y)
    curve = cv_model.validation_curve_
    for depth in depths:
        rows = curve[curve["max_depth"] == depth]
        refit = _plain_of(cv_model)(max_depth=depth).fit(X, y)
        front = refit.pareto_front_
        # One row per tree of the whole-data front, in its order, at an alpha that selects it:
        # Breiman's geometric mean wherever the tree's range has two positive ends.
        assert [refit._front_index(alpha) for alpha in rows["alpha"]] == list(range(len(front)))
        assert_array_equal(rows["complexity"], front["complexity"])
        inner = (front["alpha_min"] > 0) & (front["alpha_min"] < front["alpha_max"])
        inner[-1] = False
        assert_allclose(rows["alpha"][inner],
                        np.sqrt(front["alpha_min"] * front["alpha_max"])[inner], rtol=1e-15)
        # The closing single leaf is scored by single leaves: a budget of no test gets the
        # cross-validated score of a leaf, not that of the folds' larger trees.
        leaf_scores = []
        for train, test in check_cv(splitter, y, classifier=True).split(X, y):
            fold = _plain_of(cv_model)(max_depth=depth, alpha=rows["alpha"][-1]).fit(
                X[train], y[train])
            assert fold.get_n_leaves() == 1
            majority = np.bincount(y[train]).argmax()
            leaf_scores.append(np.mean(y[test] == majority))
        assert_allclose(rows["mean_score"][-1], np.mean(leaf_scores), rtol=0, atol=1e-12)
    cv_model.select_tree(max_complexity=0.0)
    assert cv_model.get_n_leaves() == 1
    assert_allclose(cv_model.best_score_, np.mean(leaf_scores), rtol=0, atol=1e-12)


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_classifier_cv_weights_reach_folds_and_scorer(selection):
    X, y = _classification(seed=3)
    w = _weights(len(y))
    splitter = KFold(4, shuffle=True, random_state=0)
    cv_model = DPDTreeClassifierCV(max_depth=2, cv=splitter, selection=selection).fit(
        X, y, sample_weight=w)
    _check_against_refits(cv_model, DPDTreeClassifier, X, y, splitter, sample_weight=w)
    # The weights did something: unweighted, the curve differs.
    unweighted = DPDTreeClassifierCV(max_depth=2, cv=splitter).fit(X, y)
    assert not np.array_equal(unweighted.validation_curve_["mean_score"],
                              cv_model.validation_curve_["mean_score"][
                                  :len(unweighted.validation_curve_)])


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_classifier_cv_scoring_string(selection):
    X, y = _classification(seed=5)
    cv_model = DPDTreeClassifierCV(max_depth=2, cv=3, scoring="balanced_accuracy",
                                   selection=selection).fit(X, y)
    _check_against_refits(cv_model, DPDTreeClassifier, X, y, _shuffled(StratifiedKFold, 3),
                          scoring="balanced_accuracy")


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_regressor_cv_equals_explicit_refits_at_every_alpha(selection):
    X, y = _regression()
    cv_model = DPDTreeRegressorCV(max_depths=[2, 3], cv=4, selection=selection).fit(X, y)
    _check_against_refits(cv_model, DPDTreeRegressor, X, y, _shuffled(KFold, 4))
    assert_allclose(cv_model.score(X, y), r2_score(y, cv_model.predict(X)))


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_regressor_cv_multi_output_and_weights(selection):
    X, y = _regression()
    Y = np.column_stack([y, np.sin(X[:, 0]) * 50])
    w = _weights(len(y), seed=2)
    cv_model = DPDTreeRegressorCV(max_depth=2, cv=3, scoring="neg_mean_squared_error",
                                  selection=selection).fit(X, Y, sample_weight=w)
    assert cv_model.n_outputs_ == 2 and cv_model.predict(X).shape == Y.shape
    _check_against_refits(cv_model, DPDTreeRegressor, X, Y, _shuffled(KFold, 3),
                          scoring="neg_mean_squared_error", sample_weight=w)


def test_cv_costs_folds_plus_one_fits_per_depth(monkeypatch):
    X, y = _classification()
    calls = []
    original = DPDTreeClassifier.fit

    def counting_fit(self, *args, **kwargs):
        calls.append(self.max_depth)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DPDTreeClassifier, "fit", counting_fit)
    DPDTreeClassifierCV(max_depths=[2, 3], cv=5).fit(X, y)
    assert sorted(calls) == [2] * 6 + [3] * 6
    calls.clear()
    cv_model = DPDTreeClassifierCV(max_depth=3, cv=4).fit(X, y)
    assert calls == [3] * 5
    calls.clear()
    cv_model.select_tree(max_leaves=3)
    cv_model.predict(X)
    assert calls == []


@pytest.mark.parametrize("selection", ["best", "1se"])
def test_cv_select_tree_is_brute_force_over_the_curve(selection):
    X, y = _classification(seed=7)
    cv_model = DPDTreeClassifierCV(max_depths=[2, 3], cv=3, selection=selection).fit(X, y)
    curve = cv_model.validation_curve_
    refits = [_plain_of(cv_model)(max_depth=int(d), alpha=float(a)).fit(X, y)
              for d, a in zip(curve["max_depth"], curve["alpha"], strict=True)]
    for budget in [dict(max_leaves=1), dict(max_leaves=3), dict(max_depth=1),
                   dict(max_complexity=1.2), dict(max_leaves=5, max_depth=2), dict()]:
        within = [i for i, m in enumerate(refits)
                  if m.get_n_leaves() <= budget.get("max_leaves", np.inf)
                  and m.get_depth() <= budget.get("max_depth", np.inf)
                  and curve["complexity"][i] <= budget.get("max_complexity", np.inf)]
        sub = np.array(within)
        k = sub[_chosen_row(cv_model, curve[sub])]
        cv_model.select_tree(**budget)
        assert (cv_model.alpha_, cv_model.max_depth_) == (curve["alpha"][k], curve["max_depth"][k])
        assert cv_model.best_score_ == curve["mean_score"][k]
        assert_tree_equal(cv_model.tree_, refits[k].tree_)
        assert_array_equal(cv_model.predict(X), refits[k].predict(X))


def test_one_se_rule_with_ties_is_brute_force_over_the_curve():
    X, y = _classification()
    # Expected tests: fractional complexities, which the curve below rounds into ties.
    cv_model = DPDTreeClassifierCV(max_depths=[1, 2, 3], cv=5, selection="1se",
                                   complexity="expected_tests").fit(X, y)
    # A curve full of exact ties: scores on a grid of 1/8, more complex trees score higher
    # (equal complexities, e.g. the same stump at every depth limit, score the same), and a
    # standard error of exactly 1/8 (std 0.25 over 5 folds), so the floor is some rows' score.
    curve = cv_model.validation_curve_
    curve["mean_score"] = np.floor(curve["complexity"] * 2.0) / 8.0
    curve["std_score"] = 0.25
    assert_array_equal(_curve_standard_error(curve, 5), 0.125)
    for budget in [dict(), dict(max_leaves=3), dict(max_depth=1), dict(max_complexity=1.6)]:
        cv_model.select_tree(**budget)
        refits = [_plain_of(cv_model)(max_depth=int(d), alpha=float(a)).fit(X, y)
                  for d, a in zip(curve["max_depth"], curve["alpha"], strict=True)]
        within = np.array([i for i, m in enumerate(refits)
                           if m.get_n_leaves() <= budget.get("max_leaves", np.inf)
                           and m.get_depth() <= budget.get("max_depth", np.inf)
                           and curve["complexity"][i] <= budget.get("max_complexity", np.inf)])
        k = within[_chosen_row(cv_model, curve[within])]
        assert (cv_model.alpha_, cv_model.max_depth_) == (curve["alpha"][k], curve["max_depth"][k])
        assert cv_model.best_score_ == curve["mean_score"][k]
        assert_tree_equal(cv_model.tree_, refits[k].tree_)
        # The tie at the floor is taken, and ties of the same tree go to the shallower limit.
        best = within[_best_row(curve["mean_score"][within], curve["complexity"][within],
                                curve["max_depth"][within], curve["alpha"][within])]
        floor = curve["mean_score"][best] - 0.125
        if budget == dict():
            assert cv_model.best_score_ == floor
            same_tree = curve["complexity"][within] == curve["complexity"][k]
            assert cv_model.max_depth_ == curve["max_depth"][within][same_tree].min()
        assert cv_model.best_score_ >= floor


def test_one_se_rule_prefers_simpler_trees():
    X, y = _classification(seed=12)
    # Fractional complexities (expected tests) give this data's 1se choice a smaller tree.
    folds = StratifiedKFold(3)
    best = DPDTreeClassifierCV(max_depths=[2, 3], cv=folds, complexity="expected_tests").fit(X, y)
    one_se = DPDTreeClassifierCV(max_depths=[2, 3], cv=folds, selection="1se",
                                 complexity="expected_tests").fit(X, y)
    assert_array_equal(best.validation_curve_, one_se.validation_curve_)
    curve = one_se.validation_curve_
    chosen_best = np.flatnonzero((curve["alpha"] == best.alpha_)
                                 & (curve["max_depth"] == best.max_depth_))[0]
    assert one_se.n_splits_ == 3
    se = curve["std_score"][chosen_best] * np.sqrt(3 / 2) / np.sqrt(3)
    assert one_se.best_score_ >= best.best_score_ - se - TIE
    # On this data the rule matters: a smaller tree, a little less accurate in validation.
    assert one_se.get_n_leaves() < best.get_n_leaves()
    assert one_se.best_score_ < best.best_score_
    # Switching the rule and re-choosing without a refit gives the other estimator's choice.
    one_se.set_params(selection="best").select_tree()
    assert (one_se.alpha_, one_se.max_depth_) == (best.alpha_, best.max_depth_)
    assert_tree_equal(one_se.tree_, best.tree_)


def test_one_se_rule_with_one_split_is_the_best_rule():
    X, y = _classification()
    split = [(np.arange(100), np.arange(100, len(y)))]
    best = DPDTreeClassifierCV(max_depth=3, cv=split).fit(X, y)
    one_se = DPDTreeClassifierCV(max_depth=3, cv=split, selection="1se").fit(X, y)
    assert one_se.n_splits_ == 1
    assert (one_se.alpha_, one_se.best_score_) == (best.alpha_, best.best_score_)


def test_cv_does_not_depend_on_n_jobs_and_pickles():
    X, y = _classification()
    one = DPDTreeClassifierCV(max_depths=[2, 3], cv=3).fit(X, y)
    two = DPDTreeClassifierCV(max_depths=[2, 3], cv=3, n_jobs=2).fit(X, y)
    assert_array_equal(one.validation_curve_, two.validation_curve_)
    assert_tree_equal(one.tree_, two.tree_)
    again = pickle.loads(pickle.dumps(two))
    assert_array_equal(again.predict_proba(X), two.predict_proba(X))
    assert export_text(again) == export_text(DPDTreeClassifier(
        max_depth=two.max_depth_, alpha=two.alpha_).fit(X, y))


@pytest.mark.parametrize("depths", [(1, 3), range(1, 4, 2), np.array([3, 1])], ids=repr)
def test_cv_takes_depth_limits_in_any_sequence(depths):
    X, y = _classification()
    as_list = DPDTreeClassifierCV(max_depths=[1, 3], cv=3).fit(X, y)
    model = DPDTreeClassifierCV(max_depths=depths, cv=3).fit(X, y)
    assert_array_equal(model.validation_curve_, as_list.validation_curve_)
    assert_tree_equal(model.tree_, as_list.tree_)


def test_cv_curve_layout():
    X, y = _classification()
    curve = DPDTreeClassifierCV(max_depths=[3, 2], cv=3).fit(X, y).validation_curve_
    assert curve.dtype.names == ("max_depth", "alpha", "complexity", "mean_score", "std_score")
    for depth in (2, 3):
        rows = curve[curve["max_depth"] == depth]
        assert rows["alpha"][0] == 0 and np.all(np.diff(rows["alpha"]) > 0)
        # The refit's complexity can only fall as alpha grows.
        assert np.all(np.diff(rows["complexity"]) <= 1e-12)
    assert list(curve["max_depth"]) == sorted(curve["max_depth"])


@pytest.mark.parametrize("params, match", [
    (dict(max_depths=[]), "max_depths"),
    (dict(max_depths=[0, 2]), "max_depths"),
    (dict(max_depths=[2.5]), "max_depths"),
    (dict(max_depths="3"), "max_depths"),
    (dict(max_depths=np.array([[2, 3]])), "max_depths"),
    (dict(max_depths=range(0)), "max_depths"),
    (dict(cv="five"), "cv"),
    (dict(scoring="not_a_metric"), "scoring"),
    (dict(candidates=(0, 2)), "candidates"),
    (dict(alpha=0.1), "alpha"),
    (dict(selection="2se"), "selection"),
    (dict(selection=None), "selection"),
], ids=repr)
def test_cv_rejects_bad_parameters(params, match):
    X, y = _classification()
    with pytest.raises((ValueError, TypeError), match=match):
        DPDTreeClassifierCV(**params).fit(X, y)


def test_cv_rejects_bad_weights():
    X, y = _classification()
    with pytest.raises(ValueError, match="[Nn]egative"):
        DPDTreeClassifierCV(cv=3).fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="shape"):
        DPDTreeClassifierCV(cv=3).fit(X, y, sample_weight=np.ones(3))


def test_cv_is_in_the_public_api():
    assert {"DPDTreeClassifierCV", "DPDTreeRegressorCV"} <= set(dpdt.__all__)


def _expected_failed_checks(estimator):
    # A leaf of min_samples_leaf samples counts samples, as scikit-learn's trees do: a sample
    # of weight 2 is not two samples. The regressor's default (10) then fails weight
    # equivalence as DecisionTreeRegressor(min_samples_leaf=10) does; with 1 it passes below.
    if estimator.get_params().get("min_samples_leaf", 1) > 1:
        reason = "min_samples_leaf counts samples, not weight"
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}
    return {}


@parametrize_with_checks([DPDTreeClassifierCV(cv=3), DPDTreeRegressorCV(cv=3),
                          DPDTreeRegressorCV(cv=3, min_samples_leaf=1),
                          DPDTreeClassifierCV(cv=3, selection="1se"),
                          DPDTreeClassifierCV(max_depths=[1, 2], cv=3,
                                              complexity="expected_tests")],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_plot_pareto_draws_the_cv_estimators_curve(kind):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if kind == "classifier":
        X, y = _classification()
        model = DPDTreeClassifierCV(max_depths=[2, 3], cv=3).fit(X, y)
    else:
        X, y = _regression()
        model = DPDTreeRegressorCV(max_depths=[2, 3], cv=3).fit(X, y)
    ax = dpdt.plot_pareto(model, X=X, y=y)
    curve = model.validation_curve_
    drawn = {line.get_label(): line for line in ax.figure.axes[-1].lines}
    for depth in (2, 3):
        rows = np.sort(curve[curve["max_depth"] == depth], order="complexity")
        line = drawn[f"validation (depth {depth})"]
        assert_array_equal(line.get_xdata(), rows["complexity"])
        assert_array_equal(line.get_ydata(), rows["mean_score"])
    plt.close(ax.figure)


@pytest.mark.parametrize(("make", "scoring", "weighted"), [
    (DPDTreeRegressorCV, "average_precision", False),
    (DPDTreeClassifierCV, "adjusted_mutual_info_score", True)])
def test_a_scoring_that_cannot_score_is_a_clear_error(make, scoring, weighted):
    # The first lacks predict_proba on a regressor, the second takes no sample_weight: both
    # raised AttributeError or TypeError from inside scikit-learn.
    X = np.arange(40.0).reshape(20, 2)
    y = np.array([0, 1, 1, 0] * 5)
    weight = np.ones(20) if weighted else None
    with pytest.raises(ValueError, match=f"scoring .*{scoring[:12]}.* cannot score"):
        make(max_depth=2, cv=2, scoring=scoring).fit(X, y, sample_weight=weight)


@pytest.mark.parametrize("Estimator", [DPDTreeClassifierCV, DPDTreeRegressorCV])
def test_max_depth_outside_max_depths_is_an_error(Estimator):
    X, y = load_iris(return_X_y=True)
    model = Estimator(max_depth=5, max_depths=[1, 2], cv=2)
    with pytest.raises(ValueError, match=r"max_depth=5 is not among max_depths=\[1, 2\]"):
        model.fit(X, y)


def test_max_depth_among_max_depths_or_default_is_unused():
    # max_depths decides: a max_depth among them, or left at its default, changes nothing.
    X, y = load_iris(return_X_y=True)
    alone = DPDTreeClassifierCV(max_depths=[1, 2], cv=3).fit(X, y)
    for max_depth in (1, 2, 3):
        both = DPDTreeClassifierCV(max_depth=max_depth, max_depths=[1, 2], cv=3).fit(X, y)
        assert_array_equal(both.validation_curve_, alone.validation_curve_)
        assert set(both.validation_curve_["max_depth"]) == {1, 2}


@pytest.mark.parametrize("frame", [True, False], ids=["DataFrame", "array"])
@pytest.mark.parametrize("cls", [DPDTreeClassifierCV, DPDTreeRegressorCV])
def test_data_as_fitted_reaches_every_path_without_warnings(cls, frame, tmp_path):
    # The CV's fits take the validated array; a refit without the CV's feature names warned
    # once per tree of the front when a picture or a score handed it the DataFrame.
    import warnings

    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    X, y = _classification() if cls is DPDTreeClassifierCV else _regression()
    if frame:
        X = pd.DataFrame(X, columns=[f"feature {j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cv = cls(max_depths=[2, 3], cv=3).fit(X, y)
        cv.score(X, y)
        cv.best_estimator_.score(X, y)
        cv.predict(X[:5])
        cv.apply(X[:5])
        cv.decision_path(X[:5])
        dpdt.plot_pareto(cv, X=X, y=y, X_test=X, y_test=y)
        dpdt.export_html(cv, X_test=X, y_test=y, X=X, y=y)
        figures = dpdt._front.held_out_figures(cv, X, y)
        cv.save(tmp_path / "cv.json")
        dpdt.load(tmp_path / "cv.json").best_estimator_.predict(X[:5])
    assert np.isfinite(figures).all()
    matplotlib.pyplot.close("all")
    names = getattr(cv.best_estimator_, "feature_names_in_", None)
    assert_array_equal(names, getattr(cv, "feature_names_in_", None))
    if frame:
        # Both as scikit-learn's own estimators: an array where names were fitted warns, other
        # names are an error.
        with pytest.warns(UserWarning, match="X does not have valid feature names, but "):
            cv.predict(np.asarray(X))
        with pytest.raises(ValueError, match="feature names should match"):
            cv.predict(X.rename(columns={"feature 0": "other"}))


def test_a_state_limit_that_stops_fits_is_named_not_the_time_limit():
    # Each fit stopped by max_states warns with its limit; the CV's one warning names it.
    rng = np.random.default_rng(0)
    X = rng.random((600, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPDTreeClassifierCV(max_states=100).fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(messages) == 1, messages
    assert "max_states=100 reached" in messages[0] and "time_limit" not in messages[0]
