"""The core's fits over machines (cpp/include/dpdt/remote.hpp), without a cluster.

The rows are cut into partitions in this process; each round, every partition answers the
driver's paths with ``_core.state_histograms`` and the answers are added up, as a cluster's
workers and its tree reduction would. The result must be the local binned fit on all the rows,
bit for bit, whatever the cuts, the cap on a round's states and the cap on the driver's memory.
"""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

from dpdt import DPDTreeClassifier, DPDTreeRegressor, _core
from dpdt._runner import _PARAMS, RUNNER, core_params, run

FRONT_FIELDS = ("alpha_min", "alpha_max", "train_loss", "complexity", "impurity", "n_splits")


def local_call(estimator, X, y, sample_weight=None):
    """The estimator's call into the core (name, args, params, arguments), and its result."""
    calls = []

    def runner(name, args, params, arguments):
        calls.append((name, args, params, arguments))
        return run(name, args, params, arguments)

    token = RUNNER.set(runner)
    try:
        estimator.fit(X, y, sample_weight=sample_weight)
    finally:
        RUNNER.reset(token)
    assert "codes" in calls[-1][3], "the fit must be binned"
    return calls[-1], run(*calls[-1])


def width_of(kind, y, arguments):
    if kind == "classifier":
        return arguments["n_classes"]
    return y.shape[1]


def remote_fit(call, cuts, max_states=0, max_histogram_bytes=0):
    """The remote rounds on the rows cut at `cuts`; returns the RemoteFit."""
    name, (kind, X, y, w), params, arguments = call
    k = width_of(kind, y, arguments)
    codes, n_bins, upper = arguments["codes"], arguments["n_bins"], arguments["upper"]
    bounds = [0, *cuts, len(w)]
    parts = [(codes[a:b], y[a:b], w[a:b], a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    mass = sum(_core.quantity_mass(kind, part_y, part_w, k) for _, part_y, part_w, _ in parts)
    fit = _core.RemoteFit(kind, core_params(_PARAMS[name], params), n_bins, upper, k, mass,
                          max_histogram_bytes=max_histogram_bytes)
    while True:
        paths, offsets = fit.run(max_states=max_states)
        if len(offsets) == 1:
            return fit
        assert max_states == 0 or len(offsets) - 1 <= max_states
        total = None
        for part_codes, part_y, part_w, first in parts:
            answer = _core.state_histograms(kind, part_codes, part_y, part_w, first, paths, offsets,
                                            n_bins=n_bins, upper=upper, n_classes=k, mass=mass)
            total = answer if total is None else tuple(a + b for a, b in zip(total, answer,
                                                                              strict=True))
        fit.add(paths, offsets, *total)


def assert_same_result(local, remote):
    assert len(local["front"]) == len(remote["front"])
    for i, (a, b) in enumerate(zip(local["front"], remote["front"], strict=True)):
        for field in FRONT_FIELDS:
            np.testing.assert_array_equal(a[field], b[field], err_msg=f"tree {i} {field}")
        assert a["tree"].keys() == b["tree"].keys()
        for key in a["tree"]:
            np.testing.assert_array_equal(a["tree"][key], b["tree"][key], err_msg=f"tree {i} {key}")


def classification(n=2500, classes=3, seed=0, missing=0.0):
    X, y = make_classification(n_samples=n, n_features=7, n_informative=5, n_redundant=1,
                               n_classes=classes, n_clusters_per_class=2, flip_y=0.05,
                               random_state=seed)
    rng = np.random.default_rng(seed)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y, rng.uniform(0.1, 3.0, size=n)


CLASSIFIERS = {
    "default": dict(max_depth=3),
    "deeper, weighted below": dict(max_depth=4),
    "top-b": dict(max_depth=3, splitter="topb", candidates=(6, 4)),
    "top-k, entropy": dict(max_depth=3, splitter="topk", candidates=(3, 2), criterion="entropy"),
    "quantile": dict(max_depth=3, splitter="quantile", candidates=(4, 3)),
    "gain ratio, node count": dict(max_depth=3, criterion="gain_ratio", complexity="n_splits"),
    "leaf limits": dict(max_depth=4, min_samples_leaf=20, min_weight_fraction_leaf=0.01),
    "feature subsample": dict(max_depth=3, max_features=3),
    "feature costs": dict(max_depth=3, feature_costs=[1, 2, 1, 3, 1, 1, 2]),
    "pareto front": dict(max_depth=3, front="pareto"),
}


@pytest.mark.parametrize("config", list(CLASSIFIERS))
@pytest.mark.parametrize("cuts", [[], [1250], [0, 1, 1, 900, 2499]], ids=["one", "two", "uneven"])
def test_classifier_rounds_give_the_local_binned_fit(config, cuts):
    X, y, w = classification(missing=0.03 if config == "default" else 0.0)
    weights = None if config == "default" else w
    call, local = local_call(DPDTreeClassifier(max_bins=32, random_state=0, **CLASSIFIERS[config]),
                             X, y, weights)
    fit = remote_fit(call, cuts)
    assert fit.complete and fit.rounds >= 3
    assert_same_result(local, fit.result())


def test_regressor_rounds_give_the_local_binned_fit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 5))
    y = np.column_stack([np.sin(2 * X[:, 0]) + X[:, 1], X[:, 2] * X[:, 3]])
    y += rng.normal(scale=0.1, size=y.shape)
    call, local = local_call(DPDTreeRegressor(max_depth=3, max_bins=40, random_state=0), X, y,
                             rng.uniform(0.5, 2.0, size=3000))
    assert_same_result(local, remote_fit(call, [3, 1700]).result())


@pytest.mark.parametrize("max_states, max_histogram_bytes", [(3, 0), (0, 1), (7, 50_000)])
def test_caps_on_rounds_and_memory_change_no_result(max_states, max_histogram_bytes):
    X, y, w = classification(n=4000, classes=4, seed=3)
    call, local = local_call(DPDTreeClassifier(max_depth=4, max_bins=64, random_state=0), X, y, w)
    free = remote_fit(call, [2000])
    capped = remote_fit(call, [2000], max_states, max_histogram_bytes)
    assert_same_result(local, capped.result())
    if max_states:
        assert capped.rounds > free.rounds
    if max_histogram_bytes:
        assert capped.dropped_histograms > 0
        assert capped.histogram_bytes <= max(max_histogram_bytes, free.histogram_bytes // 4)


def test_histograms_are_exact_sums_over_any_partition():
    X, y, w = classification(n=1000, classes=2, seed=5)
    call, _ = local_call(DPDTreeClassifier(max_depth=2, max_bins=16, random_state=0), X, y, w)
    _, (_, _, y, w), _, arguments = call
    codes, n_bins, upper = arguments["codes"], arguments["n_bins"], arguments["upper"]
    mass = _core.quantity_mass("classifier", y, w, 2)
    # The root, a child, and a grandchild through a missing-value route.
    paths = np.array([0, 3, 0, 1, 0, 3, 0, 1, 4, 5, 1, 0], dtype=np.int32)
    offsets = np.array([0, 0, 1, 3], dtype=np.int64)

    def answer(a, b):
        return _core.state_histograms("classifier", codes[a:b], y[a:b], w[a:b], a, paths, offsets,
                                      n_bins=n_bins, upper=upper, n_classes=2, mass=mass)

    whole = answer(0, 1000)
    cuts = [(0, 1), (1, 1), (1, 400), (400, 1000)]
    parts = [answer(a, b) for a, b in cuts]
    # One machine adds its partitions' answers into one set of arrays, in place.
    into = tuple(np.zeros_like(array) for array in whole)
    for a, b in cuts:
        returned = _core.state_histograms("classifier", codes[a:b], y[a:b], w[a:b], a, paths,
                                          offsets, n_bins=n_bins, upper=upper, n_classes=2,
                                          mass=mass, into=into)
        assert all(r is i or np.shares_memory(r, i) for r, i in zip(returned, into, strict=True))
    for k in range(3):
        np.testing.assert_array_equal(whole[k], sum(p[k] for p in parts))
        np.testing.assert_array_equal(whole[k], into[k])
    with pytest.raises(ValueError, match="into must hold"):
        _core.state_histograms("classifier", codes, y, w, 0, paths, offsets, n_bins=n_bins,
                               upper=upper, n_classes=2, mass=mass,
                               into=(into[0][:2], into[1], into[2]))
    counts, _, hists = whole
    left = codes[:, 0] <= 3
    assert counts.tolist() == [1000, left.sum(), (left & (codes[:, 4] > 5)).sum()]
    # A histogram holds each feature's bins (and its missing bin) of [class sums, count].
    assert hists[0].reshape(-1, 3)[:, 2].sum() == 1000 * codes.shape[1]


def test_bad_calls_raise_clear_errors():
    X, y, w = classification(n=500, classes=2)
    call, _ = local_call(DPDTreeClassifier(max_depth=2, max_bins=16, random_state=0), X, y, w)
    _, (_, _, y, w), params, arguments = call
    codes, n_bins, upper = arguments["codes"], arguments["n_bins"], arguments["upper"]
    mass = _core.quantity_mass("classifier", y, w, 2)
    struct = core_params(_core.Params, params)

    def histograms(paths, offsets, **change):
        kwargs = dict(n_bins=n_bins, upper=upper, n_classes=2, mass=mass) | change
        return _core.state_histograms("classifier", codes, y, w, 0, np.asarray(paths, np.int32),
                                      np.asarray(offsets, np.int64), **kwargs)

    with pytest.raises(ValueError, match="four numbers per step"):
        histograms([0, 1, 0], [0, 1])
    with pytest.raises(ValueError, match="from 0 to the number of steps"):
        histograms([0, 1, 0, 1], [0, 2])
    with pytest.raises(ValueError, match="feature or bin"):
        histograms([99, 1, 0, 1], [0, 1])
    with pytest.raises(ValueError, match="0 or 1"):
        histograms([0, 1, 2, 1], [0, 1])
    with pytest.raises(ValueError, match="class codes"):
        _core.quantity_mass("classifier", y, w, 1)
    with pytest.raises(ValueError, match="kind"):
        _core.quantity_mass("ranker", y, w, 2)
    with pytest.raises(ValueError, match="2\\*\\*31"):
        _core.state_histograms("classifier", codes, y, w, 2**31 - 10, np.zeros(0, np.int32),
                               np.zeros(1, np.int64), n_bins=n_bins, upper=upper, n_classes=2,
                               mass=mass)
    struct.time_limit = 5.0
    with pytest.raises(ValueError, match="time limit"):
        _core.RemoteFit("classifier", struct, n_bins, upper, 2, mass)
    struct.time_limit = 0.0
    fit = _core.RemoteFit("classifier", struct, n_bins, upper, 2, mass)
    with pytest.raises(RuntimeError, match="not complete"):
        fit.result()
    paths, offsets = fit.run()
    assert offsets.tolist() == [0, 0], "the first round asks for the root"
    with pytest.raises(ValueError, match="must match"):
        fit.add(paths, offsets, np.zeros(1, np.int64), np.zeros((1, 2), np.uint64),
                np.zeros((1, 5), np.int64))


def test_the_memory_cap_holds_during_a_round():
    # A deep round derives many children (parent minus sibling) before it ends: the cap must
    # bound them as they come, not only between rounds. Beyond the cap the driver may hold the
    # states fetched for the round and the parents awaiting a child: the peak stays a fraction
    # of what an uncapped fit holds (measured: 0.21-0.22 of it), and the tree is the same.
    X, y, w = classification(n=6000, classes=3, seed=11)
    call, local = local_call(DPDTreeClassifier(max_depth=6, max_bins=64, random_state=0), X, y, w)
    free = remote_fit(call, [2500])
    histogram = 8 * free.histogram_size
    cap = 20 * histogram
    capped = remote_fit(call, [2500], max_histogram_bytes=cap)
    assert_same_result(local, capped.result())
    assert free.peak_histogram_bytes > 8 * cap
    assert capped.peak_histogram_bytes < free.peak_histogram_bytes / 3


def test_the_rounds_raise_at_max_states_where_a_local_fit_stops_with_a_tree():
    # A round replays the search on the states known so far: it cannot stop short of them, so
    # the data-parallel fit keeps its MemoryError where the local fit returns its best tree.
    X, y, w = classification(n=4000, classes=4, seed=3)
    free = DPDTreeClassifier(max_depth=4, max_bins=64, random_state=0).fit(X, y, w)
    limited = DPDTreeClassifier(max_depth=4, max_bins=64, random_state=0,
                                max_states=free.stats_["states"] // 2)
    with pytest.warns(ConvergenceWarning, match="max_states"):
        call, _ = local_call(limited, X, y, w)
    assert limited.stats_["stopped_by"] == "max_states"
    with pytest.raises(MemoryError, match="max_states"):
        remote_fit(call, [2000])
