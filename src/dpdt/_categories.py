"""Encoding features as category codes for the multiway trees, kept for predict."""

import sys
from numbers import Number

import numpy as np

from ._io import register_type


def _columns(X):
    """Return the columns of an array-like or DataFrame (a DataFrame's keep their dtypes)."""
    if hasattr(X, "iloc"):
        return [X.iloc[:, j] for j in range(X.shape[1])]
    return list(np.asarray(X).T)


# The key of a missing value (None, NaN, pandas' NA) in a column of categories: what
# ``str(np.nan)`` gives, so that every kind of missing value is one category, the same one.
MISSING = "nan"


def _missing(values):
    """Return the mask of the missing values (None, NaN, pandas' NA) of an object column."""
    # pandas' NA exists only if pandas was imported; then its isna knows every kind.
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        return np.asarray(pandas.isna(values), dtype=bool)
    return np.array([v is None or (isinstance(v, float) and v != v) for v in values], dtype=bool)


def _category_keys(values):
    """Return the string keys of a column of categories, every missing value as MISSING."""
    keys = values.astype(str)
    if values.dtype.kind == "O":
        keys[_missing(values)] = MISSING
    return keys


def _check_no_infinity(values):
    if np.isinf(values).any():
        raise ValueError("Input X contains infinity; numeric features must be finite or NaN "
                         "(NaN is a category of its own)")


@register_type("CategoryCodes")
class CategoryCodes:
    """Per-column encoding of features into non-negative category codes, kept for predict.

    Columns of a DataFrame with object, string, category or bool dtype are encoded by their
    sorted categories. Numeric columns are encoded by their sorted distinct values, or, when
    they have more than ``max_bins`` of them, by quantile bins (edges kept for predict).
    A missing value is a category of its own, whatever its kind: NaN in a numeric column (the
    last entry of its table, after the values or the bins), None, NaN or pandas' NA in a column
    of categories (all the category ``"nan"``). A value unseen in training gets code -1, and
    so does a missing value in a column that had none in training.
    """

    def __init__(self, max_bins):
        self.max_bins = max_bins

    def _encode(self, encoder, where):
        return {"max_bins": self.max_bins,
                "encoders": [[kind, encoder.array(table, where)] for kind, table in self.encoders_]}

    @classmethod
    def _decode(cls, node, decoder, where):
        encoders = node.get("encoders")
        decoder.expect(isinstance(encoders, list), f"{where}: bad encoders")
        max_bins = node.get("max_bins")
        decoder.expect(max_bins is None or (isinstance(max_bins, int)
                                            and not isinstance(max_bins, bool) and max_bins >= 1),
                       f"{where}: bad max_bins")
        codes = cls(max_bins)
        codes.encoders_ = []
        for item in encoders:
            decoder.expect(isinstance(item, list) and len(item) == 2
                           and item[0] in ("categories", "bins", "values"),
                           f"{where}: bad encoder {item!r:.60}")
            table = decoder.array(item[1], where, "U" if item[0] == "categories" else "f")
            decoder.expect(table.ndim == 1, f"{where}: bad {item[0]} table")
            # transform looks values up in sorted tables; only bins may have no entry. A
            # numeric table may end with NaN, the missing values' code.
            ordered = table[:-1] if item[0] != "categories" and _ends_missing(table) else table
            decoder.expect(table.ndim == 1 and (item[0] == "bins" or len(table) >= 1)
                           and np.all(ordered[1:] > ordered[:-1])
                           and (item[0] == "categories" or np.isfinite(ordered).all()),
                           f"{where}: bad {item[0]} table")
            codes.encoders_.append((item[0], table))
        return codes

    def n_codes(self):
        """Return the number of codes of each column (codes are below it)."""
        return np.array([len(table) + (kind == "bins") for kind, table in self.encoders_],
                        dtype=np.int64)

    def labels(self, j):
        """Return the label of each code of column ``j``, for exports and plots."""
        kind, table = self.encoders_[j]
        missing = ["= nan"] if kind != "categories" and _ends_missing(table) else []
        if missing:
            table = table[:-1]
        if kind == "bins":
            edges = [-np.inf, *table.tolist(), np.inf]
            return [f"in ({lo:.4g}, {hi:.4g}]"
                    for lo, hi in zip(edges[:-1], edges[1:], strict=True)] + missing
        return [f"= {value}" for value in table.tolist()] + missing

    def fit_transform(self, X, weight):
        """Learn the codes from the rows of positive weight (quantiles are weighted).

        Returns the codes of those rows, an int32 array of shape (n_kept, n_columns).
        """
        self.encoders_ = []
        kept = weight > 0
        fast = self._fit_integer_array(X, kept)
        if fast is None:
            fast = self._fit_float_array(X, kept)
        if fast is not None:
            return fast
        codes = []
        for column in _columns(X):
            values = np.asarray(column)[kept]
            if values.dtype.kind in "OUSb" or str(getattr(column, "dtype", "")) == "category":
                if values.dtype.kind == "O" and not all(
                        isinstance(v, str | Number | np.generic)
                        for v in values[~_missing(values)]):
                    raise TypeError("argument must be a string or a number: categorical features "
                                    "hold strings, numbers, booleans or missing values")
                table, inverse = np.unique(_category_keys(values), return_inverse=True)
                self.encoders_.append(("categories", table))
                codes.append(inverse)
                continue
            values = values.astype(np.float64)
            _check_no_infinity(values)
            # np.unique sorts NaN last, as one value: missing values get the last code.
            distinct, inverse = np.unique(values, return_inverse=True)
            missing = np.isnan(values)
            if self.max_bins is not None and len(distinct) - missing.any() > self.max_bins:
                # Weighted quantiles of the values present: a weight of k counts as k rows.
                present = values[~missing]
                order = np.argsort(present, kind="stable")
                cumulative = np.cumsum(weight[kept][~missing][order])
                targets = np.linspace(0, 1, self.max_bins + 1)[1:-1] * cumulative[-1]
                at = np.clip(np.searchsorted(cumulative, targets, side="left"),
                             0, len(present) - 1)
                edges = np.unique(present[order][at])
                column_codes = np.searchsorted(edges, values, side="left")
                if missing.any():
                    # After the code of the values above the last edge.
                    column_codes[missing] = len(edges) + 1
                    edges = np.append(edges, np.nan)
                self.encoders_.append(("bins", edges))
                codes.append(column_codes)
            else:
                self.encoders_.append(("values", distinct))
                codes.append(inverse)
        return np.ascontiguousarray(np.column_stack(codes), dtype=np.int32)

    def _fit_integer_array(self, X, kept):
        """Return the codes of an integer array with few distinct values per column, or None.

        The encoding of the general path (sorted distinct values), computed for all columns at
        once from a table of the values present: small fits are dominated by per-column
        ``np.unique`` calls otherwise.
        """
        if not isinstance(X, np.ndarray) or X.dtype.kind not in "iu" or X.ndim != 2:
            return None
        values = X[kept]
        low, high = values.min(axis=0), values.max(axis=0)
        # Beyond 2**53 the general path's float keys merge values; predict reads those keys.
        if max(abs(int(low.min())), abs(int(high.max()))) > 2**53:
            return None
        span = [int(h) - int(lo) + 1 for h, lo in zip(high, low, strict=True)]
        if sum(span) > 4 * values.size + 1024:   # sparse values: sorting is cheaper
            return None
        span = np.array(span, dtype=np.int64)
        start = np.concatenate(([0], np.cumsum(span)[:-1]))
        slot = (values - low).astype(np.int64) + start
        present = np.zeros(span.sum(), dtype=bool)
        present[slot.ravel()] = True
        rank = np.cumsum(present)
        distinct = [np.flatnonzero(present[b:b + n]) + lo
                    for b, n, lo in zip(start, span, low, strict=True)]
        if self.max_bins is not None and max(map(len, distinct)) > self.max_bins:
            return None
        self.encoders_ = [("values", d.astype(np.float64)) for d in distinct]
        before = rank[start] - present[start]   # values present in the earlier columns
        return np.ascontiguousarray(rank[slot] - 1 - before, dtype=np.int32)

    def _fit_float_array(self, X, kept):
        """Return the codes of a float array, or None where a column needs quantile bins.

        The general path's encoding (sorted distinct values) for all columns at once, by one
        sort along the rows: wide data (many columns, few rows) is otherwise dominated by a
        ``np.unique`` call per column.
        """
        if not isinstance(X, np.ndarray) or X.dtype.kind != "f" or X.ndim != 2:
            return None
        values = np.asarray(X[kept], dtype=np.float64)
        if values.shape[0] == 0:
            return None
        _check_no_infinity(values)
        if np.isnan(values).any():   # missing values: the general path gives them their code
            return None
        order = np.argsort(values, axis=0, kind="stable")
        ordered = np.take_along_axis(values, order, axis=0)
        starts_value = np.ones(ordered.shape, dtype=bool)
        starts_value[1:] = ordered[1:] != ordered[:-1]
        rank = np.cumsum(starts_value, axis=0) - 1
        n_distinct = rank[-1] + 1
        if self.max_bins is not None and n_distinct.max() > self.max_bins:
            return None
        codes = np.empty_like(rank)
        np.put_along_axis(codes, order, rank, axis=0)
        distinct = ordered.T[starts_value.T]   # column after column, each increasing
        self.encoders_ = [("values", d) for d in np.split(distinct, np.cumsum(n_distinct)[:-1])]
        return np.ascontiguousarray(codes, dtype=np.int32)

    def transform(self, X):
        codes = []
        for column, (kind, table) in zip(_columns(X), self.encoders_, strict=True):
            values = np.asarray(column)
            if kind == "categories":
                keys = _category_keys(values)
                position = np.clip(np.searchsorted(table, keys), 0, len(table) - 1)
                codes.append(np.where(table[position] == keys, position, -1))
                continue
            keys = values.astype(np.float64)
            _check_no_infinity(keys)
            missing = np.isnan(keys)
            has_missing = _ends_missing(table)
            present = table[:-1] if has_missing else table
            if kind == "bins":
                column_codes = np.searchsorted(present, keys, side="left")
                missing_code = len(present) + 1
            else:
                position = np.clip(np.searchsorted(present, keys), 0, max(len(present) - 1, 0))
                found = (present[position] == keys) if len(present) else np.zeros(len(keys), bool)
                column_codes = np.where(found, position, -1)
                missing_code = len(present)
            column_codes[missing] = missing_code if has_missing else -1
            codes.append(column_codes)
        return np.ascontiguousarray(np.column_stack(codes), dtype=np.int32)


def _ends_missing(table):
    """Whether a numeric table ends with NaN: its column had missing values in training."""
    return len(table) > 0 and table.dtype.kind == "f" and bool(np.isnan(table[-1]))
