"""Ctrl-C stops a long fit promptly, with KeyboardInterrupt, whatever the thread count."""

import itertools
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import dpdt
from dpdt import _cv
from time_limit import CASES, _threshold, interrupt_latencies  # benchmarks/time_limit.py

LONG_FIT = textwrap.dedent("""
    import signal
    import sys
    import numpy as np
    from dpdt import DPDTreeClassifier
    # A test runner started in the background ignores SIGINT, and so would this child, which
    # inherits that: take Ctrl-C as an interactive session does.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = np.random.default_rng(0)
    X = rng.random((3000, 10))
    y = (X[:, 0] + rng.random(3000) > 1).astype(int)
    print("start", flush=True)
    try:
        # Exhaustive depth 4 on 3000 x 10 would run for hours (minutes by branch and bound). The
        # front's search gets a budget past its estimate: the runaway projection (which solving
        # the greedy split first lets see the course of this search) would stop it at once.
        front = sys.argv[2] == "front"
        DPDTreeClassifier(max_depth=4, splitter="exhaustive", max_states=None,
                          memory_limit=10**17 if front else None, full_front=front,
                          n_jobs=int(sys.argv[1])).fit(X, y)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(3)
    print("finished", flush=True)
""")


LONG_BRANCHES_FIT = textwrap.dedent("""
    import signal
    import numpy as np
    from dpdt import BranchesClassifier
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(2000, 30))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, 2000) > 3).astype(int)
    print("start", flush=True)
    try:
        BranchesClassifier(lam=1e-5).fit(X, y)   # minutes at least
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise SystemExit(3)
    print("finished", flush=True)
""")


def interrupt(script, *args, timeout=30):
    """Run ``script`` in a child, send SIGINT once it is well inside its fit.

    Returns (exit status, stdout, stderr, seconds from the signal to the child's exit).
    """
    proc = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "start"
        time.sleep(1.0)   # well inside the fit
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
        elapsed = time.perf_counter() - sent
    finally:
        proc.kill()
    return proc.returncode, out, err, elapsed


def assert_interrupted_promptly(script, *args):
    """Check that ``script``'s fit, interrupted, raises KeyboardInterrupt within seconds."""
    status, out, _, elapsed = interrupt(script, *args)
    assert "interrupted" in out
    assert status == 3
    assert elapsed < 10, f"the fit took {elapsed:.1f} s to stop"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
@pytest.mark.parametrize("search", ["front", "bounded"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_interrupts_fit(n_jobs, search):
    assert_interrupted_promptly(LONG_FIT, str(n_jobs), search)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
def test_ctrl_c_interrupts_branches():
    # BRANCHES runs on the same run loop as DPDT (cpp/include/dpdt/run_loop.hpp).
    assert_interrupted_promptly(LONG_BRANCHES_FIT)


# Every expensive case but the ordinary one (which may finish first), a few also with two threads.
INTERRUPT_RUNS = {1: [case for case in CASES if not case.startswith("ordinary")],
                  2: ["exhaustive", "cart, 20 000 classes", "boosting multiclass"]}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_inside_one_state(n_jobs):
    # SIGINT arrives 1 s into each fit, inside a state whose work alone took 20 s to minutes: the
    # loops inside it call the run loop's stop points. The target is 1 s. The cases run in turn
    # in one child process, which starts Python once.
    latencies = interrupt_latencies(INTERRUPT_RUNS[n_jobs], n_jobs, timeout=30)
    finished = [case for case, latency in latencies.items() if latency is None]
    assert not finished, f"these fits finished within 1 s: {finished}"
    slow = {case: round(latency, 1) for case, latency in latencies.items() if latency >= 5}
    assert not slow, f"Ctrl-C took these many seconds: {slow}"


# A child that fits one case of benchmarks/time_limit.py on two threads and, once interrupted,
# reports the CPU it then burns in a second: threads left running in the core would burn it, and
# abort the interpreter at its exit ("terminate called without an active exception").
STOPPED_PARALLEL_FIT = textwrap.dedent("""
    import signal
    import sys
    import time
    sys.path.insert(0, sys.argv[2])
    from time_limit import make
    estimator, X, y = make(sys.argv[1], n_jobs=2)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print("start", flush=True)
    try:
        estimator.fit(X, y)
    except KeyboardInterrupt:
        cpu = time.process_time()
        time.sleep(1.0)
        print(f"interrupted {time.process_time() - cpu:.3f}", flush=True)
        sys.exit(3)
    print("finished", flush=True)
""")

BENCHMARKS = str(Path(__file__).resolve().parents[1] / "benchmarks")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
@pytest.mark.parametrize("case", ["CV exhaustive (cv=2: 3 fits)",
                                  "CV regressor exhaustive (cv=2: 3 fits)",
                                  "boosting multiclass", "exhaustive", "BRANCHES"])
def test_ctrl_c_stops_every_thread_of_a_parallel_fit(case):
    # The CV fits and boosting's per-class trees run on threads of their own, which Ctrl-C does
    # not reach; the search of one tree runs on the core's threads.
    status, out, err, elapsed = interrupt(STOPPED_PARALLEL_FIT, case, BENCHMARKS, timeout=60)
    assert "terminate called" not in err
    assert status == 3, err[-2000:]
    cpu = float(out.split("interrupted")[1])
    assert cpu < 0.3, f"{cpu:.2f} s of CPU burnt in the second after the interrupt"
    assert elapsed < 10, f"the fit took {elapsed:.1f} s to stop and exit"


def test_an_error_in_one_parallel_fit_stops_the_others(monkeypatch):
    # One fold raises while the refit's exhaustive search (minutes) runs on the other thread.
    X, y = _threshold()
    fit_one = _cv._fit_one
    calls = itertools.count()

    def failing_fold(estimator, X, y, sample_weight, rows):
        if next(calls) == 1:
            time.sleep(0.5)
            raise ValueError("this fold fails")
        return fit_one(estimator, X, y, sample_weight, rows)

    monkeypatch.setattr(_cv, "_fit_one", failing_fold)
    threads = threading.active_count()
    start = time.perf_counter()
    with pytest.raises(ValueError, match="this fold fails"):
        dpdt.DPDTreeClassifierCV(max_depth=2, splitter="exhaustive", cv=2, n_jobs=2).fit(X, y)
    assert time.perf_counter() - start < 10
    # Every thread joined, none left in the core.
    assert threading.active_count() == threads
    cpu = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - cpu < 0.2
