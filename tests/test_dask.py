"""dpdt.dask: a fit split over a Dask cluster is exactly the local fit; joblib's Dask backend."""

import doctest
import subprocess
import sys

import numpy as np
import pytest
from _trees import assert_front_equal, assert_tree_equal
from numpy.testing import assert_array_equal

distributed = pytest.importorskip("distributed")

import joblib  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

import dpdt.dask  # noqa: E402
from dpdt import (  # noqa: E402
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreeRegressor,
)
from dpdt._runner import run  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def classification_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] * X[:, 2] > 0.1)
    noise = rng.random(n) < 0.1
    y[noise] = rng.integers(0, 4, size=noise.sum())
    return X, y, rng.uniform(0.5, 2.0, size=n)


def assert_same_fit(a, b):
    assert_front_equal(a.pareto_front_, b.pareto_front_)
    assert len(a.trees_) == len(b.trees_)
    for k, (ta, tb) in enumerate(zip(a.trees_, b.trees_, strict=True)):
        assert_tree_equal(ta, tb, msg=f"tree {k}")


@pytest.mark.parametrize("chunks", [None, 1, 1000])
def test_classifier_is_the_local_fit(client, chunks):
    X, y, weight = classification_data()
    params = dict(max_depth=4, candidates=(4, 3, 2), n_jobs=2)
    local = DPDTreeClassifier(**params).fit(X, y, weight)
    assert len(np.unique(y)) == 4 and len(local.pareto_front_) > 2
    est = DPDTreeClassifier(**params)
    assert dpdt.dask.fit(est, X, y, weight, client=client, chunks=chunks) is est
    assert_same_fit(est, local)
    assert_array_equal(est.predict(X), local.predict(X))
    # The workers' work is counted: every state of the local fit is solved somewhere. (Against
    # one thread, which solves each distinct state once: two threads may both solve a state
    # they reach at the same time, and both count it.)
    serial = DPDTreeClassifier(**dict(params, n_jobs=1)).fit(X, y, weight)
    assert est.stats_["states"] >= serial.stats_["states"]
    assert est.stats_["candidates"] >= serial.stats_["candidates"]
    assert est.stats_["seconds"] > 0


def test_pareto_front_is_the_local_fit(client):
    X, y, weight = classification_data()
    params = dict(max_depth=4, candidates=(4, 3, 2), front="pareto")
    local = DPDTreeClassifier(**params).fit(X, y, weight)
    assert np.isnan(local.pareto_front_["alpha_min"]).any()
    est = DPDTreeClassifier(**params)
    dpdt.dask.fit(est, X, y, weight, client=client)
    assert_same_fit(est, local)


def test_multioutput_regressor_is_the_local_fit(client):
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(300, 5))
    y = np.column_stack([np.sin(4 * X[:, 0]) + X[:, 1], 100.0 * (X[:, 2] > 0.4) + X[:, 3]])
    params = dict(max_depth=3, candidates=(4, 3), n_jobs=2, complexity="n_splits")
    local = DPDTreeRegressor(**params).fit(X, y)
    # verbose: the driver keeps the progress callback, the workers do not get it.
    est = dpdt.dask.fit(DPDTreeRegressor(**params, verbose=1), X, y, client=client)
    assert est.n_outputs_ == 2
    assert_same_fit(est, local)
    assert_array_equal(est.predict(X), local.predict(X))


def test_policy_is_the_local_fit(client):
    # Real rewards, weights, missing values, the exhaustive search at the last level: the
    # policy objective splits at the root as the others do.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    rewards = np.column_stack([X[:, 0], -X[:, 0], 0.5 * X[:, 1]]) + rng.normal(size=(300, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    weight = rng.uniform(0.5, 2.0, size=300)
    for params in (dict(max_depth=3, candidates=(4, 3)),
                   dict(max_depth=3, splitter=["topk", "topk", "exhaustive"], max_bins=16)):
        local = DPDTreePolicy(**params).fit(X, rewards, weight)
        assert len(local.pareto_front_) > 2
        est = dpdt.dask.fit(DPDTreePolicy(**params), X, rewards, weight, client=client, chunks=3)
        assert_same_fit(est, local)
        assert_array_equal(est.predict(X), local.predict(X))
        assert est.score(X, rewards) == local.score(X, rewards)


def test_fits_with_missing_values_are_the_local_fit(client):
    X, y, weight = classification_data()
    X[np.random.default_rng(2).random(X.shape) < 0.05] = np.nan
    for est in (DPDTreeClassifier(max_depth=3, candidates=(4, 3)),
                DPDTreeRegressor(max_depth=3, candidates=(4, 3), max_bins=16)):
        local = clone(est).fit(X, y, weight)
        dpdt.dask.fit(est, X, y, weight, client=client, chunks=3)
        assert_same_fit(est, local)
        assert_array_equal(est.predict(X), local.predict(X))


def test_fits_with_monotonic_constraints_are_the_local_fit(client):
    # The root's subproblems carry the bounds of its constrained splits, on every worker alike.
    X, y, weight = classification_data()
    binary = (y > 1).astype(int)
    for est, target in ((DPDTreeClassifier(max_depth=3, monotonic_cst=[1, -1, 0, 0, 0, 0]), binary),
                        (DPDTreeRegressor(max_depth=3, monotonic_cst=[0, 1, -1, 0, 0, 0]),
                         X[:, 0] + binary)):
        local = clone(est).fit(X, target, weight)
        dpdt.dask.fit(est, X, target, weight, client=client, chunks=3)
        assert_same_fit(est, local)


@pytest.mark.parametrize("make", [
    lambda X: (DPDTreeClassifier(max_depth=3), np.full(len(X), 7)),
    lambda X: (DPDTreeRegressor(max_depth=3), np.full(len(X), 2.5)),
    lambda X: (DPDTreeClassifier(max_depth=3, min_samples_split=1000), X[:, 0] > 0),
])
def test_a_root_that_is_a_leaf(client, make):
    X, _, _ = classification_data(100)
    est, y = make(X)
    local = type(est)(**est.get_params()).fit(X, y)
    dpdt.dask.fit(est, X, y, client=client)
    assert est.get_n_leaves() == 1
    assert_same_fit(est, local)


@pytest.mark.parametrize("est", [
    DPDTGradientBoostingClassifier(n_estimators=2),
    DPDTreeClassifierCV(max_depths=[2]),
    "not an estimator",
])
def test_unsupported_estimators_are_refused(client, est):
    X, y, _ = classification_data(50)
    with pytest.raises(TypeError, match="DPDTreeClassifier, DPDTreeRegressor or DPDTreePolicy"):
        dpdt.dask.fit(est, X, y, client=client)


def test_time_limit_and_bad_chunks_are_refused(client):
    X, y, _ = classification_data(50)
    est = DPDTreeClassifier(time_limit=10.0)
    with pytest.raises(ValueError, match="time_limit"):
        dpdt.dask.fit(est, X, y, client=client)
    assert not hasattr(est, "pareto_front_")
    for chunks in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="chunks"):
            dpdt.dask.fit(DPDTreeClassifier(), X, y, client=client, chunks=chunks)


def test_a_worker_exception_is_raised_on_the_driver(client):
    X, y, _ = classification_data()
    # The driver expands only the root (one state); the workers run out of states.
    est = DPDTreeClassifier(max_depth=4, max_states=3)
    with pytest.raises(MemoryError):
        dpdt.dask.fit(est, X, y, client=client)
    # The runner is gone after the failure: a local fit is a local fit again.
    assert DPDTreeClassifier(max_depth=2).fit(X, y).get_depth() == 2


def test_corrupt_solutions_are_refused():
    X, y, weight = classification_data(200)
    args = (np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.int32), weight)
    params = dict(criterion="gini", max_depth=3, candidates=[3, 3, 3], splitters=["cart"],
                  complexity="expected_tests")

    def fit(**arguments):
        return run("fit", ("classifier", *args), params, dict(arguments, n_classes=4))

    n = fit(count_root_tasks=True)["root_tasks"]
    solutions = fit(root_tasks=list(range(n)))["solutions"]
    combined = fit(root_solutions=solutions)
    assert len(combined["front"]) == len(fit()["front"])
    # Bytes that do not decode, and a wrong number of solutions.
    for bad in ([s[:-3] for s in solutions], [b"\0" * 8] * n, [b""] * n, solutions[:-1],
                solutions + solutions[:1]):
        with pytest.raises(ValueError):
            fit(root_solutions=bad)


def test_grid_search_with_joblibs_dask_backend(client):
    X, y, _ = classification_data(300)
    grid = dict(max_depth=[2, 3], alpha=[0.0, 0.01])
    local = GridSearchCV(DPDTreeClassifier(candidates=3), grid, cv=3).fit(X, y)
    with joblib.parallel_backend("dask"), distributed.get_task_stream(client) as tasks:
        remote = GridSearchCV(DPDTreeClassifier(candidates=3), grid, cv=3, n_jobs=-1).fit(X, y)
    assert tasks.data, "the folds ran on the cluster"
    assert remote.best_params_ == local.best_params_
    assert_array_equal(remote.cv_results_["mean_test_score"],
                       local.cv_results_["mean_test_score"])


def test_the_docstring_example_runs():
    assert doctest.testmod(dpdt.dask, raise_on_error=False).failed == 0


def test_without_distributed_the_import_names_the_extra():
    code = ("import sys; sys.modules['distributed'] = None\n"
            "try:\n    import dpdt.dask\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "dpdt[dask]"' in out.stdout
