"""``monotonic_cst``: its validation, and every tree each estimator can return checked monotone.

The check (``_monotone.assert_monotone``) compares the boxes of every pair of leaves, so it does
not trust how the tree was built; ``test_monotone_check.py`` checks it against ground truth.
"""

from pathlib import Path

import numpy as np
import pytest
from _monotone import assert_monotone, violations
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import InvalidParameterError

from dpdt import (
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    load,
)
from dpdt._boosting import _hold_monotone

ROOT = Path(__file__).resolve().parents[1]


def _data(seed, n=240, p=4, classifier=False, weights=False):
    """A signal that rises then falls along feature 0, falls then rises along feature 1, and
    has an interaction of features 2 and 3: no monotone tree follows it, and the unconstrained
    trees break every constraint of the tests (so that they bind)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).round(2)
    signal = (2.0 * (X[:, 0] > 0) - 3.0 * (X[:, 0] > 1) - 2.0 * (X[:, 1] > 0)
              + 3.0 * (X[:, 1] > 1) + X[:, 2] * X[:, 3])
    y = signal + rng.normal(scale=0.5, size=n)
    if classifier:
        y = (y > 0).astype(int)
    w = rng.uniform(0.1, 3.0, size=n) if weights else None
    return X, y, w


CONSTRAINTS = [[1, 0, 0, 0], [1, -1, 0, 0], [-1, 1, 0, 0], [1, -1, 1, -1]]


def _tree_class(classifier):
    return DPDTreeClassifier if classifier else DPDTreeRegressor


def _assert_front_monotone(model, cst):
    """Every tree of the front, and the tree of every alpha and budget, is monotone."""
    classifier = hasattr(model, "classes_")
    for tree in model.trees_:
        assert_monotone(tree, cst, classifier)
    front = model.pareto_front_
    alphas = np.unique(np.concatenate([[0.0], front["alpha_min"][np.isfinite(front["alpha_min"])],
                                       front["alpha_max"][np.isfinite(front["alpha_max"])]]))
    for alpha in alphas:
        assert_monotone(model.set_params(alpha=float(alpha), max_complexity=None).tree_, cst,
                        classifier)
    for leaves in range(1, int(front["n_leaves"].max()) + 1):
        assert_monotone(model.select_tree(max_leaves=leaves).tree_, cst, classifier)
    model.set_params(alpha=0.0, max_complexity=None)


# ------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("cls", [DPDTreeClassifier, DPDTreeRegressor, DPDTreeClassifierCV,
                                 DPDTreeRegressorCV, DPDTGradientBoostingClassifier,
                                 DPDTGradientBoostingRegressor])
@pytest.mark.parametrize("cst, message", [
    ([1, 0, 0], r"monotonic_cst has shape \(3,\) but the input data X has 4 features"),
    ([1, 0, 0, 0, 0], r"monotonic_cst has shape \(5,\) but the input data X has 4 features"),
    ([[1, 0, 0, 0]], r"monotonic_cst has shape \(1, 4\) but the input data X has 4 features"),
    ([], r"monotonic_cst has shape \(0,\) but the input data X has 4 features"),
    ([2, 0, 0, 0], r"monotonic_cst must be None or an array-like of -1, 0 or 1, but got \[0 2\]"),
    ([0.5, 0, 0, 0], "must be None or an array-like of -1, 0 or 1"),
    ([np.nan, 0, 0, 0], "must be None or an array-like of -1, 0 or 1"),
    (["1", 0, 0, 0], "must be None or an array-like of -1, 0 or 1"),
    ([None, 1, 0, 0], "must be None or an array-like of -1, 0 or 1"),
    ([1j, 0, 0, 0], "must be None or an array-like of -1, 0 or 1"),
])
def test_invalid_constraints_raise_scikit_learns_errors(cls, cst, message):
    X, y, _ = _data(0, n=60, classifier="Classifier" in cls.__name__)
    with pytest.raises(ValueError, match=message):
        cls(max_depth=2, monotonic_cst=cst).fit(X, y)


@pytest.mark.parametrize("cls", [DPDTreeClassifier, DPDTreeRegressor,
                                 DPDTGradientBoostingClassifier])
def test_a_scalar_or_string_is_refused_by_the_parameter_check(cls):
    X, y, _ = _data(0, n=60, classifier=True)
    for cst in (1, "1,0,0,0"):
        with pytest.raises(InvalidParameterError, match="monotonic_cst"):
            cls(monotonic_cst=cst).fit(X, y)


@pytest.mark.parametrize("cls", [DPDTreeClassifier, DPDTreeClassifierCV,
                                 DPDTGradientBoostingClassifier])
@pytest.mark.parametrize("cst", [[1, 0, 0, 0], [0, 0, 0, 0]])
def test_multiclass_is_refused_as_by_scikit_learn(cls, cst):
    X, y = load_iris(return_X_y=True)
    # Even constraints that are all 0, as scikit-learn refuses any with more than two classes.
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        cls(max_depth=2, monotonic_cst=cst).fit(X, y)
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        DecisionTreeClassifier(max_depth=2, monotonic_cst=cst).fit(X, y)
    cls(max_depth=2).fit(X, y)   # and no constraint is fine


@pytest.mark.parametrize("cls", [DPDTreeRegressor, DPDTreeRegressorCV])
def test_several_outputs_are_refused_as_by_scikit_learn(cls):
    X, y, _ = _data(0, n=60)
    with pytest.raises(ValueError, match="not supported with multiple outputs"):
        cls(max_depth=2, monotonic_cst=[1, 0, 0, 0]).fit(X, np.column_stack([y, -y]))


@pytest.mark.parametrize("cls", [DPDTreeClassifier, DPDTreeRegressor, DPDTreeClassifierCV,
                                 DPDTreeRegressorCV, DPDTGradientBoostingClassifier,
                                 DPDTGradientBoostingRegressor])
def test_a_dict_by_feature_name(cls):
    pd = pytest.importorskip("pandas")
    classifier = "Classifier" in cls.__name__
    X, y, _ = _data(1, n=120, classifier=classifier)
    frame = pd.DataFrame(X, columns=["rise", "fall", "a", "b"])
    small = {"n_estimators": 3} if "Boosting" in cls.__name__ else {"max_depth": 2}
    by_name = cls(**small, monotonic_cst={"rise": 1, "fall": -1}).fit(frame, y)
    by_array = cls(**small, monotonic_cst=[1, -1, 0, 0]).fit(X, y)
    assert np.array_equal(by_name.predict(frame), by_array.predict(X))
    with pytest.raises(ValueError, match=r"monotonic_cst contains 1 unexpected feature names: "
                                         r"\['height'\]"):
        cls(**small, monotonic_cst={"rise": 1, "height": 1}).fit(frame, y)
    for bad in (2, 0.5, np.nan, "1", [1], None):
        with pytest.raises(ValueError, match=r"monotonic_cst\['rise'\] must be either -1, 0 or 1"):
            cls(**small, monotonic_cst={"rise": bad}).fit(frame, y)
    with pytest.raises(ValueError, match="was not fitted on data with feature names"):
        cls(**small, monotonic_cst={"rise": 1}).fit(X, y)
    # A Series labelled by feature names means them, in any order, as the dict does.
    for labelled in (pd.Series({"b": 0, "fall": -1, "a": 0, "rise": 1}),
                     pd.Series({"fall": -1, "rise": 1})):
        by_series = cls(**small, monotonic_cst=labelled).fit(frame, y)
        assert np.array_equal(by_series.predict(frame), by_array.predict(X))
    with pytest.raises(ValueError, match="unexpected feature names"):
        cls(**small, monotonic_cst=pd.Series({"rise": 1, "height": 1})).fit(frame, y)


@pytest.mark.parametrize("cls", [DPDTreeClassifier, DPDTreeRegressor])
def test_constraints_held_as_objects_are_numbers_as_for_scikit_learn(cls):
    pd = pytest.importorskip("pandas")
    X, y, _ = _data(1, n=120, classifier=cls is DPDTreeClassifier)
    by_array = cls(max_depth=2, monotonic_cst=[1, -1, 0, 0]).fit(X, y)
    for held in (np.array([1, -1, 0, 0], dtype=object), pd.Series([1, -1, 0, 0], dtype=object),
                 pd.Series([1, -1, 0, 0]), [True, -1, False, 0.0]):
        model = cls(max_depth=2, monotonic_cst=held).fit(X, y)
        assert np.array_equal(model.pareto_front_, by_array.pareto_front_)
    for bad in ([1, -1, 0, None], [1, -1, 0, "0"], pd.array([1, -1, 0, None], dtype="Int64")):
        with pytest.raises(ValueError, match="must be None or an array-like of -1, 0 or 1"):
            cls(max_depth=2, monotonic_cst=bad).fit(X, y)


@pytest.mark.parametrize("classifier", [False, True])
def test_a_dict_by_feature_name_on_automatic_bins(classifier):
    # The bins keep the thresholds of a greedy tree fitted first, on the validated array: it
    # takes the dict's constraints as an array.
    pd = pytest.importorskip("pandas")
    X, y, _ = _data(2, n=12_000, classifier=classifier)
    frame = pd.DataFrame(X, columns=["rise", "fall", "a", "b"])
    by_name = _tree_class(classifier)(monotonic_cst={"rise": 1, "fall": -1}).fit(frame, y)
    by_array = _tree_class(classifier)(monotonic_cst=[1, -1, 0, 0]).fit(X, y)
    assert by_name.n_bins_ is not None
    assert np.array_equal(by_name.pareto_front_, by_array.pareto_front_)


@pytest.mark.parametrize("classifier", [False, True])
def test_constraints_all_zero_fit_the_unconstrained_tree(classifier):
    X, y, _ = _data(2, classifier=classifier)
    free = _tree_class(classifier)(max_depth=3).fit(X, y)
    zero = _tree_class(classifier)(max_depth=3, monotonic_cst=np.zeros(4, dtype=int)).fit(X, y)
    assert np.array_equal(free.pareto_front_, zero.pareto_front_)
    assert np.array_equal(free.tree_.value, zero.tree_.value)


# ------------------------------------------------------------------ every tree is monotone


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("cst", CONSTRAINTS)
@pytest.mark.parametrize("splitter", ["auto", "cart", "topk", "exhaustive"])
def test_every_tree_of_the_front_is_monotone(classifier, cst, splitter):
    # Without constraints these data give trees that are not monotone: the test can fail.
    depth = 2 if splitter == "exhaustive" else 3
    X, y, _ = _data(3, n=120 if splitter == "exhaustive" else 240, classifier=classifier)
    free = _tree_class(classifier)(max_depth=depth, splitter=splitter).fit(X, y)
    assert any(violations(tree, cst, classifier) for tree in free.trees_)
    model = _tree_class(classifier)(max_depth=depth, splitter=splitter,
                                    monotonic_cst=cst).fit(X, y)
    _assert_front_monotone(model, cst)


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("cst", CONSTRAINTS[:2])
@pytest.mark.parametrize("options", [
    {"front": "pareto"}, {"complexity": "n_splits"}, {"max_bins": 16},
    {"min_samples_leaf": 5}, {"candidates": 5}, {"max_depth": 4},
], ids=str)
def test_every_tree_is_monotone_whatever_the_options(classifier, cst, options):
    X, y, w = _data(4, classifier=classifier, weights=True)
    model = _tree_class(classifier)(**{"max_depth": 3, **options}, monotonic_cst=cst)
    _assert_front_monotone(model.fit(X, y, sample_weight=w), cst)


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("weights", [False, True])
def test_the_fronts_losses_are_those_of_the_clipped_trees_predictions(classifier, weights):
    # A clipped leaf predicts its clipped value (for a classifier, the class that value
    # favours, which need not be its majority): the loss the search minimised is the one the
    # returned tree makes.
    X, y, w = _data(11, classifier=classifier, weights=weights)
    w = np.ones(len(y)) if w is None else w
    model = _tree_class(classifier)(max_depth=3, front="pareto", monotonic_cst=[1, -1, 1, 0])
    model.fit(X, y, sample_weight=w)
    for k in range(len(model.trees_)):
        model.set_params(alpha=0.0, max_complexity=float(model.pareto_front_["complexity"][k]))
        errors = (model.predict(X) != y) if classifier else (model.predict(X) - y) ** 2
        loss = model.pareto_front_["train_loss"][model._current_row()]
        assert np.isclose(np.average(errors, weights=w), loss, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("cst", CONSTRAINTS)
def test_sample_weights_and_the_single_alpha_fit(classifier, cst):
    X, y, w = _data(5, classifier=classifier, weights=True)
    for alpha in (0.0, 0.002, 0.02):
        model = _tree_class(classifier)(max_depth=3, splitter="exhaustive", full_front=False,
                                        alpha=alpha, monotonic_cst=cst)
        model.fit(X[:100], y[:100], sample_weight=w[:100])
        assert_monotone(model, cst)


@pytest.mark.parametrize("classifier", [False, True])
def test_missing_values_are_taken_and_the_tree_is_monotone_on_numbers(classifier):
    # scikit-learn's trees take NaN with monotonic constraints from 1.9 on: a missing value has
    # no order, so the promise is over the numbers, which the boxes of the leaves describe.
    X, y, _ = _data(6, classifier=classifier)
    X[np.random.default_rng(6).random(X.shape) < 0.15] = np.nan
    cst = [1, -1, 0, 0]
    model = _tree_class(classifier)(max_depth=3, monotonic_cst=cst).fit(X, y)
    _assert_front_monotone(model, cst)


@pytest.mark.parametrize("classifier", [False, True])
def test_the_cv_estimators_chosen_tree_is_monotone(classifier):
    X, y, _ = _data(7, classifier=classifier)
    cst = [1, -1, 0, 0]
    cls = DPDTreeClassifierCV if classifier else DPDTreeRegressorCV
    model = cls(max_depths=[2, 3], cv=3, monotonic_cst=cst).fit(X, y)
    assert_monotone(model.best_estimator_.tree_, cst, classifier)
    for refit in model._refits.values():
        _assert_front_monotone(refit, cst)
    for leaves in (2, 4):
        assert_monotone(model.select_tree(max_leaves=leaves).best_estimator_.tree_, cst,
                        classifier)


@pytest.mark.parametrize("classifier", [False, True])
def test_a_saved_model_loads_monotone(classifier, tmp_path):
    X, y, _ = _data(8, classifier=classifier)
    cst = [1, -1, 0, 0]
    model = _tree_class(classifier)(max_depth=3, monotonic_cst=cst).fit(X, y)
    model.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    assert loaded.get_params()["monotonic_cst"] == cst
    _assert_front_monotone(loaded, cst)
    assert np.array_equal(loaded.predict(X), model.predict(X))


def _staged_values(model, X):
    if hasattr(model, "classes_"):
        return [proba[:, 1] for proba in model.staged_predict_proba(X)]
    return list(model.staged_predict(X))


@pytest.mark.parametrize("options", [
    {"classifier": True},
    {"classifier": False, "loss": "squared_error"},
    {"classifier": False, "loss": "absolute_error"},
    {"classifier": False, "loss": "huber"},
    {"classifier": False, "loss": "absolute_error", "subsample": 0.5},
    {"classifier": True, "max_bins": None, "splitter": "topk"},
], ids=str)
@pytest.mark.parametrize("cst", [[1, -1, 0, 0], [-1, 0, 0, 1]])
def test_every_boosting_round_is_monotone(options, cst):
    options = dict(options)
    classifier = options.pop("classifier")
    X, y, w = _data(9, classifier=classifier, weights=True)
    cls = DPDTGradientBoostingClassifier if classifier else DPDTGradientBoostingRegressor
    model = cls(n_estimators=8, max_depth=3, learning_rate=0.5, **options)
    free = model.fit(X, y, sample_weight=w).estimators_
    assert any(violations(tree, cst, classifier=False) for trees in free for tree in trees)
    model.set_params(monotonic_cst=cst).fit(X, y, sample_weight=w)
    for trees in model.estimators_:
        for tree in trees:
            assert_monotone(tree, cst, classifier=False)   # the raw score
    # The sums of monotone trees, round by round: rows moved along the constraints.
    moved = X + np.abs(np.random.default_rng(9).normal(size=X.shape)) * np.asarray(cst)
    for before, after in zip(_staged_values(model, X), _staged_values(model, moved),
                             strict=True):
        assert np.all(after >= before - 1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_held_leaf_values_are_monotone_whatever_the_tree(seed):
    # The refit leaves of absolute error and Huber: any values on any tree come out monotone,
    # and values already monotone are kept.
    X, y, _ = _data(seed)
    tree = DecisionTreeRegressor(max_depth=4, random_state=seed).fit(X, y).tree_
    cst = np.array([1, -1, 0, 0])
    rng = np.random.default_rng(seed)

    class Values:   # the tree with other node values
        def __init__(self, values):
            self.children_left, self.children_right = tree.children_left, tree.children_right
            self.feature, self.threshold, self.value = tree.feature, tree.threshold, values
            self.node_count, self.is_leaf = tree.node_count, tree.children_left == -1

    raw = rng.normal(size=tree.node_count)
    assert violations(Values(raw), cst, classifier=False)
    held = _hold_monotone(Values(raw), raw, cst)
    assert not violations(Values(held), cst, classifier=False)
    # scikit-learn's monotone tree holds the values of the same rule: nothing moves (but for
    # rounding, its midpoints being of values it rounded differently).
    tree = DecisionTreeRegressor(max_depth=4, monotonic_cst=cst, random_state=seed).fit(X, y).tree_
    values = tree.value[:, 0, 0]
    assert np.allclose(_hold_monotone(Values(values), values, cst), values, rtol=1e-12,
                       atol=1e-12)


# ------------------------------------------------------------------------------ guarantee


def _binary_sets():
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X, y
    data = np.load(ROOT / "tests" / "data" / "tictactoe.npz")
    yield "tictactoe", data["X"].astype(float), data["y"]
    for name in ("australian-credit", "compas", "heart-cleveland"):
        data = np.load(ROOT / "benchmarks" / "data" / "binary" / f"{name}.npz")
        yield name, data["X"].astype(float), data["y"]


def _binding_constraints(X, y):
    """Constraints a tree must work around: on the 6 features most correlated with y, the
    sign of the correlation, reversed on every third (so the constraints bind); free elsewhere."""
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.nan_to_num([np.corrcoef(X[:, j], y)[0, 1] for j in range(X.shape[1])])
    cst = np.zeros(X.shape[1], dtype=int)
    for k, j in enumerate(np.argsort(-np.abs(corr))[:6]):
        cst[j] = int(np.sign(corr[j])) * (-1 if k % 3 == 2 else 1)
    return cst


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("name, X, y", list(_binary_sets()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_never_less_accurate_than_scikit_learns_monotone_cart(name, X, y, depth):
    """The default's training accuracy is at least scikit-learn's monotone CART's.

    Both apply the same rule: a split on a constrained feature is admissible only when its
    children's values (the probability of ``classes_[1]``), clipped to the bounds the node
    inherits, are in the constraint's order, and each child's subtree is then bounded by the
    midpoint of the two values. scikit-learn's CART is one tree that rule admits, grown
    greedily. At every state of that tree, DPDT's candidate splits include CART's split under
    the same rule and bounds (its CART generator is that greedy step, and the bins of large
    data keep that tree's thresholds), so the tree lies in the space the dynamic programme
    searches, and the programme's optimum over that space cannot be worse on the training
    objective.
    """
    cst = _binding_constraints(X, y)
    cart = DecisionTreeClassifier(max_depth=depth, monotonic_cst=cst, random_state=0).fit(X, y)
    model = DPDTreeClassifier(max_depth=depth, monotonic_cst=cst).fit(X, y)
    assert_monotone(model, cst)
    assert model.score(X, y) >= cart.score(X, y) - 1e-12


REGRESSION_SETS = {"diabetes", "synthetic"}


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("depth", [3, 5])
def test_the_guarantee_holds_on_automatic_bins(classifier, depth):
    # 12 of 12 000 rows stand apart at the top of feature 0's range, which quantile bins of
    # about 47 rows hide and CART's thresholds isolate; feature 1 rises and falls, against its
    # constraint. The automatic bins hold the thresholds of the greedy tree under the same
    # rule, fitted first on exact values.
    rng = np.random.default_rng(0)
    X = rng.random((12_000, 4))
    y = (X[:, 2] > 0.5) + ((X[:, 1] > 0.3) & (X[:, 1] < 0.6)) + 0.1 * rng.standard_normal(12_000)
    y[np.argsort(X[:, 0])[-12:]] += 50.0
    if classifier:
        y = (y > 1.0).astype(int)
    cst = [1, 1, 1, -1]
    cart = (DecisionTreeClassifier if classifier else DecisionTreeRegressor)(
        max_depth=depth, monotonic_cst=cst, random_state=0).fit(X, y)
    model = _tree_class(classifier)(max_depth=depth, monotonic_cst=cst).fit(X, y)
    assert model.n_bins_ is not None
    assert_monotone(model, cst)
    assert model.score(X, y) >= cart.score(X, y) - 1e-9
    if depth == 3:   # the test bites: quantile bins alone lose the rare rows
        quantiles = model.set_params(max_bins=255).fit(X, y)
        assert quantiles.score(X, y) < cart.score(X, y)


def _regression_sets():
    X, y = load_diabetes(return_X_y=True)
    yield "diabetes", X, y
    X, y, _ = _data(10, n=400)
    yield "synthetic", X, y


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("name, X, y", list(_regression_sets()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_never_a_larger_error_than_scikit_learns_monotone_cart(name, X, y, depth):
    """The default's training mean squared error is at most scikit-learn's monotone CART's.

    The same argument as for classification (see
    ``test_never_less_accurate_than_scikit_learns_monotone_cart``), on the leaf means.
    """
    cst = _binding_constraints(X, y)
    cart = DecisionTreeRegressor(max_depth=depth, monotonic_cst=cst, random_state=0).fit(X, y)
    model = DPDTreeRegressor(max_depth=depth, monotonic_cst=cst).fit(X, y)
    assert_monotone(model, cst)
    cart_mse = np.mean((cart.predict(X) - y) ** 2)
    mse = np.mean((model.predict(X) - y) ** 2)
    assert mse <= cart_mse * (1 + 1e-9)


@pytest.mark.parametrize("name, X, y", list(_binary_sets()) + list(_regression_sets()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_the_guarantees_constraints_bind(name, X, y):
    # Else the guarantee would be the unconstrained one: scikit-learn's unconstrained CART of
    # depth 4 breaks them.
    cart = (DecisionTreeRegressor if name in REGRESSION_SETS else DecisionTreeClassifier)(
        max_depth=4, random_state=0).fit(X, y)
    assert violations(cart.tree_, _binding_constraints(X, y), name not in REGRESSION_SETS)


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("seed", [0, 2, 11])
def test_a_stopped_exact_search_is_never_worse_than_the_default(classifier, seed):
    # With constraints, splitter="exhaustive", full_front=False is the front's exact search
    # (the bounded one knows no value bounds); stopped by a limit, it keeps the heuristic tree
    # when that is better, as the bounded search does. The limit leaves the default's whole
    # search room (it takes about 250 states).
    rng = np.random.RandomState(seed)
    X = rng.rand(600, 8)
    signal = X[:, 0] + X[:, 1] * X[:, 2] - X[:, 5] * X[:, 6] + .4 * rng.rand(600)
    y = (signal > .6).astype(int) if classifier else signal
    cst = [1, 1, 0, 0, 0, -1, 0, 0]
    cls = _tree_class(classifier)
    default = cls(max_depth=3, monotonic_cst=cst).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_states"):
        exact = cls(max_depth=3, splitter="exhaustive", full_front=False, max_states=1000,
                    monotonic_cst=cst).fit(X, y)
    assert exact.stats_["stopped_by"] == "max_states"
    assert exact.objective_ <= default.objective_ + 1e-12
    assert_monotone(exact.tree_, cst, classifier)
