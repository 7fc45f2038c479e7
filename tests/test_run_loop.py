"""The core's one run loop (cpp/include/dpdt/run_loop.hpp), through every search that uses it.

- a thread the system refuses (an address-space limit) becomes a RuntimeError naming n_jobs, the
  threads already started joined, never an abort of the process;
- Ctrl-C stops BRANCHES as it stops DPDT and the bounded search (tests/test_interrupt.py).
"""

import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux",
                                reason="address-space limits and SIGINT as on Linux")

# The limit leaves the process 200 MB above what it holds after setup: a few dozen thread stacks,
# far fewer than n_jobs=400 asks for (every fit below has at least 400 root tasks).
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
    limit = vm + (200 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        clf.fit(X, y)
    except RuntimeError as e:
        print("RuntimeError:", e, flush=True)
        sys.exit(3)
    print("fitted", flush=True)
""")


@pytest.mark.parametrize("search", ["front", "bounded"])
def test_refused_thread_raises_instead_of_aborting(search):
    proc = subprocess.run([sys.executable, "-c", FIT_UNDER_LIMIT, search],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert "could not start thread" in proc.stdout and "n_jobs" in proc.stdout
    assert "terminate called" not in proc.stderr


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


def test_ctrl_c_interrupts_branches():
    proc = subprocess.Popen([sys.executable, "-c", LONG_BRANCHES_FIT], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "start"
        time.sleep(1.0)   # well inside the search
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        elapsed = time.perf_counter() - sent
    finally:
        proc.kill()
    assert "interrupted" in out
    assert proc.returncode == 3
    assert elapsed < 10, f"the search took {elapsed:.1f} s to stop"
