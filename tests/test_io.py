"""save / load: exact round trips of every estimator, and refusal of tampered or foreign files."""

import importlib
import importlib.util
import json
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from _trees import assert_tree_equal
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris

import dpdt
from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
    datasets,
    load,
)


def _cases():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    carbon = datasets.load("carbon")
    cat = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "green", "green"] * 3,
                        "size": [1, 2, 1, 2, 1, 2] * 3})
    ycat = [0, 0, 1, 1, 0, 1] * 3
    return [
        ("classifier", DPDTreeClassifier(max_depth=3, alpha=0.01), X, y),
        ("string labels, DataFrame", DPDTreeClassifier(max_depth=2, candidates=(3, 3)), frame,
         names),
        ("class_weight, costs", DPDTreeClassifier(
            max_depth=2, class_weight={0: 2.0, 1: 1.0, 2: 0.5}, feature_costs=[1, 2, 3, 4],
            splitter=["quantile", "cart"], complexity="n_splits"), X, y),
        ("regressor multi-output", DPDTreeRegressor(max_depth=2), carbon.X_train[:500],
         carbon.y_train[:500]),
        ("branches", BranchesClassifier(lam=0.01), cat, ycat),
        ("branches binned", BranchesClassifier(lam=0.01, max_bins=4), X, names),
        ("multiway greedy", MultiwayGreedyClassifier(max_bins=3), X, y),
        ("boosting multiclass", DPDTGradientBoostingClassifier(n_estimators=3), X, y),
        ("boosting binary", DPDTGradientBoostingClassifier(n_estimators=3), X, y == 1),
        ("boosting regressor early stop", DPDTGradientBoostingRegressor(
            n_estimators=5, n_iter_no_change=2, random_state=0), X[:, :3], X[:, 3]),
        ("classifier CV", DPDTreeClassifierCV(max_depth=2, cv=3), X, y),
        ("regressor CV", DPDTreeRegressorCV(max_depths=[1, 2], cv=3), X[:, :3], X[:, 3]),
        ("classifier CV depth range", DPDTreeClassifierCV(max_depths=range(1, 3), cv=3), X, y),
    ]


CASES = _cases()


@pytest.mark.parametrize("name, estimator, X, y", CASES, ids=[c[0] for c in CASES])
def test_round_trip_predicts_identically(tmp_path, name, estimator, X, y):
    estimator.fit(X, y)
    path = tmp_path / "model.json"
    assert estimator.save(path) is estimator
    loaded = load(path)
    assert type(loaded) is type(estimator)
    for key, value in estimator.get_params().items():
        assert_array_equal(loaded.get_params()[key], value, err_msg=key)
        assert type(loaded.get_params()[key]) is type(value), key
    assert_array_equal(loaded.predict(X), estimator.predict(X))
    if hasattr(estimator, "predict_proba"):
        assert_array_equal(loaded.predict_proba(X), estimator.predict_proba(X))
    for key, value in vars(estimator).items():
        restored = getattr(loaded, key)
        if isinstance(value, np.ndarray):
            assert value.dtype == restored.dtype, key
            assert_array_equal(restored, value, err_msg=key)
    # The file is plain JSON.
    assert json.loads(path.read_text())["estimator"] == type(estimator).__name__


def test_round_trip_keeps_the_whole_front(tmp_path):
    data = datasets.load("bank")
    clf = DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
    clf.save(tmp_path / "bank.json")
    loaded = load(tmp_path / "bank.json")
    assert loaded.pareto_front_.dtype == clf.pareto_front_.dtype
    assert_array_equal(loaded.pareto_front_, clf.pareto_front_)   # inf alpha_max included
    assert np.isinf(loaded.pareto_front_["alpha_max"][-1])
    assert len(loaded.trees_) == len(clf.trees_)
    for a, b in zip(loaded.trees_, clf.trees_, strict=True):
        assert_tree_equal(a, b)
    # Every tree of the front, selected by alpha without refitting, predicts identically.
    for row in clf.pareto_front_:
        alpha = row["alpha_min"]
        clf.set_params(alpha=alpha)
        loaded.set_params(alpha=alpha)
        assert_array_equal(loaded.predict(data.X_test), clf.predict(data.X_test))
    assert loaded.stats_ == clf.stats_
    assert loaded.is_optimal_ is clf.is_optimal_


def test_round_trip_of_a_pareto_front_and_its_budget(tmp_path):
    data = datasets.load("bank")
    clf = DPDTreeClassifier(max_depth=3, front="pareto", max_complexity=1.5)
    clf.fit(data.X_train, data.y_train)
    clf.save(tmp_path / "pareto.json")
    loaded = load(tmp_path / "pareto.json")
    assert loaded.front == "pareto" and loaded.max_complexity == 1.5
    assert np.isnan(loaded.pareto_front_["alpha_min"]).any()
    for field in clf.pareto_front_.dtype.names:   # NaN alpha ranges included
        assert_array_equal(loaded.pareto_front_[field], clf.pareto_front_[field])
    assert_tree_equal(loaded.tree_, clf.tree_)
    for k in (2, 3, 5):
        clf.select_tree(max_leaves=k)
        loaded.select_tree(max_leaves=k)
        assert_array_equal(loaded.predict(data.X_test), clf.predict(data.X_test))


def test_parameters_keep_their_types(tmp_path):
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2, candidates=(3, 2), class_weight={0: 2.0, 1: 1.0, 2: 1.0},
                            feature_costs=np.array([1.0, 2.0, 3.0, 4.0])).fit(X, y)
    clf.save(tmp_path / "m.json")
    loaded = load(tmp_path / "m.json")
    assert loaded.candidates == (3, 2)
    assert loaded.class_weight == {0: 2.0, 1: 1.0, 2: 1.0}
    assert_array_equal(loaded.feature_costs, clf.feature_costs)


def test_a_series_parameter_keeps_its_labels(tmp_path):
    # monotonic_cst by feature name as a Series, in another order than the columns.
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :4]
    cst = pd.Series({"mean area": 1, "mean radius": -1})
    costs = pd.Series([1.0, 2.0, 3.0, 4.0])
    clf = DPDTreeClassifier(max_depth=2, monotonic_cst=cst, feature_costs=costs).fit(X, y)
    clf.save(tmp_path / "m.json")
    loaded = load(tmp_path / "m.json")
    pd.testing.assert_series_equal(loaded.monotonic_cst, cst)
    pd.testing.assert_series_equal(loaded.feature_costs, costs)
    assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    refit = clone(loaded).fit(X, y)
    assert_array_equal(refit.predict_proba(X), clf.predict_proba(X))


def test_pickle_round_trip():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert_array_equal(again.pareto_front_, clf.pareto_front_)


def _saved(tmp_path):
    X, y = load_iris(return_X_y=True)
    path = tmp_path / "model.json"
    DPDTreeClassifier(max_depth=2).fit(X, y).save(path)
    return path, json.loads(path.read_text())


def _write(path, document):
    path.write_text(json.dumps(document))
    return path


def test_tampered_file_is_refused(tmp_path):
    path, document = _saved(tmp_path)
    threshold = document["attributes"]["trees_"][0]["threshold"]["data"]
    threshold[0] += 0.5
    with pytest.raises(ValueError, match="checksum mismatch"):
        load(_write(path, document))


def test_structure_is_validated_even_with_a_valid_checksum(tmp_path):
    """A crafted file (checksum recomputed) that breaks the tree structure is refused."""
    from dpdt._io import _digest

    path, document = _saved(tmp_path)
    tree = document["attributes"]["trees_"][0]
    tree["children_left"]["data"][0] = 0   # a cycle: the root is its own child
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="do not form a binary tree"):
        load(_write(path, document))

    path, document = _saved(tmp_path)
    document["attributes"]["trees_"][0]["feature"]["data"][0] = 99
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="feature index out of range"):
        load(_write(path, document))

    path, document = _saved(tmp_path)
    document["params"]["max_depth"] = -3
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="max_depth"):
        load(_write(path, document))

    for bad in ({"start": 0, "stop": 3, "step": 0}, {"start": 0, "stop": "3", "step": 1},
                {"start": True, "stop": 3, "step": 1}):
        path, document = _saved(tmp_path)
        document["params"]["max_depth"] = {"__type__": "range", **bad}
        document["sha256"] = _digest(document)
        with pytest.raises(ValueError, match="bad range"):
            load(_write(path, document))

    path, document = _saved(tmp_path)
    document["attributes"]["__class__"] = "os.system"
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="bad attribute name"):
        load(_write(path, document))

    path, document = _saved(tmp_path)
    document["attributes"]["stats_"] = {"__type__": "pickle", "data": "gASV"}
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="unknown type tag 'pickle'"):
        load(_write(path, document))

    path, document = _saved(tmp_path)
    document["estimator"] = "subprocess.Popen"
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match="unknown estimator 'subprocess.Popen'"):
        load(_write(path, document))


@pytest.mark.parametrize("content, message", [
    ("not json at all", "invalid JSON"),
    ('{"format": "something-else", "version": 1}', "not a dpdt model"),
    ("[1, 2, 3]", "not a dpdt model"),
    ('{"format": "dpdt-model"}', "missing schema version"),
    ('{"format": "dpdt-model", "version": 99}', "newer dpdt"),
    ('{"a": NaN}', "invalid JSON"),
])
def test_foreign_files_are_refused(tmp_path, content, message):
    path = tmp_path / "foreign.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load(path)


def test_binary_file_is_refused(tmp_path):
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(DPDTreeClassifier()) + b"\xff\xfe")
    with pytest.raises(ValueError, match="not a dpdt model file"):
        load(path)


def test_unsupported_values_cannot_be_saved(tmp_path):
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=1, random_state=np.random.RandomState(0)).fit(X, y)
    with pytest.raises(TypeError, match="random_state"):
        clf.save(tmp_path / "m.json")


def test_load_is_top_level():
    assert dpdt.load is load
    assert "load" in dpdt.__all__


def test_every_public_estimator_is_registered():
    """load builds exactly dpdt's public estimators that can be saved (dpdt.dask's too)."""
    from dpdt._io import _ESTIMATORS, _OPTIONAL_MODULES, SaveMixin

    modules = [dpdt]
    if importlib.util.find_spec("distributed") is not None:
        modules.append(importlib.import_module("dpdt.dask"))
    public = {name: getattr(module, name) for module in modules for name in module.__all__
              if isinstance(getattr(module, name), type)
              and issubclass(getattr(module, name), SaveMixin)}
    assert set(_ESTIMATORS) == set(public)
    assert all(_ESTIMATORS[name] is cls for name, cls in public.items())
    assert all(name in _ESTIMATORS for name in _OPTIONAL_MODULES) == (len(modules) == 2)
    # A file of any of dpdt.dask's estimators loads without importing it first.
    if len(modules) == 2:
        assert {name for name, cls in public.items()
                if cls.__module__.startswith("dpdt._dask")} == set(_OPTIONAL_MODULES)


def test_a_taken_type_tag_cannot_be_registered_again():
    from dpdt._io import register_type

    for tag, name in [("Tree", None), ("loss", "_Huber"), ("loss", None), ("Tree", "other"),
                      ("ndarray", None), ("estimator", None)]:
        with pytest.raises(ValueError, match="already has the type"):
            register_type(tag, name=name)(type("Other", (), {}))


@pytest.mark.parametrize("estimator, X, y, edit, message", [
    (DPDTGradientBoostingClassifier(n_estimators=2), *load_iris(return_X_y=True),
     lambda a: (a["init_raw_"]["data"].pop(), a["init_raw_"]["shape"].__setitem__(0, 2)),
     "estimators_ and init_raw_ do not match"),
    (DPDTGradientBoostingRegressor(n_estimators=2), *load_iris(return_X_y=True),
     lambda a: a.__setitem__("_loss", {"__type__": "loss", "name": "os.system"}),
     "unknown loss 'os.system'"),
    (DPDTGradientBoostingClassifier(n_estimators=2), *load_iris(return_X_y=True),
     lambda a: a["_loss"].__setitem__("n_classes", 2), "bad loss"),
    (BranchesClassifier(max_bins=3), *load_iris(return_X_y=True),
     lambda a: a.__setitem__("classes_", {"__type__": "ndarray", "dtype": "<i8", "shape": [2],
                                          "data": [0, 1]}),
     "class fractions do not match classes_"),
    (BranchesClassifier(max_bins=3), *load_iris(return_X_y=True),
     lambda a: a["_codes"]["encoders"].pop(), "category encoders do not match"),
    (DPDTreeRegressorCV(max_depth=1, cv=2), *load_iris(return_X_y=True),
     lambda a: a.pop("best_estimator_"), "best_estimator_ is not a DPDTreeRegressor"),
    (DPDTreeClassifier(max_depth=1), *load_iris(return_X_y=True),
     lambda a: a.pop("trees_"), "pareto_front_ and trees_ do not match"),
    # Numbers no fit writes (the checksum recomputed): each refused, naming the field.
    *[(DPDTreeClassifier(max_depth=2), *load_iris(return_X_y=True),
       lambda a, v=v: a["trees_"][0]["value"]["data"].__setitem__(-1, v),
       "class fractions outside|non-finite leaf values|NaN values")
      for v in (-5, "nan", "inf", 0.5)],
    *[(DPDTreeRegressor(max_depth=2), *load_iris(return_X_y=True),
       lambda a, v=v: a["trees_"][0]["value"]["data"].__setitem__(-1, v),
       "non-finite leaf values|NaN values") for v in ("nan", "inf", "-inf")],
    (DPDTreeRegressor(max_depth=2), *load_iris(return_X_y=True),
     lambda a: a["trees_"][0]["impurity"]["data"].__setitem__(0, -1.0),
     "impurities that are negative"),
    (DPDTreeClassifier(max_depth=2), *load_iris(return_X_y=True),
     lambda a: a["trees_"][0]["weighted_n_node_samples"]["data"].__setitem__(0, -1.0),
     "weights below what a fit makes"),
    (DPDTreeClassifier(max_depth=2), *load_iris(return_X_y=True),
     lambda a: a["pareto_front_"]["data"]["alpha_max"].__setitem__(0, -1.0),
     "values no fit makes"),
    (DPDTreeClassifier(max_depth=2), *load_iris(return_X_y=True),
     lambda a: a["pareto_front_"]["data"]["n_leaves"].__setitem__(0, 10**9),
     "does not describe its trees"),
    *[(DPDTGradientBoostingClassifier(n_estimators=2), *load_iris(return_X_y=True),
       lambda a, v=v: a["init_raw_"]["data"].__setitem__(0, v), "init_raw_ is not finite")
      for v in ("nan", "inf")],
    (DPDTGradientBoostingRegressor(n_estimators=2), *load_iris(return_X_y=True),
     lambda a: a["estimators_"][1][0]["value"]["data"].__setitem__(-1, "inf"),
     "non-finite leaf values"),
    (DPDTGradientBoostingRegressor(n_estimators=2, learning_rate=1.0),
     *load_iris(return_X_y=True),
     lambda a: [r[0]["value"]["data"].__setitem__(-1, 1e308) for r in a["estimators_"]],
     "sum beyond float64"),
    *[(DPDTreeClassifierCV(max_depths=[1, 2], cv=2), *load_iris(return_X_y=True),
       lambda a, v=v: a.__setitem__("alpha_", v), "alpha_")
      for v in ({"__type__": "float", "value": "nan"}, -1.0, 0.123, None)],
    (DPDTreeClassifierCV(max_depths=[1, 2], cv=2), *load_iris(return_X_y=True),
     lambda a: a.__setitem__("max_depth_", 7), "max_depth_"),
    (DPDTreeRegressorCV(max_depths=[1, 2], cv=2), *load_iris(return_X_y=True),
     lambda a: a["validation_curve_"]["data"]["alpha"].__setitem__(0, "nan"),
     "validation_curve_"),
    (BranchesClassifier(max_bins=3), *load_iris(return_X_y=True),
     lambda a: a["tree_"]["value"]["data"].__setitem__(0, 2.0), "class fractions outside"),
    (BranchesClassifier(max_bins=3), *load_iris(return_X_y=True),
     lambda a: a.__setitem__("objective_", {"__type__": "float", "value": "nan"}),
     "objective_"),
    *[(make(max_depth=2), *load_iris(return_X_y=True),
       lambda a: a.__setitem__("n_classes_", 10**9), "n_classes_ does not match classes_")
      for make in (DPDTreeClassifier, DPDTreeClassifierCV)],
], ids=["boosting init_raw_", "unknown loss", "multinomial loss", "branches classes",
        "branches encoders", "cv best_estimator_", "dpdt trees_",
        *[f"leaf {v}" for v in ("-5", "nan", "inf", "0.5")],
        *[f"regression leaf {v}" for v in ("nan", "inf", "-inf")],
        "impurity", "node weight", "alpha range", "front leaves",
        "boosting init_raw_ nan", "boosting init_raw_ inf", "boosting leaf inf",
        "boosting leaves overflow",
        "cv alpha_ nan", "cv alpha_ negative", "cv alpha_ elsewhere", "cv alpha_ None",
        "cv max_depth_", "cv curve", "branches fractions", "branches objective_",
        "n_classes_", "cv n_classes_"])
def test_each_estimator_checks_its_loaded_state(tmp_path, estimator, X, y, edit, message):
    from dpdt._io import _digest

    path = tmp_path / "model.json"
    estimator.fit(X, y).save(path)
    document = json.loads(path.read_text())
    edit(document["attributes"])
    document["sha256"] = _digest(document)
    with pytest.raises(ValueError, match=message):
        load(_write(path, document))


def _edited(tmp_path, edit):
    """Save a classifier, edit its document, recompute the checksum (anyone can) and write it."""
    from dpdt._io import _digest

    path, document = _saved(tmp_path)
    edit(document)
    document["sha256"] = _digest(document)
    return _write(path, document)


def _set_attribute(key, value):
    return lambda document: document["attributes"].__setitem__(key, value)


def _edit_front(field, value):
    def edit(document):
        column = document["attributes"]["pareto_front_"]["data"][field]
        column[:] = [value] * len(column)
    return edit


def _nested(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


def _array(dtype, data, shape=None):
    return {"__type__": "ndarray", "dtype": dtype, "shape": shape or [len(data)], "data": data}


@pytest.mark.parametrize("edit, message", [
    (_set_attribute("classes_", _array("<U200000000", [0, 1, 2])), "expected strings"),
    (_set_attribute("classes_", _array("<U200000000", ["a", "b", "c"])),
     "dtype <U200000000 for strings of at most 1 characters"),
    (_set_attribute("classes_", _array("<U2", ["abc", "b", "c"])), "at most 3 characters"),
    (_set_attribute("classes_", _array("|S8", ["a", "b", "c"])), "dtype '|S8' is not allowed"),
    (_set_attribute("classes_", _array("|V8", ["a", "b", "c"])), "dtype '|V8' is not allowed"),
    (_set_attribute("classes_", _array("<c16", [1, 2, 3])), "is not allowed"),
    (_set_attribute("classes_", _array("(1000,)f8", [1, 2, 3])), "is not allowed"),
    (_set_attribute("classes_", _array("|O", [[1], [2], [3]])), "numbers and strings only"),
    (_set_attribute("x_", {"__type__": "scalar", "dtype": "|O", "value": 1}), "scalar dtype"),
    (_set_attribute("x_", _array("<f8", [], [0] + [1] * 9)), "bad shape"),
    (_set_attribute("x_", _array("<f8", [1.0], [10**12])), "needs 1000000000000 values"),
    (_set_attribute("x_", _array("<f8", [10**400])), "does not fit a float"),
    (_set_attribute("x_", _nested(40)), "nested 4[0-9] levels deep"),
    (_set_attribute("x_", {"__type__": "series", "index": _array("<i8", [0, 1]),
                           "values": _array("<f8", [1.0])}), "bad series"),
    (_set_attribute("x_", {"__type__": "series", "index": [0], "values": [1.0]}),
     "bad series"),
    (_set_attribute("predict", 1), "bad attribute name 'predict'"),
    (_set_attribute("tree_", 1), "bad attribute name 'tree_'"),
    (_set_attribute("feature_names_in_", _array("|O", [1, 2, 3, 4])), "not strings"),
    (_set_attribute("_front_n_splits", {"__type__": "ndarray", "dtype": "|O", "shape": [1],
                                         "data": ["x"]}), "_front_n_splits does not match"),
    (_edit_front("train_loss", "nan"), "non-finite losses or no tree to select"),
    (_edit_front("alpha_min", "nan"), "non-finite losses or no tree to select"),
    (lambda d: d["attributes"]["trees_"][0]["threshold"].update(dtype="<i8", data=[
        int(v) for v in d["attributes"]["trees_"][0]["threshold"]["data"]]),
     "threshold: dtype int64 where floats are expected"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_crafted_content_is_a_value_error_naming_it(tmp_path, edit, message):
    path = _edited(tmp_path, edit)
    with pytest.raises(ValueError, match=message):
        load(path)


def test_deep_json_is_a_value_error_before_parsing(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match="nested 200000 levels deep"):
        load(path)
    # Brackets inside strings do not count.
    path.write_text(json.dumps({"format": "[" * 1000}))
    with pytest.raises(ValueError, match="not a dpdt model"):
        load(path)


def test_strings_keep_a_declared_width_that_their_values_nearly_fill(tmp_path):
    """Labels keep y's dtype (e.g. <U20 for shorter names): such files still load."""
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"], dtype="<U20")[y]
    clf = DPDTreeClassifier(max_depth=1).fit(X, labels)
    clf.save(tmp_path / "m.json")
    assert load(tmp_path / "m.json").predict(X).dtype == np.dtype("<U20")


def _invalid_values(estimator):
    """Yield (parameter, value) pairs that break one constraint of each parameter, and no other.

    As scikit-learn's ``check_param_validation`` draws them, plus the values of the report that
    found save writing files load refuses.
    """
    from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

    reported = {"max_bins": 1, "min_samples_leaf": 0, "verbose": -1, "cv": 1,
                "max_depths": range(1, 10**12), "learning_rate": float("nan")}
    for name, constraints in estimator._parameter_constraints.items():
        constraints = [make_constraint(c) for c in constraints]
        values = [reported[name]] if name in reported else []
        for constraint in constraints:
            try:
                values.append(generate_invalid_param_val(constraint))
            except NotImplementedError:
                continue
        for value in values:
            if not any(c.is_satisfied_by(value) for c in constraints):
                yield name, value


SAVE_CASES = [case for case in CASES if case[0] in (
    "classifier", "regressor multi-output", "branches", "multiway greedy", "boosting binary",
    "boosting regressor early stop", "classifier CV", "regressor CV")]


@pytest.mark.parametrize("name, estimator, X, y", SAVE_CASES, ids=[c[0] for c in SAVE_CASES])
def test_save_validates_the_parameters_as_fit_does(tmp_path, name, estimator, X, y):
    """set_params(min_samples_leaf=0) after a fit, then save, wrote a file load refused."""
    from sklearn.base import clone

    estimator.fit(X, y)
    path = tmp_path / "model.json"
    checked = set()
    for param, value in _invalid_values(estimator):
        with pytest.raises(ValueError) as at_fit:
            clone(estimator).set_params(**{param: value}).fit(X, y)
        original = estimator.get_params()[param]
        estimator.set_params(**{param: value})
        try:
            with pytest.raises(type(at_fit.value), match=re.escape(str(at_fit.value))):
                estimator.save(path)
        finally:
            estimator.set_params(**{param: original})
        assert not path.exists(), param
        checked.add(param)
    assert checked >= {"max_depth", "verbose"} & set(estimator.get_params())
    # Valid again, it saves.
    estimator.save(path)
    assert_array_equal(load(path).predict(X), estimator.predict(X))


def test_parameters_are_python_numbers_after_select_tree_and_load(tmp_path):
    """get_params showed np.float64(...) after select_tree, and so did a model saved then."""
    from dpdt._io import _digest

    X, y = load_iris(return_X_y=True)
    models = [DPDTreeClassifier(max_depth=3), DPDTreeClassifier(max_depth=3, front="pareto"),
              DPDTreeRegressor(max_depth=3), DPDTreeClassifierCV(max_depths=[1, 2, 3], cv=3)]
    for model in models:
        model.fit(X, y)
        for leaves in (1, 2, 3, 5):
            model.select_tree(max_leaves=leaves)
            for estimator in (model, getattr(model, "best_estimator_", model)):
                assert not [v for v in estimator.get_params().values()
                            if isinstance(v, np.generic)], repr(estimator)
                assert "np." not in repr(estimator)
    # A file that holds a numpy scalar parameter (as earlier versions saved it) loads as a float.
    path = tmp_path / "model.json"
    models[0].save(path)
    document = json.loads(path.read_text())
    document["params"]["alpha"] = {"__type__": "scalar", "dtype": "<f8", "value": 0.25}
    document["sha256"] = _digest(document)
    loaded = load(_write(path, document))
    assert type(loaded.get_params()["alpha"]) is float and "np." not in repr(loaded)
