"""The bundled datasets: their feature names match their columns, and ``as_frame``."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from dpdt import DPDTreeClassifier, DPDTreeRegressor, datasets, export_text


def columns(data, *names):
    """The named columns of the whole set (train and test), scaled to [0, 1] as bundled."""
    X = np.vstack([data.X_train, data.X_test])
    return [X[:, list(data.feature_names).index(name)] for name in names]


@pytest.mark.parametrize("name", datasets.list_datasets())
def test_every_feature_has_one_name(name):
    data = datasets.load(name)
    assert data.feature_names.shape == (data.X_train.shape[1],)
    assert len(set(data.feature_names)) == len(data.feature_names)


def test_names_agree_with_what_the_columns_hold():
    # Facts of the original data that survive the scaling to [0, 1]: were two names swapped
    # or a column dropped, one of them would fail.
    a300, a400 = columns(datasets.load("fault"), "TypeOfSteel_A300", "TypeOfSteel_A400")
    assert_array_equal(a300 + a400, 1.0)   # every plate is of one type
    light, = columns(datasets.load("occupancy"), "Light")
    assert np.mean(light == light.min()) > 0.5   # the lights are off most of the time
    n, m = columns(datasets.load("carbon"), "Chiral indice n", "Chiral indice m")
    assert len(np.unique(n)) == 11 and len(np.unique(m)) == 6   # integer indices
    age, slag = columns(datasets.load("concrete"), "Age", "Blast Furnace Slag")
    assert len(np.unique(age)) == 14 and np.mean(slag == slag.min()) > 0.4   # days; no slag
    for name, counts in (("fish", ("NdsCH", "NdssC")), ("qsar", ("H-050", "nN", "C-040"))):
        assert all(len(np.unique(c)) <= 11 for c in columns(datasets.load(name), *counts))
    for name, area, convex in (("raisin", "Area", "ConvexArea"), ("rice", "Area", "Convex_Area")):
        assert np.corrcoef(columns(datasets.load(name), area, convex))[0, 1] > 0.99
    # segment: the intensity is the mean of the three raw colours, an affine relation after
    # scaling each column.
    segment = datasets.load("segment")
    intensity, *raw = columns(segment, "intensity-mean", "rawred-mean", "rawblue-mean",
                              "rawgreen-mean")
    design = np.column_stack([*raw, np.ones_like(intensity)])
    fit = np.linalg.lstsq(design, intensity, rcond=None)[0]
    np.testing.assert_allclose(design @ fit, intensity, atol=1e-6)


@pytest.mark.parametrize("name", ["bank", "carbon", "concrete"])
def test_as_frame_names_the_columns_of_a_fitted_tree(name):
    arrays, frames = datasets.load(name), datasets.load(name, as_frame=True)
    for part in ("X_train", "X_test", "y_train", "y_test"):
        assert_array_equal(np.asarray(frames[part]), arrays[part])
    assert list(frames.X_train.columns) == list(arrays.feature_names)
    assert isinstance(frames.y_train, pd.DataFrame if name == "carbon" else pd.Series)
    Tree = DPDTreeClassifier if arrays.task == "classification" else DPDTreeRegressor
    tree = Tree(max_depth=2).fit(frames.X_train, frames.y_train)
    assert_array_equal(tree.feature_names_in_, arrays.feature_names)
    named = Tree(max_depth=2).fit(arrays.X_train, arrays.y_train)
    assert export_text(tree) == export_text(named, feature_names=arrays.feature_names)
    assert "x[" not in export_text(tree)
