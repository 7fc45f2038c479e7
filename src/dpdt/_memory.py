"""What a fit allocates besides its solved states: the formula behind ``memory_limit``.

The core's part (the data layout and the per-thread buffers) is computed by the core from its own
types (``cpp/include/dpdt/memory.hpp`` documents it term by term); this module adds the arrays
made in Python before the core starts (weights, labels, binning temporaries): ``(48 + 8 S) n``
bytes for n samples and a leaf statistic of S numbers (classes, or 1 + 2 outputs). The solved
states, about ``300 + 8 S`` bytes each plus 56 bytes per point of their Pareto hulls, are counted
by the core as it goes, which stops at the budget left.
"""

from . import _core


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


def state_budget(memory_limit, fixed_bytes):
    """Return the bytes left for solved states, or raise MemoryError if there are none."""
    left = memory_limit - fixed_bytes
    if left <= 0:
        raise MemoryError(
            f"memory_limit={memory_limit} bytes is below the {fixed_bytes} bytes this fit needs "
            "before solving any state (data layout and per-thread buffers); raise memory_limit, "
            "lower max_depth, candidates or n_jobs, or set max_bins")
    return left
