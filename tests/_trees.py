"""Comparing fitted trees array by array, for every test module."""

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

TREE_ARRAYS = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
)


def assert_tree_equal(a, b, msg="", skip=(), rtol=0.0):
    """Every array of two fitted trees equal: exactly, or floats within ``rtol`` if given.

    Thresholds are always compared exactly: they are data values or their midpoints.
    """
    assert a.node_count == b.node_count, f"{msg}: node_count {a.node_count} != {b.node_count}"
    assert a.max_depth == b.max_depth, f"{msg}: max_depth"
    assert a.n_leaves == b.n_leaves, f"{msg}: n_leaves"
    for name in TREE_ARRAYS:
        if name in skip:
            continue
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == y.shape, f"{msg}: {name} shape {x.shape} != {y.shape}"
        if rtol and np.issubdtype(x.dtype, np.floating) and name != "threshold":
            assert_allclose(x, y, rtol=rtol, atol=1e-12, err_msg=f"{msg}: {name}")
        else:
            assert_array_equal(x, y, err_msg=f"{msg}: {name}")


def assert_front_equal(a, b, msg=""):
    """Two ``pareto_front_`` arrays field by field (NaN alpha ranges compare equal)."""
    assert a.dtype == b.dtype, msg
    for field in a.dtype.names:
        assert_array_equal(a[field], b[field], err_msg=f"{msg} {field}")
