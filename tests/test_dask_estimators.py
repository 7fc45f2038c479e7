"""dpdt.dask's data-parallel estimators: exactly the local binned fit, for any partitioning."""

import concurrent.futures
import doctest
import os
import pickle
import signal
import threading
import time
import types

import numpy as np
import pytest
from _trees import assert_front_equal, assert_tree_equal
from numpy.testing import assert_array_equal

distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.base import clone  # noqa: E402

import dpdt._dask_estimators as dask_estimators  # noqa: E402
from dpdt import (  # noqa: E402
    DPDTreeClassifier,
    DPDTreePolicy,
    DPDTreeRegressor,
    _core,
    export_html,
    export_text,
    load,
)
from dpdt._binning import bin_features  # noqa: E402
from dpdt._dask_inputs import input_partitions  # noqa: E402
from dpdt._runner import core_params  # noqa: E402
from dpdt.dask import (  # noqa: E402
    DaskDPDTreeClassifier,
    DaskDPDTreePolicy,
    DaskDPDTreeRegressor,
)

needs_remote_core = pytest.mark.skipif(
    not hasattr(_core, "RemoteFit"), reason="the core has no RemoteFit yet (issue 34)")

# Row partitions of 300 rows: uneven, with empty and single-row partitions, and one piece.
CHUNKS = {
    "uneven": (100, 0, 1, 139, 60),
    "single-rows": (1, 1, 0, 1, 297),
    "one": (300,),
}


@pytest.fixture(scope="module", params=[1, 2, 3], ids=lambda n: f"{n}workers")
def client(request):
    cluster = distributed.LocalCluster(n_workers=request.param, threads_per_worker=1,
                                       processes=False, dashboard_address=":0")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def classification_data(n=300, seed=0, missing=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] * X[:, 2] > 0.1)
    noise = rng.random(n) < 0.1
    y[noise] = rng.integers(0, 4, size=noise.sum())
    X[rng.random(X.shape) < missing] = np.nan
    # Weights with zeros (dropped rows) and a scale far from 1.
    weight = rng.integers(0, 4, size=n) * 2.0**-40
    return X, np.array(["a", "b", "c", "d"])[y], weight


def regression_data(n=300, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    # Small integer targets and weights: every sum of the centring is exact, so it is the local
    # fit's to the bit.
    y = np.stack([np.round(4 * X[:, 0]) + (X[:, 1] > 0) * 8, np.round(X[:, 2] * 3)], axis=1)
    return X, y, rng.integers(0, 3, size=n).astype(float)


def policy_data(n=300, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    # Small integer rewards and weights: every sum of the leaves' mean rewards is exact, so they
    # are the local fit's to the bit.
    base = np.nan_to_num(X[:, :2])
    rewards = np.column_stack([np.round(3 * base[:, 0]), -np.round(2 * base[:, 0]),
                               np.round(2 * base[:, 1]) + 1]) + rng.integers(-2, 3, size=(n, 3))
    return X, rewards.astype(float), rng.integers(0, 3, size=n).astype(float)


def chunked(values, chunks):
    return da.from_array(values, chunks=(chunks,) + values.shape[1:])


def assert_same_fit(a, b):
    assert_front_equal(a.pareto_front_, b.pareto_front_)
    assert len(a.trees_) == len(b.trees_)
    for k, (ta, tb) in enumerate(zip(a.trees_, b.trees_, strict=True)):
        assert_tree_equal(ta, tb, msg=f"tree {k}")


def prepared_arrays(est, client, X, y, weight):
    """Return the estimator's preparation and its binned partitions, concatenated."""
    local = est._local_class(**est._local_params())
    data, meta = input_partitions(client, X, y, weight)
    prepared = est._prepare(client, local, data, meta, est._bins())
    binned = client.gather(prepared.binned_parts)
    return local, prepared, binned, [np.concatenate([b[k] for b in binned]) for k in range(3)]


# ------------------------------------------------------------- preparation (no search needed)

@pytest.mark.parametrize("chunks", CHUNKS)
def test_partitions_are_binned_as_the_local_fit_bins(client, chunks):
    X, y, weight = classification_data()
    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16, client=client)
    local, prepared, binned, (codes, y_codes, w) = prepared_arrays(
        est, client, chunked(X, CHUNKS[chunks]), chunked(y, CHUNKS[chunks]),
        chunked(weight, CHUNKS[chunks]))
    kept = weight > 0
    # Every value is in the sample: the edges are the local fit's, and so are the codes.
    ref_codes, ref_n_bins, ref_upper = bin_features(X[kept], 16, np.random.RandomState(0))
    assert_array_equal(prepared.plan.binned["n_bins"], ref_n_bins)
    assert_array_equal(prepared.plan.binned["upper"], ref_upper)
    assert_array_equal(codes, ref_codes)
    assert_array_equal(y_codes, np.unique(y, return_inverse=True)[1][kept])
    assert y_codes.dtype == np.int32
    # Divided by the power of two that brings the largest weight into [1, 2): 3 * 2**-40.
    assert_array_equal(w, weight[kept] * 2.0**39)
    assert prepared.scale["weight_scale"] == 2.0**-39
    first_ids = [b[3] for b in binned]
    assert first_ids == list(np.cumsum([0] + [len(b[2]) for b in binned])[:-1])
    assert_array_equal(local.classes_, ["a", "b", "c", "d"])


def test_the_sketch_is_a_sample_independent_of_the_partitioning(client, monkeypatch):
    # Beyond its size the sketch is a sample of rows chosen by hashed global ids: the same for
    # any partitioning, another for another random_state.
    monkeypatch.setattr(dask_estimators, "BINNING_SAMPLES", 50)
    X, y, weight = classification_data(missing=0.0)
    edges = {}
    for random_state in (0, 1):
        for chunks in CHUNKS.values():
            est = DaskDPDTreeClassifier(max_depth=3, max_bins=8, random_state=random_state,
                                        client=client)
            _, prepared, _, _ = prepared_arrays(est, client, chunked(X, chunks),
                                                chunked(y, chunks), chunked(weight, chunks))
            edges.setdefault(random_state, []).append(prepared.plan.binned["upper"])
    for upper in edges.values():
        for other in upper[1:]:
            assert_array_equal(other, upper[0])
    assert not np.array_equal(edges[0][0], edges[1][0])
    # Each feature's last edge is its largest value, from every row, not only the sample's.
    n_bins = bin_features(X[weight > 0], 8, np.random.RandomState(0))[1]
    last = np.cumsum(n_bins) - 1
    assert_array_equal(edges[0][0][last], np.nanmax(X[weight > 0], axis=0))


def test_a_local_core_fit_on_the_binned_partitions_is_the_local_fit(client):
    # to_local's state is built from the core's result as _fit_front builds it: fed the
    # result of the core on the concatenated binned partitions, it is the local estimator.
    X, y, weight = classification_data()
    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16, class_weight="balanced",
                                client=client)
    local, prepared, _, (codes, y_codes, w) = prepared_arrays(
        est, client, chunked(X, CHUNKS["uneven"]), chunked(y, CHUNKS["uneven"]),
        chunked(weight, CHUNKS["uneven"]))
    binned = prepared.plan.binned
    result = _core.fit(
        "classifier", np.zeros((len(w), X.shape[1])), y_codes, w,
        core_params(_core.Params, dict(prepared.plan.params, criterion=est.criterion)),
        n_classes=prepared.n_classes, codes=codes, n_bins=binned["n_bins"],
        upper=binned["upper"])
    est._finish(local, prepared, result)
    reference = DPDTreeClassifier(max_depth=3, max_bins=16, class_weight="balanced").fit(
        X, y, weight)
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(X), reference.predict(X))
    predicted = est.predict(chunked(X, CHUNKS["uneven"]))
    assert isinstance(predicted, da.Array)
    assert_array_equal(predicted.compute(), reference.predict(X))
    assert_array_equal(est.predict_proba(chunked(X, (150, 150))).compute(),
                       reference.predict_proba(X))


def test_a_local_core_fit_on_the_binned_regression_partitions_is_the_local_fit(client):
    X, y, weight = regression_data()
    est = DaskDPDTreeRegressor(max_depth=3, max_bins=12, client=client)
    local, prepared, _, (codes, targets, w) = prepared_arrays(
        est, client, chunked(X, CHUNKS["single-rows"]), chunked(y, CHUNKS["single-rows"]),
        chunked(weight, CHUNKS["single-rows"]))
    binned = prepared.plan.binned
    result = _core.fit(
        "regressor", np.zeros((len(w), X.shape[1])), targets, w,
        core_params(_core.Params, prepared.plan.params),
        codes=codes, n_bins=binned["n_bins"], upper=binned["upper"])
    est._finish(local, prepared, result)
    reference = DPDTreeRegressor(max_depth=3, max_bins=12).fit(X, y, weight)
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(chunked(X, (100, 200))).compute(), reference.predict(X))


def test_dataframes_give_feature_names_and_lazy_predictions(client):
    X, y, weight = classification_data()
    frame = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    est = DaskDPDTreeClassifier(max_depth=2, max_bins=16, client=client)
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    labels = dd.from_pandas(pd.Series(y), npartitions=3, sort=False)
    weights = dd.from_pandas(pd.Series(weight), npartitions=3, sort=False)
    local, prepared, _, (codes, _, _) = prepared_arrays(est, client, ddf, labels, weights)
    assert_array_equal(local.feature_names_in_, frame.columns)
    assert_array_equal(codes, bin_features(X[weight > 0], 16, np.random.RandomState(0))[0])
    result = _core.fit(
        "classifier", np.zeros((len(codes), X.shape[1])), np.concatenate(
            [b[1] for b in client.gather(prepared.binned_parts)]),
        np.concatenate([b[2] for b in client.gather(prepared.binned_parts)]),
        core_params(_core.Params, dict(prepared.plan.params, criterion=est.criterion)),
        n_classes=prepared.n_classes, codes=codes, n_bins=prepared.plan.binned["n_bins"],
        upper=prepared.plan.binned["upper"])
    est._finish(local, prepared, result)
    reference = DPDTreeClassifier(max_depth=2, max_bins=16).fit(frame, y, weight)
    predicted = est.predict(ddf)
    assert isinstance(predicted, da.Array)
    assert_array_equal(predicted.compute(), reference.predict(frame))
    assert_array_equal(est.predict_proba(ddf).compute(), reference.predict_proba(frame))


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("make, error, match", [
    (lambda X, y: ([[1.0, 2.0]] * 4, [0, 1, 0, 1]), TypeError, "dask array or dask dataframe"),
    (lambda X, y: (chunked(X, (150, 150)), chunked(y, (100, 200))), ValueError,
     "chunked differently"),
    (lambda X, y: (chunked(X, (150, 150)), dd.from_pandas(pd.Series(y), npartitions=3)),
     ValueError, "partitions"),
    (lambda X, y: (chunked(X, (150, 150)), chunked(np.where(np.arange(300) == 7, np.nan,
                                                            (y == "a") * 1.0), (150, 150))),
     ValueError, "y contains NaN"),
    (lambda X, y: (chunked(np.where(np.arange(300)[:, None] == 3, np.inf, X), (150, 150)),
                   chunked(y, (150, 150))), ValueError, "partition 0.*infinity"),
    (lambda X, y: (chunked(X[:, 0], (150, 150)), chunked(y, (150, 150))), ValueError, "2-d"),
    # Partitions of unknown sizes that do not hold the same rows: found on the workers.
    (lambda X, y: (dd.from_pandas(pd.DataFrame(X), npartitions=3).repartition(
        divisions=[0, 50, 200, 299]), dd.from_pandas(pd.Series(y), npartitions=3)),
     ValueError, r"partition \d: X has \d+ rows and y \d+"),
])
def test_bad_input_gets_a_clear_error(make, error, match):
    cluster = distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0")
    with distributed.Client(cluster) as client, cluster:
        X, y, _ = classification_data(missing=0.0)
        with pytest.raises(error, match=match):
            DaskDPDTreeClassifier(max_bins=16, client=client).fit(*make(X, y))


def test_max_bins_none_and_exact_splitters_are_refused():
    X = da.zeros((10, 2), chunks=5)
    y = da.zeros(10, chunks=5)
    with pytest.raises(ValueError, match="max_bins=None"):
        DaskDPDTreeClassifier(max_bins=None).fit(X, y)
    with pytest.raises(ValueError, match="needs exact thresholds"):
        DaskDPDTreeClassifier(splitter="screen").fit(X, y)


@pytest.mark.parametrize("estimator", [DaskDPDTreeClassifier, DaskDPDTreeRegressor])
@pytest.mark.parametrize("weight, chunks", [
    (1e308, (20, 20, 20)),              # every partition's sum overflows
    (6e307, (1, 1, 1, 57)),             # no single partition's does, the whole data's does
], ids=["partitions", "whole"])
def test_weights_summing_beyond_float64_are_refused_as_locally(client, estimator, weight,
                                                               chunks):
    X, y, _ = (classification_data if estimator is DaskDPDTreeClassifier
               else regression_data)(n=60)
    w = np.full(60, weight)
    local = estimator._local_class(max_bins=8)
    with pytest.raises(ValueError, match="sample_weight sums to about") as expected:
        local.fit(X, y, w)
    with pytest.raises(ValueError, match="sample_weight sums to about") as caught:
        estimator(max_bins=8, client=client).fit(chunked(X, chunks), chunked(y, chunks),
                                                 chunked(w, chunks))
    assert str(caught.value) == str(expected.value)


# ---------------------------------------------------------------- the whole data-parallel fit

@needs_remote_core
@pytest.mark.parametrize("chunks", CHUNKS)
def test_classifier_is_the_local_binned_fit(client, chunks):
    X, y, weight = classification_data()
    params = dict(max_depth=3, max_bins=16, candidates=(3, 2))
    est = DaskDPDTreeClassifier(**params, client=client).fit(
        chunked(X, CHUNKS[chunks]), chunked(y, CHUNKS[chunks]), chunked(weight, CHUNKS[chunks]))
    reference = DPDTreeClassifier(**params).fit(X, y, weight)
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(chunked(X, (150, 150))).compute(), reference.predict(X))
    assert est.stats_["rounds"] >= 1


@needs_remote_core
@pytest.mark.parametrize("chunks", CHUNKS)
def test_regressor_is_the_local_binned_fit(client, chunks):
    X, y, weight = regression_data()
    params = dict(max_depth=3, max_bins=12, candidates=(3, 2))
    est = DaskDPDTreeRegressor(**params, client=client).fit(
        chunked(X, CHUNKS[chunks]), chunked(y, CHUNKS[chunks]), chunked(weight, CHUNKS[chunks]))
    reference = DPDTreeRegressor(**params).fit(X, y, weight)
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(X), reference.predict(X))


@needs_remote_core
@pytest.mark.parametrize("chunks", CHUNKS)
# Rewards near float64's largest (times a power of two: the same fit to the bit): their sums
# over a leaf overflow, their means do not.
@pytest.mark.parametrize("scale", [1.0, 2.0**1018])
def test_policy_is_the_local_binned_fit(client, chunks, scale):
    X, rewards, weight = policy_data()
    params = dict(max_depth=3, max_bins=16, candidates=(3, 2))
    unscaled = DPDTreePolicy(**params).fit(X, rewards, weight)
    rewards = rewards * scale
    parts = [chunked(a, CHUNKS[chunks]) for a in (X, rewards, weight)]
    est = DaskDPDTreePolicy(**params, client=client).fit(*parts)
    reference = DPDTreePolicy(**params).fit(X, rewards, weight)
    assert_array_equal(reference.predict(X), unscaled.predict(X))
    assert len(reference.trees_) > 2 and reference.n_actions_ == est.n_actions_ == 3
    # The leaves' mean rewards too: the core's values above each row's least, plus its mean.
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.actions_, [0, 1, 2])
    assert_array_equal(est.predict(chunked(X, (150, 150))).compute(), reference.predict(X))
    assert_array_equal(est.predict_value(X), reference.predict_value(X))
    assert est.score(*parts) == reference.score(X, rewards, weight)
    assert est.score(X, rewards) == reference.score(X, rewards)


@needs_remote_core
@pytest.mark.parametrize("estimator, data", [
    (DaskDPDTreeClassifier, classification_data), (DaskDPDTreeRegressor, regression_data),
    (DaskDPDTreePolicy, policy_data)], ids=["classifier", "regressor", "policy"])
def test_a_partition_of_zero_weights_is_fitted_as_its_rows_are_locally(client, estimator,
                                                                       data):
    # Rows of weight zero are dropped; a partition of them is no error (the local fit on the
    # concatenation has no partitions).
    X, y, weight = data()
    weight = np.where(np.arange(len(weight)) < 40, 0.0, weight + 1)
    params = dict(max_depth=2, max_bins=16)
    est = estimator(**params, client=client).fit(
        *(chunked(a, (40, 1, 259)) for a in (X, y, weight)))
    reference = estimator._local_class(**params).fit(X, y, weight)
    assert_same_fit(est.to_local(), reference)


@needs_remote_core
def test_policy_on_dataframes_of_real_rewards(client, tmp_path):
    # The rewards' columns name the actions; real rewards: the same trees and front, the leaves'
    # mean rewards to rounding (summed over the partitions in another order).
    X, _, _ = policy_data(400, seed=5)
    rng = np.random.default_rng(6)
    frame = pd.DataFrame(X, columns=["age", "dose", "bmi", "sex"])
    base = np.nan_to_num(X[:, :2])
    rewards = pd.DataFrame({"treat": 1e3 * base[:, 0], "control": -1e3 * base[:, 0],
                            "other": 5e2 * base[:, 1]}) + rng.normal(0, 1e3, size=(400, 3))
    weight = pd.Series(rng.random(400))
    est = DaskDPDTreePolicy(max_depth=3, max_bins=32, client=client).fit(
        *(dd.from_pandas(v, npartitions=3, sort=False) for v in (frame, rewards, weight)))
    reference = DPDTreePolicy(max_depth=3, max_bins=32).fit(frame, rewards, weight)
    assert len(reference.trees_) > 2
    assert_array_equal(est.actions_, ["treat", "control", "other"])
    local = est.to_local()
    assert_front_equal(local.pareto_front_, reference.pareto_front_)
    for k, (a, b) in enumerate(zip(local.trees_, reference.trees_, strict=True)):
        assert_tree_equal(a, b, msg=f"tree {k}", rtol=1e-12)
    dask_frame = dd.from_pandas(frame, npartitions=2, sort=False)
    assert_array_equal(est.predict(dask_frame).compute(), reference.predict(frame))
    assert export_text(local) == export_text(reference)
    # Columns named as the actions, in another order, are put in theirs.
    shuffled = dd.from_pandas(rewards[["other", "treat", "control"]], npartitions=2, sort=False)
    assert est.score(dask_frame, shuffled) == pytest.approx(reference.score(frame, rewards),
                                                            rel=1e-12)
    est.save(tmp_path / "policy.json")
    loaded = load(tmp_path / "policy.json")
    assert isinstance(loaded, DaskDPDTreePolicy) and loaded.client is None
    assert_array_equal(loaded.predict(frame), reference.predict(frame))


@needs_remote_core
def test_regressor_on_real_targets_is_the_local_binned_fit(client):
    # The targets' weighted mean is summed in fixed point, over the partitions as over the rows.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1000, 4))
    y = X[:, 0] * 2.3 + np.sin(3 * X[:, 1]) + rng.normal(size=1000) * 0.1
    weight = rng.random(1000)
    est = DaskDPDTreeRegressor(max_depth=3, max_bins=32, client=client).fit(
        chunked(X, (400, 1, 599)), chunked(y, (400, 1, 599)), chunked(weight, (400, 1, 599)))
    reference = DPDTreeRegressor(max_depth=3, max_bins=32).fit(X, y, weight)
    assert len(reference.trees_) > 2
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(X), reference.predict(X))


@needs_remote_core
def test_numpy_input_is_split_over_the_workers(client):
    # client=None: the default client, the fixture's.
    X, y, weight = classification_data()
    assert distributed.default_client() is client
    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16).fit(X, y, weight)
    reference = DPDTreeClassifier(max_depth=3, max_bins=16).fit(X, y, weight)
    assert_same_fit(est.to_local(), reference)
    assert_array_equal(est.predict(X), reference.predict(X))


@needs_remote_core
def test_dataframe_fit_and_to_local_round_trips(client, tmp_path):
    X, y, weight = classification_data()
    frame = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16, client=client).fit(
        dd.from_pandas(frame, npartitions=4, sort=False),
        dd.from_pandas(pd.Series(y), npartitions=4, sort=False),
        dd.from_pandas(pd.Series(weight), npartitions=4, sort=False))
    reference = DPDTreeClassifier(max_depth=3, max_bins=16).fit(frame, y, weight)
    local = est.to_local()
    assert_same_fit(local, reference)
    local.save(tmp_path / "model.json")
    assert_same_fit(load(tmp_path / "model.json"), reference)
    assert export_text(local) == export_text(reference)
    assert export_html(local) == export_html(reference)


def _kill_one_worker(client):
    """A hook for the fit's rounds: kill a worker's process once (its nanny starts another)."""
    killed = []

    def hook(round_number):
        if round_number == 1 and not killed:
            pid = min(client.run(os.getpid).values())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    return hook, killed


@needs_remote_core
def test_a_worker_killed_mid_fit_recomputes_its_partitions():
    X, y, weight = classification_data()
    params = dict(max_depth=3, max_bins=16, candidates=(3, 2))
    reference = DPDTreeClassifier(**params).fit(X, y, weight)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as client, cluster:
        est = DaskDPDTreeClassifier(**params, client=client)
        est._on_round, killed = _kill_one_worker(client)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            fit = pool.submit(est.fit, chunked(X, (50,) * 6), chunked(y, (50,) * 6),
                              chunked(weight, (50,) * 6))
            fit.result(timeout=120)   # no hang
        # The killed worker (and the binned partitions it held) is gone: its nanny started
        # another in its place.
        assert killed and killed[0] not in client.run(os.getpid).values()
        assert_same_fit(est.to_local(), reference)


@needs_remote_core
def test_the_docstring_examples_run():
    for estimator in (DaskDPDTreeClassifier, DaskDPDTreeRegressor, DaskDPDTreePolicy):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        for test in finder.find(estimator, globs={}):
            runner.run(test)
        assert runner.failures == 0


@needs_remote_core
def test_ctrl_c_during_a_round_cancels_its_tasks(client, monkeypatch):
    # Ctrl-C while the driver waits for a round's histograms (slowed down here): the fit raises
    # KeyboardInterrupt and the cluster forgets the round's tasks, though they still run.
    X, y, weight = classification_data()
    histograms = dask_estimators.parts.histograms

    def slow_histograms(*args):
        time.sleep(5)
        return histograms(*args)

    interrupted = []

    def interrupt_soon(round_number):
        monkeypatch.setattr(dask_estimators.parts, "histograms", slow_histograms)
        interrupted.append(time.perf_counter())
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()

    def histogram_tasks(dask_scheduler):
        return [key for key in dask_scheduler.tasks if "histogram" in str(key)]

    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16, client=client)
    est._on_round = interrupt_soon
    # The traceback (kept in `caught`) holds the driver's futures: only a cancellation frees them.
    with pytest.raises(KeyboardInterrupt) as caught:
        est.fit(chunked(X, (150, 150)), chunked(y, (150, 150)), chunked(weight, (150, 150)))
    assert time.perf_counter() - interrupted[0] < 4   # not after the slow tasks
    for _ in range(50):
        if not client.run_on_scheduler(histogram_tasks):
            break
        time.sleep(0.1)
    assert client.run_on_scheduler(histogram_tasks) == []
    del caught


@needs_remote_core
def test_the_scaling_benchmark_runs(capsys):
    import dask_scaling  # benchmarks/dask_scaling.py (pyproject: pytest pythonpath)

    dask_scaling.main(["--size", "20000", "--features", "4", "--partition-rows", "5000",
                       "--depths", "2", "--workers", "1", "--memory-limit", "0"])
    out = capsys.readouterr().out
    assert "20000 rows x 4 float32 features" in out
    assert out.strip().splitlines()[-1].split()[0] == "2"


@needs_remote_core
def test_clone_shares_the_client_and_pickling_leaves_it_behind(client):
    X, y, weight = classification_data()
    est = DaskDPDTreeClassifier(max_depth=2, max_bins=16, client=client)
    copy = clone(est)
    assert copy.client is client and copy.get_params()["max_bins"] == 16
    est.fit(chunked(X, (150, 150)), chunked(y, (150, 150)))
    loaded = pickle.loads(pickle.dumps(est))
    assert loaded.client is None
    assert_array_equal(loaded.predict(X), est.predict(X))


@needs_remote_core
def test_workers_that_keep_dying_give_a_clear_error(client, monkeypatch):
    # The scheduler gives up on a task whose workers kept dying (KilledWorker), most often from
    # memory: the fit says so, with the workers' limit and what they hold.
    X, y, weight = classification_data()

    def dying_histograms(*args):
        worker = types.SimpleNamespace(address="tcp://127.0.0.1:1")
        raise distributed.KilledWorker("histograms-0", worker, 3)

    monkeypatch.setattr(dask_estimators.parts, "histograms", dying_histograms)
    est = DaskDPDTreeClassifier(max_depth=2, max_bins=16, client=client)
    with pytest.raises(MemoryError, match="memory limit .*5 bytes per row"):
        est.fit(chunked(X, (100,) * 3), chunked(y, (100,) * 3), chunked(weight, (100,) * 3))


def test_time_limit_and_constraints_are_refused_before_the_data_move(monkeypatch):
    # The search over rounds cannot stop on a clock: refused at once, not after the passes.
    def no_data(*args, **kwargs):
        raise AssertionError("the data moved")

    monkeypatch.setattr(dask_estimators, "input_partitions", no_data)
    X = da.zeros((10, 2), chunks=5)
    for Estimator in (DaskDPDTreeClassifier, DaskDPDTreeRegressor):
        with pytest.raises(ValueError, match="time_limit=5"):
            Estimator(time_limit=5, max_bins=16).fit(X, da.zeros(10, chunks=5))
        # Nor do its machines' states carry the value bounds of monotonic constraints.
        with pytest.raises(ValueError, match=r"monotonic_cst=\[1, 0\]: constraints are not"):
            Estimator(monotonic_cst=[1, 0], max_bins=16).fit(X, da.zeros(10, chunks=5))


@needs_remote_core
def test_select_tree_leaves_and_save_are_the_local_estimators(client, tmp_path):
    X, y, weight = classification_data()
    est = DaskDPDTreeClassifier(max_depth=3, max_bins=16, client=client).fit(
        chunked(X, (150, 150)), chunked(y, (150, 150)), chunked(weight, (150, 150)))
    local = est.to_local()
    assert est.get_n_leaves() == local.get_n_leaves()
    assert est.get_depth() == local.get_depth()
    assert est.select_tree(max_leaves=2) is est
    local.select_tree(max_leaves=2)
    assert (est.alpha, est.max_complexity) == (local.alpha, local.max_complexity)
    assert est.get_n_leaves() == local.get_n_leaves() <= 2
    assert_array_equal(est.predict(X), local.predict(X))
    est.save(tmp_path / "model.json")
    assert est.client is client
    loaded = load(tmp_path / "model.json")
    assert type(loaded) is DaskDPDTreeClassifier and loaded.client is None
    assert loaded.get_params()["alpha"] == est.alpha
    assert_same_fit(loaded.to_local(), local)
    assert_array_equal(loaded.predict(X), local.predict(X))


@needs_remote_core
def test_a_saved_regressor_loads_and_predicts(client, tmp_path):
    X, y, weight = regression_data()
    est = DaskDPDTreeRegressor(max_depth=2, max_bins=16, client=client).fit(
        chunked(X, (150, 150)), chunked(y, (150, 150)), chunked(weight, (150, 150)))
    est.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    assert type(loaded) is DaskDPDTreeRegressor
    assert_array_equal(loaded.predict(X), est.predict(X))


def test_a_policy_budget_is_refused_before_any_data_moves(client):
    # The costs of the actions are an argument of the in-memory fit only.
    X = da.from_array(np.arange(8.0).reshape(-1, 1), chunks=4)
    rewards = da.from_array(np.ones((8, 2)), chunks=4)
    with pytest.raises(ValueError, match="data-parallel fit takes no action_costs"):
        DaskDPDTreePolicy(max_depth=1, max_bins=8, max_cost=1.0, client=client).fit(X, rewards)


@pytest.mark.parametrize("rewards", [np.ones(8), pd.Series(np.ones(8))], ids=["array", "series"])
def test_rewards_of_one_column_are_refused_as_by_the_local_policy(client, rewards):
    # One reward per sample is no choice of action: the local fit refuses it, so must this.
    X = np.arange(8.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="rewards must be 2-D"):
        DPDTreePolicy(max_depth=1).fit(X, rewards)
    if isinstance(rewards, pd.Series):
        X, rewards = dd.from_pandas(pd.DataFrame(X), npartitions=2), dd.from_pandas(
            rewards, npartitions=2)
    else:
        X, rewards = da.from_array(X, chunks=4), da.from_array(rewards, chunks=4)
    with pytest.raises(ValueError, match="rewards must be 2-D"):
        DaskDPDTreePolicy(max_depth=1, max_bins=8, client=client).fit(X, rewards)



def test_missing_rewards_are_named_as_by_the_local_policy(client):
    X, rewards, _ = policy_data()
    rewards[7, 1] = np.nan
    with pytest.raises(ValueError, match="Input rewards contains NaN"):
        DPDTreePolicy(max_depth=1).fit(X, rewards)
    with pytest.raises(ValueError, match="partition 0: Input rewards contains NaN"):
        DaskDPDTreePolicy(max_depth=1, max_bins=8, client=client).fit(
            da.from_array(X, chunks=100), da.from_array(rewards, chunks=100))


def test_rewards_naming_other_actions_are_refused_by_score(client):
    X, rewards, _ = policy_data()
    frame = pd.DataFrame(rewards, columns=["a", "b", "c"])
    est = DaskDPDTreePolicy(max_depth=1, max_bins=8, client=client).fit(
        dd.from_pandas(pd.DataFrame(X), npartitions=2), dd.from_pandas(frame, npartitions=2))
    other = dd.from_pandas(frame.set_axis(["b", "c", "d"], axis=1), npartitions=2)
    with pytest.raises(ValueError, match=r"rewards name the actions \['b', 'c', 'd'\]"):
        est.score(dd.from_pandas(pd.DataFrame(X), npartitions=2), other)
    # The same actions in another order are put in the policy's.
    shuffled = dd.from_pandas(frame[["c", "a", "b"]], npartitions=2)
    assert est.score(dd.from_pandas(pd.DataFrame(X), npartitions=2), shuffled) == \
        est.to_local().score(X, frame)
