"""What a Dask worker does with one partition of a data-parallel fit (``dpdt.dask``).

Plain functions of numpy (or pandas) partitions, with no Dask in them: the driver in
``_dask_estimators`` submits them, one task per partition, and sums or merges what they return.
Each answers with small, exactly mergeable values: counts, maxima, the bottom of a sample
ordered by hashed row ids, integer histograms. The training rows are numbered as the local fit
numbers them, after the rows of weight zero are dropped: partition ``k`` holds the rows
``first_id .. first_id + n_k - 1`` of the concatenation.
"""

import inspect
import threading
import weakref

import numpy as np
from sklearn.utils.validation import _check_sample_weight, check_array

from . import _core
from ._policy import leaf_sums as sums_of
from ._validation import binary_exponent

# Rows converted to float64 at a time when a partition is binned: the core reads float64, and a
# whole float32 partition copied at once would double its memory.
_CODE_BLOCK_ROWS = 1 << 16

#: Bytes of a partition's row cache per row (the rows of its states met in the last rounds, 4
#: bytes per row of a state): 4 states as large as the partition, its uint8 codes' size at 16
#: features. (Measured on one process, 250 000 rows at depth 6: 32 bytes per row saved 17% of
#: the histograms' time, 256 bytes 28%.)
ROW_CACHE_BYTES_PER_ROW = 16

# Each partition's row cache, by the id of its codes array: gone with the partition.
_ROW_CACHES = {}
_ROW_CACHES_LOCK = threading.Lock()


def _features(X, where):
    """Return the partition ``X`` as a 2-d float array (float32 kept), NaN allowed."""
    try:
        return check_array(X, dtype=(np.float64, np.float32), ensure_all_finite="allow-nan",
                           ensure_min_samples=0, ensure_2d=True, input_name="X")
    except (TypeError, ValueError) as error:
        raise type(error)(f"{where}: {error}") from error


# A partition may weigh nothing, as some rows of a local fit do: the whole data's weights must
# sum to a positive value, which the driver checks. scikit-learn >= 1.7 refuses weights that are
# all zero unless told.
_ZERO_WEIGHTS = ({"allow_all_zero_weights": True}
                 if "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters
                 else {})


def _weights(sample_weight, X, where):
    if X.shape[0] == 0:   # scikit-learn's check refuses an empty partition
        weight = np.zeros(0) if sample_weight is None else np.asarray(sample_weight, np.float64)
        if weight.shape != (0,):
            raise ValueError(f"{where}: X has 0 rows and sample_weight shape {weight.shape}")
        return weight
    try:
        weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                      ensure_non_negative=True, **_ZERO_WEIGHTS)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from error
    if not np.all(np.isfinite(weight)):
        raise ValueError(f"{where}: sample_weight must be finite")
    return weight


def summary(objective, X, y, sample_weight, where):
    """Return what the driver needs of one partition before the weights can be scaled.

    Rows and features, the targets' columns (``objective.target_columns``), and per group of
    ``objective.groups`` (the classes of a classifier, else one) its label, rows, largest
    weight and weights' sum: class weights scale the groups apart. The sums are of the
    weights divided by ``2**weight_exponent``, the power of two that brings the partition's
    largest near 1 (exact), so that they cannot overflow where the whole data's scaled sum
    does not.
    """
    X = _features(X, where)
    weight = _weights(sample_weight, X, where)
    y = objective.part_targets(y, X.shape[0], where)
    labels, codes = objective.groups(y)
    largest = np.zeros(len(labels))
    np.maximum.at(largest, codes, weight)
    exponent = binary_exponent(weight)
    return {"rows": X.shape[0], "features": X.shape[1],
            "columns": objective.target_columns(y), "labels": labels,
            "label_rows": np.bincount(codes, minlength=len(labels)),
            "label_max_weight": largest, "weight_exponent": exponent,
            "label_weight": np.bincount(codes, weights=np.ldexp(weight, -exponent),
                                        minlength=len(labels))}


def training_rows(objective, X, y, sample_weight, scale):
    """Return the partition's training rows: features, targets (``objective.encode``), weights.

    ``scale`` is the driver's: the exponent the weights are divided by (a power of two), and
    the groups' labels and class weights' factors. Rows whose weight is zero after the division
    are dropped, as ``_validation.training_weight`` drops them.
    """
    X = _features(X, "")
    weight = np.ldexp(_weights(sample_weight, X, ""), -scale["exponent"])
    y, weight = objective.encode(objective.part_targets(y, X.shape[0], ""), weight, scale)
    kept = weight > 0
    if not kept.all():
        X, y, weight = X[kept], y[kept], weight[kept]
    return X, y, weight


def kept_rows(objective, X, y, sample_weight, scale):
    """Return the number of training rows of the partition, with its ``kept_summary``."""
    _, y, weight = training_rows(objective, X, y, sample_weight, scale)
    return dict(objective.kept_summary(y, weight), rows=len(weight))


def reduce_targets(objective, function, args, X, y, sample_weight, scale):
    """Return ``function(y, weight, *args)`` on the partition's training targets and weights.

    A step of ``objective.fit_scale``, which finds the targets' scale from such answers.
    """
    _, y, weight = training_rows(objective, X, y, sample_weight, scale)
    return function(y, weight, *args)


def row_keys(seed, ids):
    """Return a pseudo-random 64-bit key per global row id (SplitMix64 of ``seed`` and the id).

    A row's key depends on its id and the seed only, so the rows of smallest keys are the same
    uniform sample however the rows are partitioned.
    """
    z = ids.astype(np.uint64) + np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _bottom(keys, ids, values, size):
    """Return the ``size`` rows of smallest (key, id), in that order."""
    if len(keys) > size:   # sort only the rows that can be among them
        chosen = np.flatnonzero(keys <= np.partition(keys, size - 1)[size - 1])
        keys, ids, values = keys[chosen], ids[chosen], values[chosen]
    order = np.lexsort((ids, keys))[:size]
    return keys[order], ids[order], values[order]


def sample(objective, X, y, sample_weight, scale, first_id, seed, size):
    """Return the partition's part of the bin edges' sketch.

    The ``size`` training rows of smallest key (``row_keys``), their keys, ids and features
    (float64), and the largest present value of every feature (NaN where none is):
    :func:`merge_samples` merges two such parts into the part of their union.
    """
    X, _, _ = training_rows(objective, X, y, sample_weight, scale)
    ids = np.arange(first_id, first_id + X.shape[0], dtype=np.int64)
    keys, ids, values = _bottom(row_keys(seed, ids), ids, X, size)
    maxima = np.fmax.reduce(X, axis=0, initial=np.nan).astype(np.float64)
    return keys, ids, np.asarray(values, dtype=np.float64), maxima


def merge_samples(a, b, size):
    """Return the sketch of the union of two partitions' sketches (see :func:`sample`)."""
    keys, ids, values = _bottom(np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]]),
                                np.concatenate([a[2], b[2]]), size)
    return keys, ids, values, np.fmax(a[3], b[3])


def binned(objective, X, y, sample_weight, scale, first_id, upper, offset, wide):
    """Return the partition's binned training rows: (codes, y, weight, first_id).

    y is the targets as the core reads them, scaled as the local fit scales them
    (``scale["targets"]``, the objective's target scale).
    """
    X, y, weight = training_rows(objective, X, y, sample_weight, scale)
    codes = np.empty(X.shape, dtype=np.uint16 if wide else np.uint8)
    for start in range(0, X.shape[0], _CODE_BLOCK_ROWS):
        block = np.ascontiguousarray(X[start:start + _CODE_BLOCK_ROWS], dtype=np.float64)
        codes[start:start + len(block)] = _core.bin_codes(block, upper, offset, wide=wide)
    return codes, scale["targets"].to_core(y), np.ascontiguousarray(weight), int(first_id)


def quantity_mass(objective, part, n_columns):
    """Return the partition's share of the fixed-point scale's mass (``_core.quantity_mass``)."""
    codes, y, weight, _ = part
    return _core.quantity_mass(objective.name, y, weight, n_columns)


def _row_cache(codes):
    """Return the row cache of the partition whose codes are ``codes``, made on first use.

    It lives as long as the partition does on this worker (a lost worker loses both; the
    cache only saves work, it changes no answer).
    """
    key = id(codes)
    with _ROW_CACHES_LOCK:
        cache = _ROW_CACHES.get(key)
        if cache is None:
            cache = _ROW_CACHES[key] = _core.RowCache(ROW_CACHE_BYTES_PER_ROW * len(codes))
            # Forgotten when the codes are freed, before their id can name another array.
            weakref.finalize(codes, _ROW_CACHES.pop, key, None)
        return cache


def histograms(objective, binned_parts, paths, offsets, n_bins, upper, n_columns, mass):
    """Return the (counts, hashes, histograms) of the states ``paths`` over some partitions.

    The partitions' answers are added into one set of arrays in place, so that a task holds
    one answer whatever its number of partitions.
    """
    total = None
    for codes, y, weight, first_id in binned_parts:
        total = _core.state_histograms(objective.name, codes, y, weight, first_id, paths,
                                       offsets, n_bins=n_bins, upper=upper, n_classes=n_columns,
                                       mass=mass, into=total, cache=_row_cache(codes))
    return total


def add_answers(a, b):
    """Return the sum of two answers of :func:`histograms` (uint64 hashes wrap, as meant).

    Not in place: the answers are other tasks' results, which a retried task would read again.
    """
    return tuple(x + y for x, y in zip(a, b, strict=True))


def leaf_sums(objective, trees, X, y, sample_weight, scale):
    """Return the partition's sums per leaf of every tree: its rows' offsets and weights.

    The offsets are ``objective.row_offsets`` of the training targets (a policy's least
    reward per row, in the unit of the driver's target scale); per tree,
    :func:`dpdt._policy.leaf_sums` of them, in one flat tuple that :func:`add_answers` adds
    over the partitions.
    """
    X, y, weight = training_rows(objective, X, y, sample_weight, scale)
    if X.shape[0] == 0:
        return tuple(np.zeros(tree.node_count) for tree in trees for _ in range(2))
    X = np.ascontiguousarray(X, dtype=np.float64)
    offsets = objective.row_offsets(y, scale["targets"])
    return tuple(part for tree in trees for part in sums_of(tree, X, offsets, weight))
