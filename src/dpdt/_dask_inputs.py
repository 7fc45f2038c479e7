"""The inputs of a data-parallel fit (``dpdt.dask``): dask collections as row-aligned partitions.

The driver never computes the data: it turns X, y and the sample weights into lists of futures,
one per row partition, that the workers compute and keep, checking on the driver what can be
checked without the data (shapes, chunks, the partitions' count); each partition's rows are
checked on its worker (``_dask_partitions``).
"""

import dask.array as da
import dask.dataframe as dd
import numpy as np
from dask.base import is_dask_collection


def _is_frame(value):
    return isinstance(value, (dd.DataFrame, dd.Series))


def _row_parts(value, name):
    """Return the delayed row partitions of a dask array or dataframe (columns in one piece)."""
    if isinstance(value, da.Array):
        if value.ndim not in (1, 2):
            raise ValueError(f"{name} must be 1-d or 2-d, got a {value.ndim}-d dask array")
        if value.ndim == 2 and len(value.chunks[1]) > 1:
            value = value.rechunk({1: -1})
        delayed = value.to_delayed()
        return list(delayed[:, 0] if value.ndim == 2 else delayed)
    return list(value.to_delayed())


def _as_collection(value, name, like):
    """Return ``value`` as a dask collection partitioned as ``like`` (a dask collection)."""
    if is_dask_collection(value):
        return value
    if isinstance(value, (list, tuple)) or hasattr(value, "__array__"):
        array = np.asarray(value)
        if isinstance(like, da.Array) and not any(np.isnan(like.chunks[0])):
            if len(array) != like.shape[0]:
                raise ValueError(f"X has {like.shape[0]} rows and {name} {len(array)}")
            return da.from_array(array, chunks=(like.chunks[0],) + array.shape[1:])
        raise ValueError(f"{name} must be a dask collection partitioned as X (X is a dask "
                         "collection with unknown chunk sizes)")
    raise TypeError(f"{name} must be a dask array or dataframe, or a numpy array, got "
                    f"{type(value).__name__}")


def input_partitions(client, X, y, sample_weight):
    """Return the delayed partitions (X, y, sample weight), row-aligned, and X's meta.

    Nothing is computed here: each pass of the fit computes the partitions it reads and frees
    them, so data larger than the workers' memory can be fitted.

    Numpy (or pandas) X is cut into one partition per worker, for convenience.
    """
    if not is_dask_collection(X):
        if not (isinstance(X, np.ndarray) or hasattr(X, "iloc")):
            raise TypeError("X must be a dask array or dask dataframe (or, for convenience, a "
                            f"numpy array or pandas DataFrame), got {type(X).__name__}")
        n_parts = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
        if hasattr(X, "iloc"):
            X = dd.from_pandas(X, npartitions=n_parts, sort=False)
        else:
            X = da.from_array(X, chunks=(-(-max(len(X), 1) // n_parts), -1))
    if not isinstance(X, (da.Array, dd.DataFrame)):
        raise TypeError(f"X must be a dask array or dask dataframe, got {type(X).__name__}")
    if isinstance(X, da.Array) and X.ndim != 2:
        raise ValueError(f"X must be 2-d, got a {X.ndim}-d dask array")
    y = _as_collection(y, "y", X)
    weight = None if sample_weight is None else _as_collection(sample_weight, "sample_weight", X)
    for name, value in (("y", y), ("sample_weight", weight)):
        if value is None:
            continue
        if not isinstance(value, (da.Array, dd.DataFrame, dd.Series)):
            raise TypeError(f"{name} must be a dask array, series or dataframe, got "
                            f"{type(value).__name__}")
        if isinstance(X, da.Array) and isinstance(value, da.Array):
            if (not any(np.isnan(X.chunks[0])) and not any(np.isnan(value.chunks[0]))
                    and X.chunks[0] != value.chunks[0]):
                raise ValueError(f"X and {name} are chunked differently along the rows "
                                 f"({X.chunks[0]} and {value.chunks[0]}): rechunk {name} as X, "
                                 f"{name}.rechunk({{0: X.chunks[0]}})")
    xs, ys = _row_parts(X, "X"), _row_parts(y, "y")
    ws = [None] * len(xs) if weight is None else _row_parts(weight, "sample_weight")
    for name, others in (("y", ys), ("sample_weight", ws)):
        if len(others) != len(xs):
            raise ValueError(f"X has {len(xs)} partitions and {name} {len(others)}: they must "
                             "be partitioned alike (the same rows in each partition)")
    if isinstance(X, dd.DataFrame):
        meta = X._meta
    else:
        meta = np.empty((0, X.shape[1] if not np.isnan(X.shape[1]) else 0))
    return list(zip(xs, ys, ws, strict=True)), meta
