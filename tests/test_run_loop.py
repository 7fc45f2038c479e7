"""The core's one run loop (cpp/include/dpdt/run_loop.hpp), through the searches that use it.

A thread the system refuses (an address-space limit) becomes a RuntimeError naming n_jobs, the
threads already started joined, never an abort of the process. Ctrl-C, which the same loop polls
for every search, is tested in tests/test_interrupt.py.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from joblib import cpu_count
from numpy.testing import assert_array_equal

from dpdt import DPDTGradientBoostingClassifier, DPDTreeClassifier, DPDTreeClassifierCV
from dpdt._runner import THREADS_PER_CPU

pytestmark = pytest.mark.skipif(sys.platform != "linux",
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
