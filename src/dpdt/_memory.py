"""What a fit will allocate, estimated before it starts: the formula behind ``memory_limit``.

A fit holds two parts. The fixed part (the data layout, the per-thread buffers) is computed by the
core from its own types (``cpp/include/dpdt/memory.hpp`` documents it term by term); this module
adds the arrays made in Python before the core starts (weights, labels, binning temporaries):
``(48 + 8 S) n`` bytes for n samples and a leaf statistic of S numbers (classes, or 1 + 2
outputs). The solved states' part grows with the search: the core counts each state's bytes as it
creates it (``_core.state_bytes`` and ``_core.solved_bytes``, from the same header) and stops the
fit before they pass the budget, or as soon as it is on course to pass it several times over.

Before the fit, :func:`estimate_states` bounds the number of states from the data as well as from
the candidate budgets: a state of m samples has at most m - 1 CART splits (p (m - 1) thresholds),
and a split's two children share their parent's samples, so a state at depth d holds about
n / 2**d of them. The estimate ignores the states that end early (pure, or found again through
another path), so it errs high, by the share of those; ``benchmarks/memory.py`` compares it with
measured peaks.
"""

import os
from dataclasses import dataclass

from . import _core

#: Hull points (and actions) a solved state with r levels left keeps, at most: its leaf, and about
#: one tree per level of split (measured on the benchmark grid: 1.3 points on average at r = 1,
#: fewer than r + 1 deeper), counted as vectors grow, by doubling.
_CONVEX_POINTS_PER_LEVEL = 1
#: A Pareto set keeps the trees between hull vertices too: about one per split count.
_PARETO_POINTS_PER_LEVEL = 2


def fixed_fit_bytes(n_samples, n_features, max_depth, max_budget, n_threads, stat_dim,
                    n_bins=None, code_bytes=1, sample_quantities=None):
    """Return the bytes a fit allocates before and besides its solved states (module docstring).

    ``max_budget`` is the largest generator budget, ``n_bins`` None for exact thresholds, else
    the bins of each feature, and ``sample_quantities`` the number of per-sample quantities the
    histograms sum (default ``stat_dim``).
    """
    python_side = (48 + 8 * stat_dim) * n_samples
    return python_side + _core.fixed_fit_bytes(
        n_samples, n_features, max_depth, max_budget, n_threads, stat_dim, n_bins=n_bins,
        code_bytes=code_bytes, sample_quantities=sample_quantities)


@dataclass(frozen=True)
class StateEstimate:
    """The states a search will solve, by depth, as :func:`estimate_states` counts them.

    ``counts[d]`` states at depth d, ``leaves`` the last level's children (solved exactly, never
    cached), ``bytes`` what they hold (``_core.state_bytes`` and ``_core.solved_bytes``) and
    ``sample_reads`` the samples of the states summed, the work ``stats_["sample_reads"]``
    counts.
    """

    counts: tuple
    leaves: float
    bytes: float
    sample_reads: float = 0.0

    @property
    def states(self):
        """Return the states counted against ``max_states``."""
        return sum(self.counts)


def _splits_per_state(splitter, budget, m, n_features, min_samples_leaf, cart_splits):
    """Return the candidate splits a state of ``m`` samples yields (``m`` may be fractional).

    ``cart_splits`` is the number of splits CART's fully grown tree has on such a state.
    """
    thresholds = max(0.0, m - 2 * min_samples_leaf + 1)   # per feature
    if splitter == "exhaustive":
        return n_features * thresholds
    if splitter == "quantile":
        return n_features * min(budget, thresholds)
    if splitter == "topk":
        return min(budget, n_features, n_features * thresholds)
    if splitter == "topb":
        return min(budget, n_features * thresholds)
    # CART's tree on m samples has at most m - 1 splits; the lookahead and the screen add as many.
    cart = min(budget, thresholds, cart_splits)
    return 2 * cart if splitter in ("lookahead", "screen") else cart


def estimate_states(n_samples, n_features, max_depth, candidates, splitters, stat_dim,
                    min_samples_leaf=1, exact_depth2_work=0, front="convex", feature_costs=False,
                    cart_size=None, value_bounds=False):
    """Return a :class:`StateEstimate` of the search of a fit, before it starts.

    ``candidates`` and ``splitters`` are the resolved per-depth lists (deeper levels use 1 and
    CART, as in the core), ``feature_costs`` whether the features' costs differ (the last level
    then keeps one split per feature). ``cart_size``, if given, is called (only when a CART
    budget could exceed it) for the splits of a fully grown CART tree on the data (or None): a
    state of m samples is taken to have ``m / n`` of them, since CART stops at pure nodes.
    ``value_bounds`` is whether states carry bounds on their values (``monotonic_cst``): a
    state is then its samples, its depth and its bounds, and the same box reached through
    another order of its tests is another state, whose bounds come from other splits.
    """
    per_level = _PARETO_POINTS_PER_LEVEL if front == "pareto" else _CONVEX_POINTS_PER_LEVEL
    cached, leaf = _core.state_bytes(stat_dim, True), _core.state_bytes(stat_dim, False)
    counts, total, leaves, reads = [], 0.0, 0.0, 0.0
    states, m = 1.0, float(n_samples)
    # CART's tree is only grown when a budget could reach the size of a state's tree.
    cart_splits = float("inf")
    if cart_size is not None and any(
            c >= n_samples / 2 ** (d + 2) for d, c in enumerate(candidates[:max_depth - 1])):
        size = cart_size()
        cart_splits = float("inf") if size is None else float(size)
    for depth in range(max_depth):
        counts.append(states)
        reads += states * m
        remaining = max_depth - depth
        splittable = m >= max(2, 2 * min_samples_leaf)
        if remaining == 1:
            # Exactly searched: the best split (one per feature with costs) and its two leaves.
            kept = (n_features if feature_costs else 1) if splittable else 0
            leaves = 2 * kept * states
            total += states * (cached + _core.solved_bytes(1 + kept, kept)) + leaves * leaf
            break
        budget = candidates[depth] if depth < len(candidates) else 1
        splitter = splitters[depth] if depth < len(splitters) else "cart"
        k = _splits_per_state(splitter, budget, m, n_features, min_samples_leaf,
                              cart_splits * m / n_samples) if splittable else 0
        k += 1 if exact_depth2_work and splittable else 0
        points = 1 + per_level * min(remaining, 2 ** remaining - 1) if k else 1
        # Vectors grow by doubling: the actions' capacity is the next power of two.
        actions = 1 << (points - 1).bit_length() if points > 1 else 0
        total += states * (cached + _core.solved_bytes(points, actions))
        # A box of several thresholds is one state whatever the order of its tests: generators
        # that offer many thresholds of a feature (every one, or the best overall) offer both
        # orders, and the cache solves it once (measured: a third to a half of their children).
        # Not under value bounds: each order's splits bound the box's values differently
        # (measured: constrained "topb" fits keep almost none of those cache hits and solve
        # 1.4 to 1.8 times the states, the default generators up to 1.5 times, within this
        # count, which merges nothing for them).
        merged = splitter in ("exhaustive", "topb") and depth > 0 and not value_bounds
        repeats = depth + 1 if merged else 1
        states, m = 2 * k * states / repeats, m / 2
        if states == 0:
            break
    return StateEstimate(tuple(counts), leaves, total, reads)


def available_bytes():
    """Return the bytes this process may still allocate, or None if that cannot be told.

    The least of the machine's available memory (``psutil`` when installed, else the free pages),
    the headroom of a cgroup (v2) memory limit, as containers set, and that of the address-space
    limit (``ulimit -v``).
    """
    bounds = []
    try:
        import psutil

        bounds.append(psutil.virtual_memory().available)
    except ImportError:
        try:
            bounds.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            pass
    try:
        cgroup = "/sys/fs/cgroup/memory."
        with open(cgroup + "max") as cap, open(cgroup + "current") as used:
            limit = cap.read().strip()
            if limit != "max":
                bounds.append(int(limit) - int(used.read()))
    except (OSError, ValueError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as f:
                mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            bounds.append(soft - mapped)
    except (ImportError, OSError, ValueError):
        pass
    return max(0, min(bounds)) if bounds else None


def state_budget(memory_limit, fixed_bytes):
    """Return the bytes left for solved states (0: no limit), or raise ValueError if none are.

    ``memory_limit`` None is what this process may still allocate (:func:`available_bytes`; no
    limit if that cannot be told). It bounds the states, not the fixed part, which is a bound
    with every thread at its worst (a thread's buffers are made when it takes a task) and is
    refused only under an explicit limit, as scikit-learn refuses no fit by its arrays: the
    states get what the fixed part leaves, or half of it if that is more.
    """
    if memory_limit is None:
        available = available_bytes()
        return 0 if available is None else max(available - fixed_bytes, available // 2, 1)
    left = memory_limit - fixed_bytes
    if left <= 0:
        # Not a limit the search can stop at: no tree can be made without these bytes.
        raise ValueError(
            f"memory_limit={memory_limit} bytes is below the {fixed_bytes} bytes this fit needs "
            "before solving any state (data layout and per-thread buffers): set memory_limit to "
            f"at least {fixed_bytes + 1}, or lower max_depth, candidates or n_jobs, or set "
            "max_bins")
    # The core counts bytes in 64 bits; 2**62 bytes is beyond any machine's memory.
    return min(left, 2**62)
