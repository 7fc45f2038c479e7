"""What a fit allocates besides its solved states: the formula behind ``memory_limit``.

With n samples, p features, depth limit D, the largest generator budget B, T threads and a
leaf statistic of S numbers (classes, or 1 + 2 outputs), a fit holds, in bytes:

- exact thresholds: the features' column copy and presort, ``12 n p``; per thread, the
  children's sorted blocks of every depth, ``4 n p D``, and the CART generator's nodes,
  ``4 n p B``, plus a mask of ``n``;
- bins (``max_bins``): the codes, ``c n p`` (c = 1 byte up to 255 bins, else 2), and the
  per-sample quantities the histograms sum in fixed point, ``16 Q n`` at their peak (Q = 1 for
  classification, S for regression); per thread the children's id lists, ``4 n D``, the
  generator's, ``4 n B``, and histograms of ``H = 8 (S + 1) (bins + 1) p`` bytes each: one
  always, and, when ``n p >= H / 8`` (states large enough to keep theirs, so that a child's comes
  from its sibling's by subtraction), ``2 (D + B)`` more per thread and one for the root;
- the arrays made in Python before the core starts (weights, labels, binning temporaries):
  ``(48 + 8 S) n``;
- and the solved states: about ``300 + 8 S`` bytes each, plus 56 bytes per point of its Pareto
  hull (the core counts them as it goes and stops at the budget left).

Every term is an upper bound reached when one child of each split keeps almost all samples; the
training data itself (X, y, weights) is the caller's and not counted.
"""

INDEX_BYTES = 4


def fixed_fit_bytes(n_samples, n_features, max_depth, max_budget, n_threads, stat_dim,
                    n_bins=None, code_bytes=1, sample_quantities=None):
    """Return the bytes a fit allocates before and besides its solved states (module docstring).

    ``n_bins`` is None for exact thresholds, else the bins of each feature;
    ``sample_quantities`` is Q (default S).
    """
    n, p = n_samples, n_features
    depth = min(max_depth, n)
    python_side = (48 + 8 * stat_dim) * n
    if n_bins is None:
        per_thread = INDEX_BYTES * n * p * (depth + max_budget) + n
        return python_side + 12 * n * p + n_threads * per_thread
    quantities = stat_dim if sample_quantities is None else sample_quantities
    histogram_numbers = sum(int(b) + 1 for b in n_bins) * (stat_dim + 1)
    histogram = 8 * histogram_numbers
    kept = n * p >= histogram_numbers
    per_thread = INDEX_BYTES * n * (depth + max_budget) + n
    per_thread += histogram * (1 + (2 * (depth + max_budget) if kept else 0))
    return (python_side + code_bytes * n * p + 16 * quantities * n + (histogram if kept else 0)
            + n_threads * per_thread)


def state_budget(memory_limit, fixed_bytes):
    """Return the bytes left for solved states, or raise MemoryError if there are none."""
    left = memory_limit - fixed_bytes
    if left <= 0:
        raise MemoryError(
            f"memory_limit={memory_limit} bytes is below the {fixed_bytes} bytes this fit needs "
            "before solving any state (data layout and per-thread buffers); raise memory_limit, "
            "lower max_depth, candidates or n_jobs, or set max_bins")
    return left
