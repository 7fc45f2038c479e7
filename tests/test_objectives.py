"""The objectives' descriptors: what the core and the estimators rely on them for."""

import pickle
import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import dpdt
from dpdt import _core, _runner
from dpdt._objectives import (
    CLASSIFICATION,
    NEWTON,
    OBJECTIVES,
    POLICY,
    SQUARED_ERROR,
    Objective,
)
from dpdt._tree import Tree


def test_the_descriptors_are_the_core_objectives():
    # The core names its objectives when asked for another.
    with pytest.raises(ValueError, match="kind must be one of") as error:
        _core.fit("no such objective", np.zeros((2, 1)), np.zeros(2, dtype=np.int32),
                  np.ones(2), _core.Params())
    assert set(re.findall(r"'(\w+)'", str(error.value))) == set(OBJECTIVES)
    assert _runner._PARAMS["fit"] is _core.Params and "fit" in _runner._STOPPABLE


@pytest.mark.parametrize("objective", OBJECTIVES.values(), ids=OBJECTIVES)
def test_every_objective_is_listed_by_name_and_pickles(objective):
    assert OBJECTIVES[objective.name] is objective
    # Sent to the workers of a Dask fit: a copy is the same descriptor.
    assert pickle.loads(pickle.dumps(objective)) == objective


def test_the_estimators_objectives_are_the_listed_ones():
    from dpdt.dask import DaskDPDTreeClassifier, DaskDPDTreePolicy, DaskDPDTreeRegressor

    assert dpdt.DPDTreeClassifier._objective is CLASSIFICATION
    assert dpdt.DPDTreeRegressor._objective is SQUARED_ERROR
    for estimator in (DaskDPDTreeClassifier, DaskDPDTreeRegressor, DaskDPDTreePolicy):
        assert estimator()._objective() is estimator._local_class._objective


@pytest.mark.parametrize("objective, y", [
    (CLASSIFICATION, np.array([0, 1, 1, 2], dtype=np.int32)),
    (SQUARED_ERROR, np.array([[1.0, -2.0], [3.0, 0.5], [0.0, 0.0], [7.0, 1.0]])),
    (POLICY, np.array([[1.0, -2.0, 0.0], [3.0, 0.5, 1.0], [0.0, 0.0, 0.0], [7.0, 1.0, 2.0]])),
], ids=["classification", "squared_error", "policy"])
def test_the_core_knows_each_data_parallel_objective_by_its_name(objective, y):
    n_columns = 3 if objective is CLASSIFICATION else y.shape[1]
    w = np.ones(len(y))
    scaled = objective.scale_of(y, w).to_core(y)
    mass = _core.quantity_mass(objective.name, scaled, w, n_columns)
    assert len(mass) == objective.sample_quantities(n_columns)


def test_statistics_sizes():
    assert CLASSIFICATION.stat_dim(4) == 4 and CLASSIFICATION.sample_quantities(4) == 1
    assert SQUARED_ERROR.stat_dim(2) == 5 and SQUARED_ERROR.sample_quantities(2) == 5
    assert NEWTON.stat_dim(1) == 3
    with pytest.raises(NotImplementedError):
        Objective("none").stat_dim(1)


@pytest.mark.parametrize("power", [-400, -3, 0, 5, 400])
def test_a_power_of_two_on_the_targets_changes_nothing_the_core_sees(power):
    rng = np.random.default_rng(0)
    y = np.column_stack([rng.normal(1e3, 2.0, 50), rng.lognormal(0.0, 3.0, 50)])
    w = rng.uniform(0.1, 1.0, 50)
    scale, scaled = SQUARED_ERROR.scale_of(y, w), SQUARED_ERROR.scale_of(np.ldexp(y, power), w)
    assert_array_equal(scaled.to_core(np.ldexp(y, power)), scale.to_core(y))
    assert scaled.loss_exponent == scale.loss_exponent + 2 * power
    # The core sees targets centred near 0 and near 1 at most.
    core = scale.to_core(y)
    assert 1 <= np.abs(core).max() < 2
    assert np.abs(np.average(core, axis=0, weights=w)).max() < 1e-12


def test_a_tree_fitted_on_the_core_targets_comes_back_in_y_units():
    rng = np.random.default_rng(1)
    y = rng.normal(5e6, 3e4, size=(40, 1))
    w = np.ones(40)
    scale = SQUARED_ERROR.scale_of(y, w)
    leaf = {"children_left": np.array([-1]), "children_right": np.array([-1]),
            "feature": np.array([-2]), "threshold": np.array([-2.0]),
            "value": scale.to_core(y).mean(axis=0, keepdims=True),
            "impurity": np.array([scale.to_core(y).var()]),
            "n_node_samples": np.array([40]), "weighted_n_node_samples": np.array([40.0])}
    tree = SQUARED_ERROR.make_tree(leaf, 1)
    scale.unscale_tree(tree)
    np.testing.assert_allclose(tree.value[0, 0, 0], y.mean(), rtol=1e-15)
    np.testing.assert_allclose(tree.impurity[0], y.var(), rtol=1e-12)
    assert isinstance(tree, Tree)


@pytest.mark.parametrize("power", [-600, 0, 7])
def test_the_newton_scale_is_exact(power):
    rng = np.random.default_rng(2)
    g, h, w = rng.normal(size=30), rng.uniform(0.5, 1.0, 30), rng.uniform(0.1, 1.0, 30)
    reference = NEWTON.to_core(g, h, w, 1.0, 1.0, 0.5)
    scaled = NEWTON.to_core(np.ldexp(g, power), np.ldexp(h, power), w, 1.0,
                            float(np.ldexp(1.0, power)), 0.5 * 2.0**power)
    for a, b in zip(reference[1], scaled[1], strict=True):
        assert_array_equal(a, b)
    assert reference[2] == scaled[2]


def test_only_the_objectives_that_split_at_the_root_are_split_over_a_cluster():
    # Boosting's rounds inside a splitting runner stay local: the runner, without a client,
    # could not split them.
    pytest.importorskip("distributed")
    from dpdt._runner import RUNNER
    from dpdt.dask import _DaskRunner

    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(80, 3)), rng.normal(size=80)
    expected = dpdt.DPDTGradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, y)
    token = RUNNER.set(_DaskRunner(client=None, chunks=None))
    try:
        boosted = dpdt.DPDTGradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, y)
        with pytest.raises(AttributeError):   # a tree's fit is split: it needs the client
            dpdt.DPDTreeRegressor(max_depth=2).fit(X, y)
    finally:
        RUNNER.reset(token)
    assert_array_equal(boosted.predict(X), expected.predict(X))


@pytest.mark.parametrize("rewards", [[[-1e308, 1e308]], [[1.7e308, -1e308], [0.0, 1.0]],
                                     [[-np.finfo(float).max, 0.0, np.finfo(float).max]]])
def test_rewards_whose_spread_overflows_are_one_error_and_no_warning(rewards):
    rewards = np.array(rewards)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="differ by more than float64 holds"):
            POLICY.scale_of(rewards, np.ones(len(rewards)))
