"""doubly_robust_rewards: the AIPW scores, their cross-fitting, and what they refuse."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

from dpdt import doubly_robust_rewards


@pytest.fixture(autouse=True)
def _one_openmp_thread():
    # The default models' OpenMP threads wait on each other for seconds per fit on these tiny
    # folds when the machine is busy (as the test runs make it).
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


def confounded(n, seed):
    """Three actions whose propensities depend on x, with known potential outcomes.

    ``mu[:, a]`` is the expected outcome of action ``a`` given x; the treated are chosen by x,
    so that the naive mean outcome of each arm is biased.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    mu = np.column_stack([X[:, 0], 1.0 + X[:, 1], 0.5 + 0.0 * X[:, 2]])
    logits = np.column_stack([np.zeros(n), X[:, 0], -X[:, 1]])
    propensity = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    treatment = np.array([rng.choice(3, p=p) for p in propensity])
    outcome = mu[np.arange(n), treatment] + rng.normal(size=n)
    return X, treatment, outcome, mu


def test_mean_scores_estimate_mean_potential_outcomes():
    X, treatment, outcome, mu = confounded(4000, 0)
    rewards = doubly_robust_rewards(X, treatment, outcome, cv=2, random_state=0)
    assert rewards.shape == (4000, 3)
    error = rewards.mean(axis=0) - mu.mean(axis=0)
    standard_error = rewards.std(axis=0) / np.sqrt(len(X))
    assert np.all(np.abs(error) < 4 * standard_error)
    # The naive arm means are off by far more: the test data are confounded.
    naive = np.array([outcome[treatment == a].mean() for a in range(3)])
    assert np.max(np.abs(naive - mu.mean(axis=0))) > 4 * standard_error.max()


def test_known_constant_propensity_and_correct_model_are_unbiased():
    # A randomised experiment: the propensities are known and constant. Over many replications
    # the mean score of each action is centred on the mean potential outcome.
    p = np.array([0.2, 0.5, 0.3])
    errors = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(300, 2))
        mu = np.column_stack([X[:, 0], 2.0 - X[:, 1], 0.5 * X.sum(axis=1)])
        treatment = rng.choice(3, p=p, size=300)
        outcome = mu[np.arange(300), treatment] + rng.normal(size=300)
        rewards = doubly_robust_rewards(X, treatment, outcome, cv=2, random_state=seed,
                                        outcome_model=LinearRegression(),
                                        propensity_model=np.tile(p, (300, 1)))
        errors.append(rewards.mean(axis=0) - mu.mean(axis=0))
    errors = np.array(errors)
    standard_error = errors.std(axis=0) / np.sqrt(len(errors))
    assert np.all(np.abs(errors.mean(axis=0)) < 4 * standard_error)


def test_scores_follow_the_formula():
    # An outcome model predicting 0 leaves the inverse propensity weighted outcome, exactly.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    treatment = np.array(["b", "a", "c"] * 16 + ["a", "b"])
    outcome = rng.normal(size=50)
    propensity = rng.uniform(0.2, 0.6, size=(50, 3))
    propensity /= propensity.sum(axis=1, keepdims=True)   # a design: each row a distribution
    rewards = doubly_robust_rewards(
        X, treatment, outcome, outcome_model=DummyRegressor(strategy="constant", constant=0.0),
        propensity_model=propensity, cv=2, random_state=0)
    codes = np.searchsorted(["a", "b", "c"], treatment)
    expected = np.zeros((50, 3))
    expected[np.arange(50), codes] = outcome / propensity[np.arange(50), codes]
    np.testing.assert_allclose(rewards, expected, rtol=1e-12)


class _TinyPropensity(ClassifierMixin, BaseEstimator):
    """Gives the first action probability 1e-6 everywhere."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        k = len(self.classes_)
        proba = np.full((len(X), k), (1 - 1e-6) / (k - 1))
        proba[:, 0] = 1e-6
        return proba


@pytest.mark.parametrize("floor", [0.01, 0.2])
def test_propensities_are_clipped_at_the_floor(floor):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    treatment = np.arange(40) % 2
    outcome = rng.normal(size=40)
    rewards = doubly_robust_rewards(
        X, treatment, outcome, outcome_model=DummyRegressor(strategy="constant", constant=0.0),
        propensity_model=_TinyPropensity(), min_propensity=floor, cv=2, random_state=0)
    first = treatment == 0
    np.testing.assert_allclose(rewards[first, 0], outcome[first] / floor)
    np.testing.assert_allclose(rewards[~first, 1], outcome[~first] / (1 - 1e-6))


def test_dataframe_in_dataframe_out_with_named_actions():
    X, treatment, outcome, _ = confounded(600, 3)
    names = np.array(["control", "drug", "surgery"])[treatment]
    frame = pd.DataFrame(X, columns=["age", "dose", "bmi"], index=np.arange(600) * 2 + 7)
    rewards = doubly_robust_rewards(frame, pd.Series(names), outcome, cv=2, random_state=0)
    assert list(rewards.columns) == ["control", "drug", "surgery"]
    assert rewards.index.equals(frame.index)
    # The same scores from arrays, and the actions' order chosen by the caller.
    array = doubly_robust_rewards(X, names, outcome, cv=2, random_state=0)
    np.testing.assert_allclose(rewards.to_numpy(), array)
    reordered = doubly_robust_rewards(X, names, outcome, cv=2, random_state=0,
                                      actions=["surgery", "control", "drug"])
    np.testing.assert_allclose(reordered, array[:, [2, 0, 1]])


def test_same_seed_same_rewards_and_a_splitter_as_cv():
    X, treatment, outcome, _ = confounded(300, 4)
    first = doubly_robust_rewards(X, treatment, outcome, cv=2, random_state=5)
    np.testing.assert_array_equal(first, doubly_robust_rewards(X, treatment, outcome, cv=2,
                                                               random_state=5))
    folds = KFold(3, shuffle=True, random_state=0)
    assert doubly_robust_rewards(X, treatment, outcome, cv=folds).shape == (300, 3)


def test_missing_values_in_X_are_taken():
    X, treatment, outcome, _ = confounded(500, 5)
    X[::7, 1] = np.nan
    assert np.isfinite(doubly_robust_rewards(X, treatment, outcome, cv=2,
                                             random_state=0)).all()


def test_a_feature_missing_for_every_sample_of_an_action_is_left_out():
    # Gradient boosting refuses a feature with no value; the feature carries nothing there.
    X, treatment, outcome, _ = confounded(400, 7)
    X[treatment == 2, 1] = np.nan
    X[:, 2] = np.nan
    rewards = doubly_robust_rewards(X, treatment, outcome, cv=2, random_state=0)
    assert np.isfinite(rewards).all()
    frame = doubly_robust_rewards(pd.DataFrame(X), treatment, outcome, cv=2, random_state=0)
    np.testing.assert_allclose(frame.to_numpy(), rewards)


@pytest.mark.parametrize("change, message", [
    (dict(treatment=np.r_[np.zeros(30), np.ones(29)]), "inconsistent numbers of samples"),
    (dict(outcome=np.ones(61)), "inconsistent numbers of samples"),
    (dict(treatment=np.r_[np.nan, np.arange(59) % 2]), "NaN"),
    (dict(treatment=np.array([None] + ["a", "b"] * 29 + ["a"], dtype=object)), "missing"),
    (dict(treatment=np.zeros(60)), "at least two actions"),
    (dict(actions=[0, 1, 2]), "action 2 was never received"),
    (dict(actions=[0, 0]), "distinct"),
    (dict(treatment=np.r_[2, np.arange(59) % 2], actions=[0, 1]),
     "treatment 2 is not among the actions"),
    (dict(treatment=np.r_[2, np.arange(59) % 2], actions=None, cv=3),
     "never received action 2"),
    (dict(outcome=np.r_[np.nan, np.ones(59)]), "NaN"),
    (dict(cv=1), "cv must be"),
    (dict(min_propensity=0.0), "min_propensity"),
    (dict(propensity_model=np.full((60, 3), 0.5)), "shape"),
    (dict(propensity_model=np.full((60, 2), 0.001)), r"\[min_propensity, 1\]"),
    # Probabilities each, but not of one sample's one treatment among the actions.
    (dict(propensity_model=np.full((60, 2), 0.9)), "sum to 1 over the actions.*row 0 sums to 1.8"),
    (dict(propensity_model=np.r_[[[0.5, 0.5]] * 59, [[0.3, 0.3]]]), "row 59 sums to 0.6"),
    # A missing treatment in each of the forms pandas and numpy give it.
    (dict(treatment=pd.Series(["a", "b"] * 29 + ["a", None], dtype="string")), "missing"),
    (dict(treatment=pd.Categorical(["a", "b"] * 29 + [None, "a"])), "missing values.*row 58"),
    (dict(treatment=pd.Series([0, 1] * 29 + [None, 1], dtype="Int64")), "missing"),
    (dict(treatment=pd.Series(pd.to_datetime(["2020", "2021"] * 29 + [None, "2020"]))),
     "missing"),
    (dict(treatment=np.array(["2020", "NaT"] * 30, dtype="datetime64[D]")), "missing"),
])
def test_invalid_inputs_are_refused(change, message):
    rng = np.random.default_rng(6)
    arguments = dict(X=rng.normal(size=(60, 2)), treatment=np.arange(60) % 2,
                     outcome=rng.normal(size=60), actions=[0, 1], cv=2)
    arguments.update(change)
    if "treatment" in change and "actions" not in change:
        arguments["actions"] = None
    with pytest.raises(ValueError, match=message):
        doubly_robust_rewards(**arguments)


@pytest.mark.parametrize("change", [
    dict(treatment=np.array([0, "1"] * 30, dtype=object)),
    dict(treatment=np.arange(60) % 2, actions=np.array([0, "1"], dtype=object)),
])
def test_labels_of_types_that_do_not_compare_are_a_type_error(change):
    rng = np.random.default_rng(6)
    arguments = dict(X=rng.normal(size=(60, 2)), treatment=np.arange(60) % 2,
                     outcome=rng.normal(size=60), cv=2)
    arguments.update(change)
    with pytest.raises(TypeError, match=r"mixes labels of types that do not compare \(int, str\)"):
        doubly_robust_rewards(**arguments)


def test_known_propensities_of_a_design_are_taken_to_rounding():
    rng = np.random.default_rng(6)
    X, treatment, outcome = rng.normal(size=(60, 2)), np.arange(60) % 3, rng.normal(size=60)
    third = np.full((60, 3), 1 / 3)   # sums to 1 up to rounding
    rewards = doubly_robust_rewards(X, treatment, outcome, propensity_model=third, cv=2,
                                    outcome_model=LinearRegression())
    assert np.isfinite(rewards).all()


def test_text_columns_are_categories_for_the_default_models():
    # A new user's DataFrame: a column of text. The default models take it as the category
    # column it means; a given model takes X as it is.
    rng = np.random.default_rng(3)
    n = 300
    group = rng.choice(["north", "south", "east"], n)
    frame = pd.DataFrame({"x": rng.normal(size=n), "group": group})
    treatment = rng.integers(0, 2, n)
    outcome = (group == "north") * treatment + rng.normal(size=n)
    as_text = doubly_robust_rewards(frame, treatment, outcome, cv=2, random_state=0)
    as_category = doubly_robust_rewards(frame.astype({"group": "category"}), treatment, outcome,
                                        cv=2, random_state=0)
    pd.testing.assert_frame_equal(as_text, as_category)
    for dtype in ("string", object):
        pd.testing.assert_frame_equal(doubly_robust_rewards(
            frame.astype({"group": dtype}), treatment, outcome, cv=2, random_state=0), as_text)
    # Numbers held as objects stay numbers.
    numbers = frame.assign(group=(group == "north").astype(float).astype(object))
    pd.testing.assert_frame_equal(
        doubly_robust_rewards(numbers, treatment, outcome, cv=2, random_state=0),
        doubly_robust_rewards(numbers.astype(float), treatment, outcome, cv=2, random_state=0))
