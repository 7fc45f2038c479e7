"""Cutting features into bins for the histogram engine (``max_bins``)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _core

#: "auto" bins the features from this many training samples on, and keeps exact thresholds below.
AUTO_BINNED_SAMPLES = 100_000
#: From this depth, "auto" bins from AUTO_BINNED_SAMPLES_DEEP samples: a deep search solves many
#: states, each of which costs the exact layout a stable partition of p sorted blocks where the
#: binned one sums a histogram (and gets its sibling's by subtraction), and at depth 3 the screen
#: (exact thresholds only) costs 3 to 10 times CART's time at 10 000 samples; below about this
#: size the histograms' fixed cost per state outweighs that (benchmarks/scaling.py), and the
#: bundled depth-3 benchmarks keep the screen that comes close to their optima.
AUTO_BINNED_DEPTH = 3
AUTO_BINNED_SAMPLES_DEEP = 10_000
#: The bins of "auto" (codes fit in one byte, with one code left for a missing value).
AUTO_MAX_BINS = 255
#: Bin edges come from at most this many samples (drawn with the estimator's random_state).
BINNING_SAMPLES = 200_000


def uses_bins(max_bins, X, max_depth, exact_splitter=False):
    """Return the number of bins the fit uses, or None for exact thresholds.

    ``"auto"`` bins large data, or deep searches on mid-sized data, unless ``exact_splitter``
    says a splitter the user chose needs exact thresholds; an integer always bins; None never
    does.
    """
    if max_bins is None:
        return None
    if max_bins == "auto":
        if exact_splitter:
            return None
        least = AUTO_BINNED_SAMPLES
        if max_depth >= AUTO_BINNED_DEPTH:
            least = min(least, AUTO_BINNED_SAMPLES_DEEP)
        return AUTO_MAX_BINS if X.shape[0] >= least else None
    return int(max_bins)


def bin_features(X, max_bins, random_state, n_threads=1):
    """Cut every feature of ``X`` into at most ``max_bins`` bins of training values.

    Bin ``b`` of a feature holds the values in ``(upper[b - 1], upper[b]]``, where every
    ``upper`` is a value of the training data, so that a split after bin ``b`` is the threshold
    ``x <= upper[b]`` on raw values. A feature with at most ``max_bins`` distinct values gets one
    bin per value (its thresholds are then exactly those of the exact engine's splits, up to
    where between two values they sit). Otherwise the edges are quantiles of the values,
    taken from at most ``BINNING_SAMPLES`` rows. A missing value gets code ``n_bins[f]``.
    ``n_threads`` threads cut features at the same time; the result does not depend on them.

    Returns
    -------
    codes : ndarray of shape (n_samples, n_features), dtype uint8 or uint16
    n_bins : ndarray of shape (n_features,), dtype int32
    upper : ndarray of shape (sum(n_bins),), dtype float64
        The bins' upper values, feature after feature.
    """
    n_samples, n_features = X.shape
    code_type = np.uint8 if max_bins <= np.iinfo(np.uint8).max else np.uint16
    rows = None
    if n_samples > BINNING_SAMPLES:
        rows = np.sort(random_state.choice(n_samples, BINNING_SAMPLES, replace=False))
    # The sampled rows column by column, each contiguous: numpy releases the GIL in the sorts of
    # one feature's values, so threads take features in parallel; the core then codes every value.
    columns = np.asfortranarray(X if rows is None else X[rows])
    # The largest present value of every feature over all rows (NaN where a feature has none).
    present_maxima = np.fmax.reduce(X, axis=0)
    n_bins = np.empty(n_features, dtype=np.int32)
    uppers = [None] * n_features
    levels = np.arange(1, max_bins + 1) / max_bins

    def cut(f):
        sample = columns[:, f]
        sample = sample[~np.isnan(sample)]
        distinct, counts = np.unique(sample, return_counts=True)
        if distinct.size > max_bins:
            # The quantiles of np.quantile(sample, levels, method="inverted_cdf"): the least
            # value whose empirical CDF reaches each level, read off the sorted counts.
            reached = np.searchsorted(np.cumsum(counts), levels * sample.size, side="left")
            distinct = np.unique(distinct[np.minimum(reached, distinct.size - 1)])
        present_max = present_maxima[f]
        if np.isnan(present_max):
            upper = np.zeros(1)   # only missing values: one empty bin, never split
        elif distinct.size == 0 or distinct[-1] < present_max:
            # The last bin must hold every present value, those the sample missed included.
            upper = np.append(distinct[distinct < present_max], present_max)
        else:
            upper = distinct
        if upper.size > max_bins:   # the appended maximum merges with the last quantile's bin
            upper = np.append(upper[:max_bins - 1], upper[-1])
        n_bins[f] = upper.size
        uppers[f] = upper

    if n_threads > 1 and n_features > 1:
        with ThreadPoolExecutor(min(n_threads, n_features)) as pool:
            list(pool.map(cut, range(n_features)))
    else:
        for f in range(n_features):
            cut(f)
    upper = np.concatenate(uppers).astype(np.float64)
    offset = np.concatenate([[0], np.cumsum(n_bins, dtype=np.int64)])
    # A missing value gets n_bins[f], after every present bin (as NaN sorts in numpy).
    codes = _core.bin_codes(np.ascontiguousarray(X, dtype=np.float64), upper, offset,
                            wide=code_type is np.uint16, n_threads=n_threads)
    return codes, n_bins, upper
