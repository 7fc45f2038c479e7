"""memory_limit: refused before the start, stopped before the states cross it, and the formula."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from _trees import assert_tree_equal

from dpdt import DPDTreeClassifier, DPDTreeRegressor
from dpdt._memory import fixed_fit_bytes

rng = np.random.default_rng(0)
X = rng.random((3000, 6))
y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int) + (X[:, 3] > 0.7)


def test_a_limit_below_the_fixed_part_is_refused_before_any_state():
    model = DPDTreeClassifier(max_depth=4, memory_limit=10_000)
    with pytest.raises(MemoryError, match="memory_limit=10000"):
        model.fit(X, y)
    assert not hasattr(model, "stats_")


@pytest.mark.parametrize("max_bins", [None, 64])
def test_states_stop_at_the_budget_left(max_bins):
    params = dict(max_depth=5, candidates=(6, 6, 6), max_bins=max_bins)
    free = DPDTreeClassifier(**params).fit(X, y)
    n_bins = free.n_bins_
    fixed = fixed_fit_bytes(len(X), X.shape[1], 5, 6, 1, 3, n_bins=n_bins, sample_quantities=1)
    with pytest.raises(MemoryError, match="memory_limit"):
        DPDTreeClassifier(memory_limit=fixed + 50 * 300, **params).fit(X, y)
    roomy = DPDTreeClassifier(memory_limit=fixed + 10**9, **params).fit(X, y)
    for a, b in zip(free.trees_, roomy.trees_, strict=True):
        assert_tree_equal(a, b)


def test_regressor_takes_a_memory_limit():
    with pytest.raises(MemoryError, match="memory_limit"):
        DPDTreeRegressor(max_depth=3, memory_limit=1000).fit(X, X[:, 0])


_MEASURE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from dpdt import DPDTreeClassifier
    from dpdt._memory import fixed_fit_bytes

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

    max_bins = None if sys.argv[1] == "none" else int(sys.argv[1])
    rng = np.random.default_rng(0)
    n, p = 100_000, 12
    X = rng.random((n, p))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.7).astype(int) + (X[:, 3] > 0.5)
    model = DPDTreeClassifier(max_depth=6, candidates=(4, 4), max_bins=max_bins)
    model.fit(X[:500], y[:500])   # imports and first-call allocations out of the measure
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    model.fit(X, y)
    fixed = fixed_fit_bytes(n, p, 6, 4, 1, 3, n_bins=model.n_bins_, sample_quantities=1)
    states = model.stats_["states"] * (300 + 8 * 3 + 56 * 8)
    print(json.dumps({"measured": status("VmHWM") - before, "formula": fixed + states}))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
@pytest.mark.parametrize("max_bins", ["none", "255"])
def test_the_documented_formula_bounds_the_peak(max_bins):
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pytest.skip("the peak RSS cannot be reset here")
    out = subprocess.run([sys.executable, "-c", _MEASURE, max_bins], capture_output=True,
                         text=True, check=True, timeout=120)
    numbers = json.loads(out.stdout)
    assert numbers["measured"] <= numbers["formula"]
    # An upper bound, but not a wild one.
    assert numbers["formula"] <= 4 * numbers["measured"] + 16 * 2**20
