"""Cutting features into bins for the histogram engine (``max_bins``)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._runner import call_core

#: "auto" bins the features from this many training samples on, and keeps exact thresholds below.
AUTO_BINNED_SAMPLES = 100_000
#: From this depth, "auto" bins from AUTO_BINNED_SAMPLES_DEEP samples: a deep search solves many
#: states, each of which costs the exact layout a stable partition of p sorted blocks where the
#: binned one sums a histogram (and gets its sibling's by subtraction), and at depth 3 the screen
#: (exact thresholds only) costs 3 to 10 times CART's time at 10 000 samples; below about this
#: size the histograms' fixed cost per state outweighs that (benchmarks/scaling.py), and the
#: bundled depth-3 benchmarks keep the screen that comes close to their optima. On the wide
#: corpus (depths 4 to 6, the same read cap for both layouts) the binned fits cost 1.7 to 2.1
#: times CART's time from 10 000 rows, the exact ones 2.3 to 2.7, for 0.06 to 0.20 more
#: training points binned; below, the two cost about the same.
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


def tree_edges(X, tree):
    """Return, per feature, the bin uppers that keep the splits of a fitted tree of X.

    ``tree`` is a tree's arrays (``children_left``, ``feature``, ``threshold``, leaves -1, as
    :class:`dpdt.Tree` and scikit-learn's ``tree_`` hold them). A split ``x <= t`` sends left
    exactly the values at most the largest value of X's column at most ``t``: with that value
    an upper, the split is one between two bins. Returns a dict, feature -> sorted array.
    """
    split = tree.children_left >= 0
    edges = {}
    for f in np.unique(tree.feature[split]):
        column = X[:, f]
        thresholds = np.unique(tree.threshold[split & (tree.feature == f)])
        # One sort of the values a split may send left (NaN is never <= t), not a pass over
        # the column per threshold: a deep tree has dozens on a feature. Equal values are the
        # same bits but for zeros, whose sign np.max picks as it always did.
        values = np.sort(column[column <= thresholds[-1]])
        at = np.searchsorted(values, thresholds, side="right") - 1
        found = at >= 0
        uppers = values[at[found]]
        for i in np.flatnonzero(uppers == 0):
            uppers[i] = np.max(column, where=column <= thresholds[found][i], initial=-np.inf)
        edges[int(f)] = np.unique(uppers[uppers > -np.inf])
    return edges


def keep_edges(upper, edges, max_bins):
    """Return a feature's bin uppers with ``edges`` among them, at most ``max_bins`` in all.

    When the feature has no room left, the edges replace the quantile uppers nearest them in
    rank (the bins stay quantiles elsewhere); the last upper, the feature's largest value,
    stays. A feature whose edges alone do not fit (``max_bins`` smaller than the tree's
    thresholds on it) keeps its uppers.
    """
    if len(edges) >= max_bins:
        return upper
    merged = np.union1d(upper, edges)
    excess = len(merged) - max_bins
    if excess <= 0:
        return merged
    fixed = np.isin(merged, edges)
    fixed[-1] = True
    rank = np.arange(len(merged))
    distance = np.abs(rank[:, np.newaxis] - rank[fixed][np.newaxis, :]).min(axis=1)
    droppable = np.flatnonzero(~fixed)
    dropped = droppable[np.argsort(distance[droppable], kind="stable")[:excess]]
    return np.delete(merged, dropped)


def bin_features(X, max_bins, random_state, n_threads=1, edges=None):
    """Cut every feature of ``X`` into at most ``max_bins`` bins of training values.

    Bin ``b`` of a feature holds the values in ``(upper[b - 1], upper[b]]``, where every
    ``upper`` is a value of the training data, so that a split after bin ``b`` is the threshold
    ``x <= upper[b]`` on raw values. A feature with at most ``max_bins`` distinct values gets one
    bin per value (its thresholds are then exactly those of the exact engine's splits, up to
    where between two values they sit). Otherwise the edges are quantiles of the values,
    taken from at most ``BINNING_SAMPLES`` rows. A missing value gets code ``n_bins[f]``.
    ``n_threads`` threads cut features at the same time; the result does not depend on them.
    ``edges``, a dict feature -> uppers (:func:`tree_edges`), adds those uppers to the
    features' bins (see :func:`keep_edges`).

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
    sample = X if rows is None else X[rows]
    # The sampled values feature by feature, sorted (NaN last), and the largest present value of
    # every feature over all rows (NaN where a feature has none). numpy's copies, sorts and
    # reductions release the GIL: threads take blocks of features at the same time. The columns
    # are a copy, always (the sort is in place).
    columns = np.empty((n_features, sample.shape[0]), dtype=np.float64)
    present_maxima = np.empty(n_features, dtype=np.float64)

    def prepare(block):
        first, stop = block[0], block[-1] + 1
        columns[first:stop] = sample[:, first:stop].T
        columns[first:stop].sort(axis=1)
        present_maxima[first:stop] = np.fmax.reduce(X[:, first:stop], axis=0)

    blocks = np.array_split(np.arange(n_features), min(n_threads, n_features))
    if len(blocks) > 1:
        with ThreadPoolExecutor(len(blocks)) as pool:
            list(pool.map(prepare, blocks))
    else:
        prepare(blocks[0])
    n_bins, upper = call_core("bin_uppers", columns, present_maxima, max_bins=int(max_bins),
                              n_threads=n_threads)
    offset = np.concatenate([[0], np.cumsum(n_bins, dtype=np.int64)])
    if edges:
        uppers = [keep_edges(upper[offset[f]:offset[f + 1]], edges[f], max_bins)
                  if f in edges else upper[offset[f]:offset[f + 1]] for f in range(n_features)]
        n_bins = np.array([len(u) for u in uppers], dtype=np.int32)
        upper = np.concatenate(uppers)
        offset = np.concatenate([[0], np.cumsum(n_bins, dtype=np.int64)])
    # A missing value gets n_bins[f], after every present bin (as NaN sorts in numpy).
    codes = call_core("bin_codes", np.ascontiguousarray(X, dtype=np.float64), upper, offset,
                      wide=code_type is np.uint16, n_threads=n_threads)
    return codes, n_bins, upper
