"""Export: scikit-learn conversion (to_sklearn), DOT, text; ONNX through skl2onnx."""

import re

import numpy as np
import pytest
from _trees import assert_tree_equal
from numpy.testing import assert_array_equal
from sklearn.datasets import load_iris, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.tree import export_graphviz as sklearn_export_graphviz
from sklearn.tree import export_text as sklearn_export_text

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeRegressor,
    MultiwayGreedyClassifier,
    datasets,
    export_graphviz,
    export_text,
    to_sklearn,
)


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _binary_cases():
    """(name, fitted estimator, X to predict) for every binary-split estimator type."""
    X, y = _iris()
    bank = datasets.load("bank")
    carbon = datasets.load("carbon")
    Xr, yr = make_regression(n_samples=150, n_features=4, noise=5.0, random_state=0)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    return [
        ("binary", DPDTreeClassifier(max_depth=3).fit(bank.X_train, bank.y_train), bank.X_test),
        ("multiclass", DPDTreeClassifier(max_depth=3).fit(X, y), X),
        ("class_weight", DPDTreeClassifier(max_depth=2, class_weight={0: 1.0, 1: 5.0, 2: 0.5},
                                           criterion="entropy").fit(X, y), X),
        ("string labels", DPDTreeClassifier(max_depth=2, alpha=0.01).fit(X, names), X),
        ("sample weights", DPDTreeClassifier(max_depth=3).fit(
            X, y, sample_weight=np.random.default_rng(0).uniform(0.1, 3, len(y))), X),
        ("regression", DPDTreeRegressor(max_depth=3).fit(Xr, yr), Xr),
        ("multi-output", DPDTreeRegressor(max_depth=3).fit(carbon.X_train, carbon.y_train),
         carbon.X_test),
        ("single leaf", DPDTreeClassifier(max_depth=2, alpha=10.0).fit(X, y), X),
    ]


CASES = _binary_cases()


@pytest.mark.parametrize("name, estimator, X", CASES, ids=[c[0] for c in CASES])
def test_to_sklearn_same_arrays_and_predictions(name, estimator, X):
    skl = to_sklearn(estimator)
    expected = DecisionTreeClassifier if hasattr(estimator, "classes_") else DecisionTreeRegressor
    assert type(skl) is expected
    # The scikit-learn tree holds exactly dpdt's arrays.
    assert_tree_equal(skl.tree_, estimator.tree_, msg=name)
    assert skl.get_depth() == estimator.get_depth()
    assert skl.get_n_leaves() == estimator.get_n_leaves()
    assert_array_equal(skl.predict(X), estimator.predict(X))
    assert_array_equal(skl.apply(X), estimator.apply(X))
    if hasattr(estimator, "classes_"):
        assert_array_equal(skl.classes_, estimator.classes_)
        assert_array_equal(skl.predict_proba(X), estimator.predict_proba(X))
    # Tools built on scikit-learn trees accept it.
    assert "digraph" in sklearn_export_graphviz(skl)


def test_to_sklearn_follows_alpha():
    X, y = _iris()
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    for alpha in (0.0, 0.02, 0.2, 1.0):
        clf.set_params(alpha=alpha)
        skl = to_sklearn(clf)
        assert_tree_equal(skl.tree_, clf.tree_)
        assert_array_equal(skl.predict(X), clf.predict(X))


def test_to_sklearn_on_every_bundled_dataset_train_and_test():
    """scikit-learn casts X to float32: on the bundled data no sample changes side."""
    for name in datasets.list_datasets():
        data = datasets.load(name)
        cls = DPDTreeClassifier if data.task == "classification" else DPDTreeRegressor
        est = cls(max_depth=3, candidates=(3, 3, 3)).fit(data.X_train, data.y_train)
        skl = to_sklearn(est)
        for X in (data.X_train, data.X_test):
            assert_array_equal(skl.predict(X), est.predict(X), err_msg=name)


def test_to_sklearn_float32_representable_inputs_route_identically():
    """Samples equal to a threshold, or next to it, go the same way when float32 holds them."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    skl = to_sklearn(clf)
    tree = clf.tree_
    probes = []
    for node in np.flatnonzero(tree.feature >= 0):
        t32 = np.float32(tree.threshold[node])
        for value in (t32, np.nextafter(t32, np.float32(-np.inf)),
                      np.nextafter(t32, np.float32(np.inf))):
            row = X[rng.integers(len(X))].copy()
            row[tree.feature[node]] = value
            probes.append(row)
    probes = np.array(probes)
    assert_array_equal(probes.astype(np.float32).astype(np.float64), probes)
    assert_array_equal(skl.predict(probes), clf.predict(probes))
    assert_array_equal(skl.apply(probes), clf.apply(probes))


def test_to_sklearn_float32_rounding_is_the_documented_limit():
    """A float64 sample within float32 rounding of a threshold may change side in scikit-learn.

    This is the limitation documented in ``to_sklearn``: the test pins it down so that the
    documentation stays true.
    """
    X = np.array([[1.0], [1.0 + 1e-10]])
    clf = DPDTreeClassifier(max_depth=1).fit(X, [0, 1])
    skl = to_sklearn(clf)
    assert_array_equal(clf.predict(X), [0, 1])
    # float32(1 + 1e-10) == 1.0 <= threshold: scikit-learn sends it left.
    assert_array_equal(skl.predict(X), [0, 0])
    assert_array_equal(skl.predict(X.astype(np.float32)), clf.predict(X.astype(np.float32)))


@pytest.mark.parametrize("estimator", [BranchesClassifier(), MultiwayGreedyClassifier()])
def test_to_sklearn_rejects_multiway_trees(estimator):
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
    estimator.fit(X, [0, 0, 1, 1, 0, 0])
    with pytest.raises(TypeError, match="multiway splits"):
        to_sklearn(estimator)


def test_to_sklearn_rejects_other_estimators():
    X, y = _iris()
    boosted = DPDTGradientBoostingClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(TypeError, match="DPDTreeClassifier or DPDTreeRegressor"):
        to_sklearn(boosted)
    with pytest.raises(TypeError, match="DPDTreeClassifier or DPDTreeRegressor"):
        to_sklearn(DecisionTreeClassifier().fit(X, y))


def test_onnx_runtime_predicts_as_dpdt():
    import onnxruntime as rt
    import skl2onnx

    data = datasets.load("segment")
    X = data.X_test.astype(np.float32)
    clf = DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
    model = skl2onnx.to_onnx(to_sklearn(clf), X[:1], options={"zipmap": False})
    session = rt.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    labels, proba = session.run(None, {session.get_inputs()[0].name: X})
    assert_array_equal(labels, clf.predict(X))
    np.testing.assert_allclose(proba, clf.predict_proba(X), atol=1e-6)  # float32 outputs

    reg = DPDTreeRegressor(max_depth=3).fit(data.X_train, data.y_train.astype(np.float64))
    model = skl2onnx.to_onnx(to_sklearn(reg), X[:1])
    session = rt.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (values,) = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_allclose(values[:, 0], reg.predict(X), rtol=1e-6)


def test_export_graphviz_binary_tree():
    X, y = _iris()
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    dot = export_graphviz(clf, feature_names=names, class_names=["se", "ve", "vi"])
    tree = clf.tree_
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    assert dot.count(" -> ") == tree.node_count - 1
    for node in np.flatnonzero(tree.feature >= 0):
        # The threshold in the shortest form that reads back as the same float: the split.
        label = re.search(rf'\n{node} \[label="{names[tree.feature[node]]} <= ([^\\]+)\\n', dot)
        assert float(label.group(1)) == tree.threshold[node]
        assert label.group(1) == repr(float(tree.threshold[node])).removesuffix(".0")
        assert f"{node} -> {tree.children_left[node]} [label=\"yes\"]" in dot
        assert f"{node} -> {tree.children_right[node]} [label=\"no\"]" in dot
    assert dot.count("class: ") == tree.n_leaves


def test_export_graphviz_regression_and_file(tmp_path):
    carbon = datasets.load("carbon")
    reg = DPDTreeRegressor(max_depth=2).fit(carbon.X_train, carbon.y_train)
    path = tmp_path / "tree.dot"
    assert export_graphviz(reg, path) is None
    dot = path.read_text()
    leaf = int(np.flatnonzero(reg.tree_.feature < 0)[0])
    means = reg.tree_.value[leaf, :, 0]
    assert "value: [" + ", ".join(f"{v:.3f}" for v in means) + "]" in dot


def test_export_graphviz_multiway_and_escaping():
    import pandas as pd

    X = pd.DataFrame({'colour "x"': ["red", "red", "blue", "blue", "green", "green"],
                      "size": ["s", "l", "s", "l", "s", "l"]})
    clf = BranchesClassifier(lam=0.01).fit(X, [0, 0, 1, 1, 0, 0])
    dot = export_graphviz(clf)
    assert 'colour \\"x\\"' in dot
    assert '[label="= blue"]' in dot and '[label="= red"]' in dot
    assert dot.count(" -> ") == clf.tree_.node_count - 1


def test_export_rejects_wrong_number_of_feature_names():
    X, y = _iris()
    clf = DPDTreeClassifier(max_depth=1).fit(X, y)
    for export in (export_text, export_graphviz):
        with pytest.raises(ValueError, match="feature_names has 2 names"):
            export(clf, feature_names=["a", "b"])


@pytest.mark.parametrize("names", [["a"], ["a", "b", "c", "d"]])
def test_export_rejects_wrong_number_of_class_names(names):
    # scikit-learn's export_text raises a ValueError too, rather than indexing past the names.
    X, y = _iris()
    sklearn_tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="class_names"):
        sklearn_export_text(sklearn_tree, class_names=names)
    clf = DPDTreeClassifier(max_depth=1).fit(X, y)
    branches = MultiwayGreedyClassifier(max_depth=1).fit(X[:, :2].round().astype(int), y)
    for model in (clf, branches):
        for export in (export_text, export_graphviz):
            with pytest.raises(ValueError,
                               match=rf"class_names has {len(names)} names, the estimator 3 "):
                export(model, class_names=names)


def test_export_class_names_of_a_regressor_is_an_error():
    X, y = make_regression(n_samples=30, n_features=2, random_state=0)
    reg = DPDTreeRegressor(max_depth=1).fit(X, y)
    with pytest.raises(ValueError, match="class_names is for classifiers"):
        export_text(reg, class_names=["a"])


def test_export_takes_a_boosting_tree_and_prints_its_raw_scores():
    X, y = _iris()
    model = DPDTGradientBoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    tree = model.estimators_[1][2]
    leaves = np.flatnonzero(tree.is_leaf)
    assert tree.node_count > 1
    text = export_text(tree, feature_names=["sl", "sw", "pl", "pw"])
    # One line per leaf, its raw score (not a class), and two per split.
    printed = sorted(line.split("|--- ")[-1] for line in text.splitlines() if "value:" in line)
    assert printed == sorted(f"value: {tree.value[leaf, 0, 0]:.3f}" for leaf in leaves)
    assert len(text.splitlines()) == len(leaves) + 2 * (tree.node_count - len(leaves))
    assert "class" not in text and "x[" not in text
    assert export_graphviz(tree).count(" -> ") == tree.node_count - 1
    for export in (export_text, export_graphviz):
        with pytest.raises(ValueError, match="feature_names has 1 names, the estimator 4"):
            export(tree, feature_names=["a"])
        with pytest.raises(ValueError, match="class_names is for classifiers; Tree"):
            export(tree, class_names=["a", "b", "c"])


def test_text_and_graphviz_of_a_pipeline_are_its_last_steps():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True, as_frame=True)
    pipe = make_pipeline(StandardScaler(), DPDTreeClassifier(max_depth=2)).fit(X, y)
    names = list(X.columns)
    assert export_text(pipe) == export_text(pipe[-1], feature_names=names)
    assert export_graphviz(pipe) == export_graphviz(pipe[-1], feature_names=names)
    other = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    for export in (export_text, export_graphviz):
        with pytest.raises(TypeError, match="Pipeline whose last step is a LogisticRegression"):
            export(other)


def test_text_graphviz_and_page_of_a_one_hot_model_are_its_models():
    import pandas as pd

    from dpdt import OneHotEncoded, export_html

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"island": rng.choice(["Biscoe", "Dream", "Torgersen"], 200),
                      "mass": rng.uniform(3, 5, 200)})
    y = ((X["island"] == "Biscoe") & (X["mass"] > 4)).astype(int)
    model = OneHotEncoded(DPDTreeClassifier(max_depth=2)).fit(X, y)
    assert "island_Biscoe <= 0.5" in export_text(model)
    assert export_text(model) == export_text(model.estimator_)
    assert export_graphviz(model) == export_graphviz(model.estimator_)
    # The page routes the raw table's samples through the encoding; its code selects a tree
    # of the encoded model.
    page = export_html(model, X_test=X, y_test=y)
    inner = export_html(model.estimator_, X_test=model.transform(X), y_test=y)
    assert "model.estimator_.set_params" in page
    assert page.replace(repr(model), repr(model.estimator_)).replace(
        "model.estimator_.", "clf.") == inner


def test_export_text_prints_thresholds_as_short_as_they_read_back():
    # Binned thresholds are training values: a year printed "2008.000" read as a decimal cut;
    # a midpoint (exact thresholds) or a long training value, three decimals at most.
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(1990, 2020, 400), rng.uniform(0, 1, 400)]).astype(float)
    y = (X[:, 0] > 2008) ^ (X[:, 1] > 0.3)
    for max_bins in (None, 16):
        clf = DPDTreeClassifier(max_depth=3, max_bins=max_bins).fit(X, y)
        text = export_text(clf, feature_names=["year", "u"])
        tree = clf.tree_
        printed = re.findall(r"<= (\S+)", text)
        splits = tree.feature >= 0
        assert len(printed) == splits.sum()
        for label, f, t in zip(printed, tree.feature[splits], tree.threshold[splits],
                               strict=True):
            decimals = label.partition(".")[2]
            assert len(decimals) <= 3 and not decimals.endswith("0"), label
            assert abs(float(label) - t) <= 5e-4, (label, t)
            if max_bins is not None and f == 0:   # a year, as the training data holds it
                assert float(label) == t, label
    # decimals given keeps its digits.
    assert re.findall(r"<= (\S+)", export_text(clf, decimals=2)) == [
        f"{t:.2f}" for t in tree.threshold[tree.feature >= 0]]
    dot = export_graphviz(clf, decimals=1)
    assert all(f"<= {t:.1f}\\n" in dot for t in tree.threshold[tree.feature >= 0])
