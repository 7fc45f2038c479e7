"""memory_limit: refused before the start, the search stopped at it, and the formula."""

import json
import re
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from _trees import assert_tree_equal
from sklearn.exceptions import ConvergenceWarning

import dpdt._classes
from dpdt import DPDTreeClassifier, DPDTreeRegressor, _core
from dpdt._memory import fixed_fit_bytes, state_budget

rng = np.random.default_rng(0)
X = rng.random((3000, 6))
y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.8).astype(int) + (X[:, 3] > 0.7)


def test_a_limit_below_the_fixed_part_is_refused_before_any_state():
    # No tree can be made without the data's layout: a ValueError naming the least limit, at
    # which the search starts, and stops at once with a tree.
    model = DPDTreeClassifier(max_depth=4, memory_limit=10_000)
    with pytest.raises(ValueError, match="memory_limit=10000") as refused:
        model.fit(X, y)
    assert not hasattr(model, "stats_")
    least = int(re.search(r"at least (\d+)", str(refused.value)).group(1))
    with pytest.raises(ValueError, match=f"memory_limit={least - 1} "):
        DPDTreeClassifier(max_depth=4, memory_limit=least - 1).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=f"memory_limit={least} bytes reached"):
        fitted = DPDTreeClassifier(max_depth=4, memory_limit=least).fit(X, y)
    assert fitted.stats_["stopped_by"] == "memory_limit" and not fitted.is_optimal_
    assert fitted.predict(X).shape == y.shape


@pytest.mark.parametrize("max_bins", [None, 64])
@pytest.mark.parametrize("budget", [1, 500, 50 * 300])
def test_states_stop_at_the_budget_left(max_bins, budget):
    params = dict(max_depth=5, candidates=(6, 6, 6), max_bins=max_bins)
    free = DPDTreeClassifier(**params).fit(X, y)
    n_bins = free.n_bins_
    fixed = fixed_fit_bytes(len(X), X.shape[1], 5, 6, 1, 3, n_bins=n_bins, sample_quantities=1)
    # A budget below what the greedy completion takes: the search is cut where it stands, each
    # state in progress keeping what it has (a leaf at least), a few states past the budget.
    with pytest.warns(ConvergenceWarning, match=f"memory_limit={fixed + budget} bytes"):
        stopped = DPDTreeClassifier(memory_limit=fixed + budget, **params).fit(X, y)
    assert stopped.stats_["stopped_by"] == "memory_limit" and not stopped.is_optimal_
    assert stopped.stats_["state_bytes"] <= budget + 4 * _core.state_bytes(3, True) + 4096
    assert stopped.predict(X).shape == y.shape
    assert stopped.score(X, y) <= free.score(X, y)
    roomy = DPDTreeClassifier(memory_limit=fixed + 10**9, **params).fit(X, y)
    for a, b in zip(free.trees_, roomy.trees_, strict=True):
        assert_tree_equal(a, b)


def test_regressor_takes_a_memory_limit():
    with pytest.raises(ValueError, match="memory_limit=1000 bytes is below"):
        DPDTreeRegressor(max_depth=3, memory_limit=1000).fit(X, X[:, 0])


_MEASURE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from dpdt import DPDTreeClassifier

    def status(key):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

    n, p, params = json.loads(sys.argv[1])
    rng = np.random.default_rng(0)
    X = rng.random((n, p))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(n) > 0.9).astype(int)
    y += X[:, 3] > 0.6
    params["candidates"] = tuple(params["candidates"])
    DPDTreeClassifier(max_depth=2).fit(X[:50], y[:50])   # first-call allocations out of the measure
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    model = DPDTreeClassifier(**params).fit(X, y)
    print(json.dumps({"measured": status("VmHWM") - before,
                      "estimate": model.stats_["estimated_bytes"]}))
""")

# Layout, generator buffers and states dominate in turn; the largest budget the core takes; the
# histogram engine.
_GRID = [
    (100_000, 12, dict(max_depth=6, candidates=(4, 4), max_bins=None)),
    (100_000, 12, dict(max_depth=6, candidates=(4, 4), max_bins=255)),
    (3000, 8, dict(max_depth=5, candidates=(8, 8, 8), max_bins=None)),
    (600, 8, dict(max_depth=3, candidates=(2**31 - 1,) * 3, max_bins=None)),
    (2000, 8, dict(max_depth=4, candidates=(20, 20, 20), splitter="topb", max_bins=None)),
]


def _peak_rss_resets():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


@pytest.mark.process_memory
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
@pytest.mark.parametrize(("n", "p", "params"), _GRID)
def test_the_estimate_is_within_twice_the_peak(n, p, params):
    if not _peak_rss_resets():
        pytest.skip("the peak RSS cannot be reset here")
    out = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps([n, p, params])],
                         capture_output=True, text=True, check=True, timeout=300)
    numbers = json.loads(out.stdout)
    # Never under by more than 2x; over by 2x at most, plus the allocator's and Python's slack.
    assert numbers["estimate"] >= numbers["measured"] / 2, numbers
    assert numbers["estimate"] <= 2 * numbers["measured"] + 16 * 2**20, numbers


def test_the_largest_budgets_are_estimated_from_the_data():
    # Was 429 TB: a budget counted as if each were a level of buffers and of states.
    model = DPDTreeClassifier(max_depth=3, candidates=(2**31 - 1,) * 3)
    model.fit(X[:400], y[:400])
    assert model.stats_["estimated_bytes"] < 2**30
    assert model.stats_["state_bytes"] < model.stats_["estimated_bytes"]
    limited = DPDTreeClassifier(max_depth=3, candidates=(2**31 - 1,) * 3,
                                memory_limit=2 * model.stats_["estimated_bytes"])
    for a, b in zip(model.trees_, limited.fit(X[:400], y[:400]).trees_, strict=True):
        assert_tree_equal(a, b)


@pytest.mark.parametrize("share", [0.999, 0.5])
def test_the_counted_bytes_are_the_state_budget(share):
    # The core counts every state as allocated: a limit below what a fit counted stops it, as
    # time_limit does (the greedy completion of the states in progress), within the limit.
    params = dict(max_depth=4, candidates=(6, 6, 6), n_jobs=1)
    model = DPDTreeClassifier(**params).fit(X, y)
    fixed = fixed_fit_bytes(len(X), X.shape[1], 4, 6, 1, 3, sample_quantities=1)
    counted = model.stats_["state_bytes"]
    assert counted > 500 * model.stats_["states"]   # the leaves of the last level included
    budget = int(share * counted)
    limit = fixed + budget
    with pytest.warns(ConvergenceWarning, match=f"memory_limit={limit} bytes reached"):
        stopped = DPDTreeClassifier(memory_limit=limit, **params).fit(X, y)
    assert stopped.stats_["stopped_by"] == "memory_limit" and not stopped.is_optimal_
    assert stopped.stats_["state_bytes"] <= budget < counted
    greedy = DPDTreeClassifier(max_depth=4, splitter="cart", candidates=(1,)).fit(X, y)
    assert stopped.score(X, y) >= greedy.score(X, y)
    assert stopped.score(X, y) <= model.score(X, y)
    # The search stops at 7/8 of its budget, leaving the rest for the greedy completion.
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        roomy = DPDTreeClassifier(memory_limit=fixed + counted * 8 // 7 + 1000, **params).fit(X, y)
    assert roomy.stats_["stopped_by"] is None
    for a, b in zip(model.trees_, roomy.trees_, strict=True):
        assert_tree_equal(a, b)


# The runaway: 221 s and 4.3 GB before max_states stopped it.
_RUNAWAY = textwrap.dedent("""
    import json, resource, sys, time, warnings
    import numpy as np
    from sklearn.exceptions import ConvergenceWarning
    from dpdt import DPDTreeClassifier

    params, address_space = json.loads(sys.argv[1])
    if address_space:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    rng = np.random.default_rng(0)
    X = rng.random((5000, 10))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(5000) > 1).astype(int)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DPDTreeClassifier(max_depth=8, candidates=(50,) * 8, **params).fit(X, y)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    greedy = DPDTreeClassifier(max_depth=8, splitter="cart", candidates=(1,)).fit(X, y)
    print(json.dumps({
        "warnings": [str(w.message) for w in caught if w.category is ConvergenceWarning],
        "seconds": seconds, "peak": peak, "stats": model.stats_,
        "is_optimal": model.is_optimal_, "score": model.score(X, y),
        "greedy_score": greedy.score(X, y)}))
""")


@pytest.mark.process_memory
@pytest.mark.skipif(sys.platform == "win32", reason="resource limits are POSIX")
@pytest.mark.parametrize(("params", "address_space", "cause", "stopped_by"), [
    ({}, None, "max_states=5000000", "max_states"),
    ({"memory_limit": 2 * 10**9, "max_states": None}, None, "memory_limit=2000000000",
     "memory_limit"),
    # The default bound: what the process may still allocate, here under ulimit -v 3 GB.
    ({"max_states": None}, 3 * 2**30, "memory_limit=None", "memory_limit"),
])
def test_a_runaway_configuration_stops_early(params, address_space, cause, stopped_by):
    out = subprocess.run([sys.executable, "-c", _RUNAWAY, json.dumps([params, address_space])],
                         capture_output=True, text=True, check=True, timeout=300)
    result = json.loads(out.stdout)
    # Stopped as at its limit, with the best tree found (the greedy split solved first in every
    # state: never worse than the greedy tree) and one warning naming the limit and what to lower.
    assert len(result["warnings"]) == 1, result
    warning = result["warnings"][0]
    assert warning.startswith(cause) and "stopped early" in warning, warning
    assert "lower max_depth or candidates" in warning, warning
    assert result["stats"]["stopped_by"] == stopped_by and not result["is_optimal"], result
    assert result["score"] >= result["greedy_score"], result
    # Early: a sliver of the limit (the projection waits for 1/64 of it at most), seconds where
    # it took minutes, and a fraction of the memory it would take (about 4 s and 300 MB, Python
    # and numpy included, on the 2-core machine).
    assert result["stats"]["states"] < 5_000_000 / 64, result
    assert result["stats"]["state_bytes"] < 2 * 10**9 / 64, result
    assert result["seconds"] < 60, result
    assert result["peak"] < 1.5 * 2**30, result


@pytest.mark.process_memory
def test_the_default_bound_is_what_the_process_may_allocate():
    code = textwrap.dedent("""
        import resource
        from dpdt._memory import available_bytes
        resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))
        print(available_bytes())
    """)
    if sys.platform == "win32":
        pytest.skip("resource limits are POSIX")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert 0 < int(out.stdout) < 2**31


@pytest.mark.wall_clock
def test_an_exhaustive_state_of_many_candidates_reaches_its_cap_in_seconds():
    # The root's 100 000 exhaustive candidates were told apart from each other by a scan of
    # those kept, quadratic: 29 s before the state cap could stop anything (at depth 4 on
    # 5 000 x 30, a minute per state, 3 states in the first minute); a set makes it linear.
    rng = np.random.default_rng(0)
    X = rng.random((20000, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 1).astype(int)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="max_states=1000"):
        model = DPDTreeClassifier(max_depth=2, splitter="exhaustive", max_states=1000).fit(X, y)
    assert time.perf_counter() - start < 12
    assert model.stats_["stopped_by"] == "max_states" and model.stats_["states"] < 2000


@pytest.mark.parametrize(("params", "limit", "used"), [
    ({}, "max_states=5000000", "states"),
    ({"max_states": None, "memory_limit": 8 * 10**9}, "memory_limit=8000000000", "state_bytes"),
])
def test_a_runaway_of_costly_states_stops_after_few_of_them(params, limit, used):
    # Each state here offers ~10^4 exhaustive candidates: the projection waited for 1/64 of the
    # limit (78 000 states, 40 s or more at 5 000 x 30); with an estimate and a projection both
    # far past the limit, a thousand or so states suffice. The search then ends as at its limit.
    rng = np.random.default_rng(0)
    X = rng.random((1000, 10))
    y = ((X[:, 0] - 0.5) * (X[:, 1] - 0.5) + 0.1 * np.sin(8 * X[:, 2]) > 0).astype(int)
    with pytest.warns(ConvergenceWarning) as caught:
        model = DPDTreeClassifier(max_depth=4, splitter="exhaustive", n_jobs=1,
                                  **params).fit(X, y)
    [warning] = [str(w.message) for w in caught if w.category is ConvergenceWarning]
    assert warning.startswith(limit) and "stopped early" in warning, warning
    assert "lower max_depth or candidates" in warning, warning
    assert model.stats_["stopped_by"] == limit.split("=")[0] and not model.is_optimal_
    # The greedy completion adds a few dozen states to those the projection stopped at.
    value = 5_000_000 if not params else 8 * 10**9
    assert model.stats_[used] < value / 64 / 8, model.stats_
    greedy = DPDTreeClassifier(max_depth=4, splitter="cart", candidates=(1,)).fit(X, y)
    assert model.score(X, y) >= greedy.score(X, y)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_fit_within_its_limits_is_not_stopped_when_the_estimate_is_far_too_high(n_jobs, seed):
    # Four values a feature: exhaustive search has few thresholds where the estimate counts one
    # per sample (10^7 times the states solved). Its projection must not stop it.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(2000, 10)).astype(float)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.random(2000) > 4).astype(int)
    free = DPDTreeClassifier(max_depth=4, splitter="exhaustive", max_states=None,
                             n_jobs=1).fit(X, y)
    limited = DPDTreeClassifier(max_depth=4, splitter="exhaustive", n_jobs=n_jobs,
                                max_states=2 * free.stats_["states"]).fit(X, y)
    for a, b in zip(free.trees_, limited.trees_, strict=True):
        assert_tree_equal(a, b)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("limit", ["max_states", "memory_limit"])
@pytest.mark.parametrize("make", [DPDTreeClassifier, DPDTreeRegressor])
def test_a_state_limit_stops_the_search_with_a_tree_never_worse_than_greedy(make, limit, n_jobs,
                                                                           monkeypatch):
    # Half the states or bytes the whole search takes: the search stops there as at a time
    # limit, within the budget, and the states in progress complete their greedy split.
    target = y if make is DPDTreeClassifier else X[:, 0] * X[:, 1] + X[:, 2]
    params = dict(max_depth=5, n_jobs=n_jobs)
    budgets = []

    def recorded(limit, fixed):
        budgets.append(state_budget(limit, fixed))
        return budgets[-1]

    monkeypatch.setattr(dpdt._classes, "state_budget", recorded)
    full = make(**params).fit(X, target)
    greedy = make(max_depth=5, splitter="cart", candidates=(1,)).fit(X, target)
    if limit == "max_states":
        value = full.stats_["states"] // 2
        named = f"max_states={value} reached"
    else:
        # The state budget is what the limit leaves after the fixed part.
        value = 10**9
        make(memory_limit=value, **params).fit(X, target)
        value -= budgets[-1] - full.stats_["state_bytes"] // 2
        named = f"memory_limit={value} bytes reached"
    with pytest.warns(ConvergenceWarning, match=named):
        stopped = make(**{limit: value}, **params).fit(X, target)
    assert stopped.stats_["stopped_by"] == limit and not stopped.is_optimal_
    assert stopped.stats_["states"] < full.stats_["states"]
    assert stopped.stats_["state_bytes"] <= budgets[-1]
    assert stopped.score(X, target) >= greedy.score(X, target) - 1e-12


def test_the_estimate_counts_the_states_of_value_bounds_apart():
    # Monotonic constraints put value bounds in a state: a box that "topb" reaches through both
    # orders of its tests is one state without them, but two under constraints, whose splits
    # give each order its own bounds. Counted as merged, the estimate was under by 1.9x here.
    params = dict(max_depth=4, candidates=(12, 12, 12), splitter="topb", max_bins=None)
    free = DPDTreeClassifier(**params).fit(X[:1000], y[:1000] > 0)
    bounded = DPDTreeClassifier(monotonic_cst=[1, 1, 1, 0, 0, -1], **params).fit(X[:1000],
                                                                               y[:1000] > 0)
    assert bounded.stats_["states"] > 2 * free.stats_["states"]
    for model in (free, bounded):
        assert model.stats_["state_bytes"] <= model.stats_["estimated_bytes"], model.stats_


@pytest.mark.parametrize("depth, per_value", [(2, 48), (3, 80)])
def test_the_exact_search_holds_what_its_states_meet(depth, per_value):
    # The bounded search's buffers follow its states: the memo of depth-one sets grows with the
    # sets solved, and a level's cuts and prefixes with each feature's values. On features of
    # five values each, it holds a few bytes per value of X where it once held a memo of 16
    # slots a sample and rows of every sample for every feature (185 bytes per value at depth 3).
    rng = np.random.default_rng(1)
    n, p = 20_000, 8
    Xf = rng.integers(0, 5, size=(n, p)).astype(float)
    yf = ((Xf[:, 0] + Xf[:, 1] > 4) ^ (Xf[:, 2] > 2) ^ (rng.random(n) < 0.1)).astype(int)
    model = DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False).fit(Xf, yf)
    assert model.is_optimal_
    assert model.stats_["state_bytes"] < per_value * n * p, model.stats_
