"""The core's one run loop (cpp/include/dpdt/run_loop.hpp), through the searches that use it.

A thread the system refuses (an address-space limit) becomes a RuntimeError naming n_jobs, the
threads already started joined, never an abort of the process. Ctrl-C, which the same loop polls
for every search, is tested in tests/test_interrupt.py.
"""

import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
from _trees import assert_front_equal, assert_tree_equal
from joblib import cpu_count
from numpy.testing import assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from dpdt import (
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
)
from dpdt._runner import RUNNER, THREADS_PER_CPU, run

linux_only = pytest.mark.skipif(sys.platform != "linux",
                                reason="address-space limits and SIGINT as on Linux")

# The limit leaves the process 24 MB above what it holds after setup: two or three thread stacks
# of 8 MB, fewer than n_jobs=400 gets after its cap of 4 threads per CPU (every fit below has at
# least 400 root tasks).
FIT_UNDER_LIMIT = textwrap.dedent("""
    import resource
    import sys
    import numpy as np
    from dpdt import DPDTreeClassifier
    rng = np.random.default_rng(0)
    if sys.argv[1] == "front":   # about 2 x 1000 root tasks: every threshold of 5 features
        X = rng.random((200, 5))
        clf = DPDTreeClassifier(max_depth=2, splitter="exhaustive", n_jobs=400)
    else:                        # one root task per feature
        X = rng.random((50, 400))
        clf = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False, n_jobs=400)
    y = (X[:, 0] > 0.5).astype(int)
    with open("/proc/self/status") as status:
        vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
    limit = vm + (24 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        clf.fit(X, y)
    except RuntimeError as e:
        print("RuntimeError:", e, flush=True)
        sys.exit(3)
    print("fitted", flush=True)
""")


@linux_only
@pytest.mark.parametrize("search", ["front", "bounded"])
def test_refused_thread_raises_instead_of_aborting(search):
    proc = subprocess.run([sys.executable, "-c", FIT_UNDER_LIMIT, search],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert "could not start thread" in proc.stdout and "n_jobs" in proc.stdout
    assert "terminate called" not in proc.stderr


@pytest.mark.parametrize("make", [DPDTreeClassifier, DPDTGradientBoostingClassifier,
                                  DPDTreeClassifierCV])
def test_n_jobs_beyond_four_threads_per_cpu_is_capped(make):
    # n_jobs=2**31 - 1 used to hold 10 GB and run 80 s before the system refused a thread.
    X = np.random.default_rng(0).random((60, 3))
    y = (X[:, 0] > 0.5).astype(int)
    expected = make().fit(X, y).predict_proba(X)
    cap = THREADS_PER_CPU * cpu_count()
    with pytest.warns(UserWarning, match=f"more than {THREADS_PER_CPU} threads per CPU; using "
                                         f"{cap} threads"):
        got = make(n_jobs=2**31 - 1).fit(X, y).predict_proba(X)
    assert_array_equal(got, expected)


# ---------------------------------------------------------------------------------------------
# Jobs below the root: a state hands its subproblems to idle workers (JobGroup). The children do
# not depend on the worker that solves them, so neither does the tree.

def _deep_data(n=3000, seed=0, classes=3):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6)).round(3)
    X[rng.random(X.shape) < 0.05] = np.nan
    score = X[:, 0] + 0.6 * np.nan_to_num(X[:, 1]) * X[:, 2] - 0.4 * X[:, 3] ** 2
    y = np.digitize(np.nan_to_num(score, nan=0.3), np.quantile(np.nan_to_num(score), [0.3, 0.7]))
    y = (y + (rng.random(n) < 0.1)) % classes
    return X, y, rng.uniform(0.5, 2.0, n)


JOB_FITS = {
    # One root candidate: two root tasks, so every other worker waits for jobs.
    "greedy-root": (DPDTreeClassifier, dict(max_depth=6, splitter="cart", candidates=(1,))),
    "budgets": (DPDTreeClassifier, dict(max_depth=5, splitter="cart", candidates=(2, 3, 2))),
    "binned": (DPDTreeClassifier, dict(max_depth=6, max_bins=16, candidates=(1, 3))),
    "n_splits-pareto": (DPDTreeClassifier, dict(max_depth=5, candidates=(1, 2, 2),
                                                complexity="n_splits", front="pareto")),
    "regressor": (DPDTreeRegressor, dict(max_depth=5, candidates=(1, 3, 2))),
}


@pytest.mark.parametrize("name", list(JOB_FITS))
def test_jobs_below_the_root_give_the_same_fit_whatever_n_jobs(name):
    make, params = JOB_FITS[name]
    X, y, w = _deep_data(seed=len(name))
    if make is DPDTreeRegressor:
        y = y + np.random.default_rng(1).normal(scale=0.3, size=len(y))
    one = make(**params).fit(X, y, sample_weight=w)
    assert one.stats_["shared_states"] == 0
    shared = 0
    # Whether a state is shared depends on when a worker is idle: the fits are repeated (a few
    # times at most) until some were, every one of them compared.
    for _ in range(5):
        for n_jobs in (2, 3, 4):
            other = make(n_jobs=n_jobs, **params).fit(X, y, sample_weight=w)
            shared += other.stats_["shared_states"]
            assert_front_equal(one.pareto_front_, other.pareto_front_, f"n_jobs={n_jobs}")
            for k, (a, b) in enumerate(zip(one.trees_, other.trees_, strict=True)):
                assert_tree_equal(a, b, f"n_jobs={n_jobs} trees_[{k}]")
            assert other.stats_["states"] >= one.stats_["states"] - other.stats_["cache_hits"]
        if shared:
            break
    # Workers beyond the two root tasks have nothing else to do: states were shared.
    assert shared > 0


def _solve_every_root_task(name, args, params, arguments):
    """A runner solving a fit's root tasks as a process of a split fit does (``dpdt.dask``)."""
    n_tasks = run(name, args, params, dict(arguments, count_root_tasks=True))["root_tasks"]
    return run(name, args, params, dict(arguments, root_tasks=list(range(n_tasks))))


def test_an_error_inside_a_job_ends_the_fit_as_with_one_thread():
    # A process solving some of a split fit's tasks cannot return part of a search: max_states
    # is an error there, raised by whichever job passes it.
    X, y, _ = _deep_data()
    params = dict(max_depth=7, splitter="cart", candidates=(3, 3, 3), max_states=400)
    token = RUNNER.set(_solve_every_root_task)
    try:
        with pytest.raises(MemoryError, match="max_states=400") as single:
            DPDTreeClassifier(**params).fit(X, y)
        for n_jobs in (2, 4):
            with pytest.raises(MemoryError, match="max_states=400") as threaded:
                DPDTreeClassifier(n_jobs=n_jobs, **params).fit(X, y)
            assert type(threaded.value) is type(single.value)
    finally:
        RUNNER.reset(token)


def test_jobs_keep_the_greedy_guarantee_of_the_time_limit():
    X, y, _ = _deep_data(n=20_000, seed=3)
    greedy = DPDTreeClassifier(max_depth=8, splitter="cart", candidates=(1,)).fit(X, y)
    for n_jobs in (1, 4):
        clf = DPDTreeClassifier(max_depth=8, splitter="cart", candidates=(8, 8, 8, 8),
                                time_limit=0.2, n_jobs=n_jobs)
        with pytest.warns(ConvergenceWarning, match="time_limit"):
            clf.fit(X, y)
        assert clf.score(X, y) >= greedy.score(X, y) - 1e-12


def test_histograms_summed_in_shares_give_the_same_fit():
    # From 2 x 16 384 rows, a binned state's histogram is summed in shares of its rows on idle
    # workers (the root's while the others wait for it): fixed-point sums, exactly the same.
    X, y, w = _deep_data(n=70_000, seed=5, classes=4)
    params = dict(max_depth=4, max_bins=64, candidates=(3, 2))
    one = DPDTreeClassifier(**params).fit(X, y, sample_weight=w)
    for n_jobs in (2, 4):
        other = DPDTreeClassifier(n_jobs=n_jobs, **params).fit(X, y, sample_weight=w)
        assert_front_equal(one.pareto_front_, other.pareto_front_, f"n_jobs={n_jobs}")
        for k, (a, b) in enumerate(zip(one.trees_, other.trees_, strict=True)):
            assert_tree_equal(a, b, f"n_jobs={n_jobs} trees_[{k}]")


# ---------------------------------------------------------------------------------------------
# A loop of one worker runs on the calling thread, which polls from its stop points: no thread is
# started (each start and join cost a fit two wake-ups), and progress and limits still reach it.

def _threads():
    return len(os.listdir("/proc/self/task"))


def _watching_threads(seen):
    """A runner whose first fit reports progress (every poll) with the process's threads then."""
    def runner(name, args, params, arguments):
        if name != "fit" or seen:
            return run(name, args, params, arguments)

        def progress(states, done, total, seconds):
            seen.append((_threads(), threading.get_native_id(), states))
        return run(name, args, params, dict(arguments, progress=progress, progress_seconds=0.0))
    return runner


@linux_only
@pytest.mark.parametrize("search", ["front", "bounded"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_thread_fits_run_on_the_calling_thread(search, n_jobs):
    X = np.random.default_rng(0).random((400, 8))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.7).astype(int)
    # Both searches poll every 10 ms: long enough fits, stopped early by their time limit.
    clf = DPDTreeClassifier(max_depth=4, splitter="exhaustive", full_front=search == "front",
                            time_limit=0.3, n_jobs=n_jobs)
    seen, before = [], _threads()
    token = RUNNER.set(_watching_threads(seen))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X, y)
    finally:
        RUNNER.reset(token)
    assert len(seen) >= 5, "the fit reported its progress every poll"
    assert {native for _, native, _ in seen} == {threading.get_native_id()}
    # One worker: the calling thread itself; more: that many threads beside it (a worker out of
    # work returns before the others).
    threads = [threads for threads, _, _ in seen]
    if n_jobs == 1:
        assert set(threads) == {before}
    else:
        assert max(threads) == before + n_jobs
    # The search's states as it runs: they only grow, and they grow between the reports (with
    # several workers the first poll may come before any of them has counted a state).
    states = [states for _, _, states in seen]
    assert states == sorted(states) and states[-1] > states[0], "the progress is the search's"
