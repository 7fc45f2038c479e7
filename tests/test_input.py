"""What the numeric estimators (trees, CV, boosting) take as X, through their one validation path.

- a DataFrame's string or category columns: a ValueError that names them (by name, or by
  index for an array) and points to one-hot encoding and BranchesClassifier, in fit and predict;
- scipy sparse matrices (CSR, CSC, COO): densified, so the fit is bitwise the dense one, and
  ``OneHotEncoder``'s sparse output goes straight into a pipeline.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _trees import assert_tree_equal
from numpy.testing import assert_array_equal
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils import get_tags

from dpdt import (
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
)

ESTIMATORS = {
    "classifier": (lambda: DPDTreeClassifier(max_depth=3), "classification"),
    "regressor": (lambda: DPDTreeRegressor(max_depth=3), "regression"),
    "classifier_cv": (lambda: DPDTreeClassifierCV(max_depth=2, cv=3), "classification"),
    "regressor_cv": (lambda: DPDTreeRegressorCV(max_depth=2, cv=3), "regression"),
    "boosting_classifier": (lambda: DPDTGradientBoostingClassifier(n_estimators=3, max_depth=2),
                            "classification"),
    "boosting_regressor": (lambda: DPDTGradientBoostingRegressor(n_estimators=3, max_depth=2),
                           "regression"),
}


def _data(task, n=80, seed=0):
    # Mostly zeros, as one-hot and count data are: the case sparse matrices are for.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 5)) * (rng.random((n, 5)) < 0.4)
    X = X.astype(float) + np.where(X > 0, rng.random((n, 5)), 0.0)
    score = X[:, 0] - X[:, 2] + 0.3 * rng.standard_normal(n)
    return X, ((score > 0).astype(int) if task == "classification" else score)


def _trees(estimator):
    """Every fitted tree of an estimator, in a fixed order."""
    if hasattr(estimator, "trees_"):
        return list(estimator.trees_)
    if hasattr(estimator, "best_estimator_"):
        return _trees(estimator.best_estimator_)
    return [tree for round_trees in estimator.estimators_ for tree in round_trees]


def _frame_with_strings():
    rng = np.random.default_rng(1)
    n = 40
    return pd.DataFrame({"age": rng.normal(40, 10, n),
                         "city": rng.choice(["Nice", "Oslo"], n),
                         "income": rng.normal(3, 1, n),
                         "plan": pd.Categorical(rng.choice(["a", "b"], n))}), rng.integers(0, 2, n)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_string_columns_are_named_in_fit(name):
    make, task = ESTIMATORS[name]
    X, y = _frame_with_strings()
    y = y if task == "classification" else y.astype(float)
    with pytest.raises(ValueError, match=r"columns 'city', 'plan' of X are not numeric "
                                         r"\(could not convert string to float.*OneHotEncoder.*"
                                         r"get_dummies") as error:
        make().fit(X, y)
    # BranchesClassifier splits on categories, and only classifies.
    assert ("BranchesClassifier" in str(error.value)) == (task == "classification")
    # Without column names, by index.
    with pytest.raises(ValueError, match=r"columns at index 1, 3 of X are not numeric"):
        make().fit(X.to_numpy(), y)


def test_a_policy_is_not_pointed_to_a_classifier():
    X, _ = _frame_with_strings()
    with pytest.raises(ValueError, match="OneHotEncoder") as error:
        DPDTreePolicy(max_depth=2).fit(X, np.zeros((len(X), 2)))
    assert "BranchesClassifier" not in str(error.value)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_string_columns_are_named_in_predict(name):
    make, task = ESTIMATORS[name]
    X, y = _frame_with_strings()
    y = y if task == "classification" else y.astype(float)
    numeric = X.assign(city=(X["city"] == "Nice").astype(float), plan=X["plan"].cat.codes)
    model = make().fit(numeric, y)
    with pytest.raises(ValueError, match=r"column 'city' of X is not numeric.*OneHotEncoder"):
        model.predict(numeric.assign(city=X["city"]))


def test_other_errors_pass_through():
    # An object that is no number is not a matter of encoding: scikit-learn's own TypeError.
    X = np.ones((10, 2), dtype=object)
    X[0, 0] = {}
    with pytest.raises(TypeError, match="float"):
        DPDTreeClassifier().fit(X, [0, 1] * 5)


@pytest.mark.parametrize("matrix", [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_sparse_fit_is_the_dense_fit(name, matrix):
    make, task = ESTIMATORS[name]
    X, y = _data(task)
    dense = make().fit(X, y)
    sparse = make().fit(matrix(X), y)
    for i, (a, b) in enumerate(zip(_trees(dense), _trees(sparse), strict=True)):
        assert_tree_equal(a, b, msg=f"{name} tree {i}")
    X_new, _ = _data(task, n=30, seed=1)
    assert_array_equal(sparse.predict(sp.csr_matrix(X_new)), dense.predict(X_new))
    assert_array_equal(sparse.predict(sp.csc_matrix(X_new)), dense.predict(X_new))
    assert get_tags(sparse).input_tags.sparse


def test_sparse_nan_is_a_missing_value():
    X, y = _data("classification")
    X[::7, 1] = np.nan
    dense = DPDTreeClassifier(max_depth=2).fit(X, y)
    sparse = DPDTreeClassifier(max_depth=2).fit(sp.csr_matrix(X), y)
    assert_tree_equal(dense.tree_, sparse.tree_)


def test_one_hot_encoder_pipeline():
    # OneHotEncoder's default output is sparse: it goes into the tree without sparse_output=False.
    X, y = _frame_with_strings()
    categorical = X[["city", "plan"]]
    y = (categorical["city"] == "Nice").to_numpy() ^ (categorical["plan"] == "b").to_numpy()
    pipeline = make_pipeline(OneHotEncoder(), DPDTreeClassifier(max_depth=2)).fit(categorical, y)
    assert pipeline.score(categorical, y) == 1.0
    dense = make_pipeline(OneHotEncoder(sparse_output=False),
                          DPDTreeClassifier(max_depth=2)).fit(categorical, y)
    assert_tree_equal(pipeline[-1].tree_, dense[-1].tree_)
