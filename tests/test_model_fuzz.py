"""Model-file fuzzer: mutated files of every estimator family load and predict, or raise ValueError.

Valid files of a registry of fitted estimators are mutated the way a hostile file would be
(dtypes, shapes, sizes, values, nesting, missing keys, swapped nodes, truncation, byte flips)
with the checksum recomputed, since anyone can. Each must either load and then predict with the
right shapes, or raise ValueError from ``load`` naming the problem, never another exception; and
loading and predicting must stay within memory proportional to the file's size (tracemalloc).
Seeds are fixed, so a failure is reproduced by its test id.
"""

import json
import random
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreePolicyCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
    OneHotEncoded,
    export_graphviz,
    export_html,
    export_text,
    load,
    to_sklearn,
)
from dpdt._io import _digest

# Loading and predicting a file may take this many bytes per byte of the file, plus a constant:
# the JSON parse alone takes up to 25 bytes per byte (a file of empty lists), the arrays 8.
MEMORY_PER_FILE_BYTE = 64
MEMORY_ALWAYS = 4 << 20
N_MUTANTS = 40   # per estimator


def _estimators():
    X, y = load_iris(return_X_y=True)
    X = X[::3]
    y = y[::3]
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    colours = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "green", "green"] * 3,
                            "size": [1, 2, 1, 2, 1, 2] * 3})
    return {
        "tree": (DPDTreeClassifier(max_depth=2, front="pareto"), frame, names),
        "regressor": (DPDTreeRegressor(max_depth=2), X[:, :2], X[:, 2:]),
        "policy": (DPDTreePolicy(max_depth=2), frame,
                   pd.DataFrame(X[:, 1:], columns=["wait", "drug", "surgery"])),
        # A budget's front, its tree selected by max_cost.
        "policy budget": (DPDTreePolicy(max_depth=2, max_cost=20.0), frame,
                          pd.DataFrame(X[:, 1:], columns=["wait", "drug", "surgery"]),
                          {"action_costs": [0.0, 1.0, 2.0]}),
        "classifier CV": (DPDTreeClassifierCV(max_depths=[1, 2], cv=2), X, y),
        "regressor CV": (DPDTreeRegressorCV(max_depths=[1, 2], cv=2), X[:, :3], X[:, 3]),
        "policy CV": (DPDTreePolicyCV(max_depths=[1, 2], cv=2), frame,
                      pd.DataFrame(X[:, 1:], columns=["wait", "drug", "surgery"])),
        "boosting": (DPDTGradientBoostingClassifier(n_estimators=2, max_depth=2), X, y),
        "boosting binary": (DPDTGradientBoostingClassifier(n_estimators=2, max_depth=1), X,
                            y == 1),
        "boosting regressor": (DPDTGradientBoostingRegressor(n_estimators=2, max_depth=2),
                               X[:, :3], X[:, 3]),
        "branches": (BranchesClassifier(lam=0.02), colours, [0, 0, 1, 1, 0, 1] * 3),
        "multiway greedy": (MultiwayGreedyClassifier(max_bins=3), frame, names),
        "one-hot": (OneHotEncoded(DPDTreeClassifier(max_depth=2)),
                    colours.assign(colour=["red", None, "blue", "blue", "green", "green"] * 3),
                    [0, 0, 1, 1, 0, 1] * 3),
    }


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    files = {}
    for name, (estimator, X, y, *fit_params) in _estimators().items():
        path = directory / f"{name}.json"
        estimator.fit(X, y, **(fit_params[0] if fit_params else {})).save(path)
        files[name] = (json.loads(path.read_text()), X)
    return files


# -- mutations -----------------------------------------------------------------------------------

_DTYPES = ["<f8", "<i8", "<i4", "|u1", "|b1", "<f4", "<U1", "<U3", "<U200000000", "|O", "<c16",
           "|V8", "(1000000,)f8", "|S9", "<f16", "<M8[ns]", "x", 5, None]
_NUMBERS = [-2, -1, 0, 1, 2, 3, 10**9, 10**18, -10**18, 10**400, 1e308, -1e308, 0.5, "nan",
            "inf", "-inf", True, None, "", "x" * 100, [], {}]


def _nodes(node, path=()):
    """Yield (path, node) for every node of a JSON document."""
    yield path, node
    children = (node.items() if isinstance(node, dict)
                else enumerate(node) if isinstance(node, list) else ())
    for key, child in children:
        if key != "sha256":
            yield from _nodes(child, (*path, key))


def _replace(document, path, value):
    if not path:
        return value
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return document


def _arrays(document):
    return [(p, n) for p, n in _nodes(document)
            if isinstance(n, dict) and n.get("__type__") == "ndarray"]


def _mutate(document, rng):
    """Return a mutated copy of ``document`` (the checksum not yet recomputed)."""
    document = json.loads(json.dumps(document))
    nodes = list(_nodes(document))
    arrays = _arrays(document)
    kind = rng.choice(["dtype", "shape", "size", "resize", "value", "nest", "drop", "swap",
                       "huge", "number"])
    if kind in ("dtype", "shape", "size", "resize", "huge", "number") and arrays:
        path, array = rng.choice(arrays)
        data = array["data"]
        if kind == "dtype":
            array["dtype"] = rng.choice(_DTYPES)
        elif kind == "shape" and data and rng.random() < 0.2:
            array["shape"], array["data"] = [], data[:1]   # a 0-d array where 1-d is read
        elif kind == "shape" and array["shape"]:
            axis = rng.randrange(len(array["shape"]))
            array["shape"][axis] = rng.choice([0, 1, 2, array["shape"][axis] + 1, -1, 10**12])
        elif kind == "shape":
            array["shape"] = rng.choice([[1], [0], [1] * 40, [len(data), 1]])
        elif kind == "size" and data:
            del data[rng.randrange(len(data)):]
        elif kind == "resize":
            # Consistent: the data and a 1-D shape agree, the arrays around them may not.
            keep = rng.randrange(len(data) + 3)
            array["data"] = (data * (keep + 1))[:keep] if data else []
            array["shape"] = [len(array["data"])]
        elif kind == "huge":
            array["shape"] = [10**rng.randrange(6, 19)] + array["shape"][1:]
        elif data and isinstance(data[0], float):
            # Another value of the same type: such files mostly load, and must then predict.
            data[rng.randrange(len(data))] = rng.choice([0.0, -1.5, 1e300, data[-1]])
        return document
    path, node = rng.choice(nodes[1:])
    if kind == "value":
        scalars = [(p, n) for p, n in nodes[1:] if not isinstance(n, dict | list)]
        path, node = rng.choice(scalars)
        return _replace(document, path, rng.choice(_NUMBERS))
    if kind == "nest":
        for _ in range(rng.choice([1, 2, 5, 40])):
            node = [node]
        return _replace(document, path, node)
    if kind == "drop" and isinstance(node, dict) and node:
        del node[rng.choice(sorted(node))]
        return document
    if kind == "drop" and isinstance(node, list) and node:
        del node[rng.randrange(len(node))]
        return document
    _, other = rng.choice(nodes[1:])
    return _replace(document, path, json.loads(json.dumps(other)))


def _mutant(document, rng):
    """Return the bytes of a mutated file: a mutated document, truncated or with bytes flipped."""
    style = rng.random()
    if style < 0.7:
        mutated = _mutate(document, rng)
        if isinstance(mutated, dict):
            mutated["sha256"] = _digest(mutated)
        return json.dumps(mutated).encode()
    text = json.dumps(document).encode()
    if style < 0.8:
        return text[:rng.randrange(len(text))]
    flipped = bytearray(text)
    for _ in range(rng.randrange(1, 4)):
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
    try:
        mutated = json.loads(bytes(flipped))
        mutated["sha256"] = _digest(mutated)
        return json.dumps(mutated).encode()
    except (ValueError, TypeError, RecursionError):
        return bytes(flipped)


def _predict_input(model, X):
    """X for ``model``: the training rows, or zeros when the model wants other columns."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        return pd.DataFrame({name: (frame[name] if name in frame.columns
                                    else np.zeros(len(frame))) for name in names})
    n_features = model.n_features_in_
    X = np.asarray(X)
    if X.shape[1] == n_features and X.dtype.kind in "biuf":
        return X
    return np.zeros((len(X), n_features))


def _check(path, X):
    """Load ``path``; return "refused" or check that the model predicts with the right shapes."""
    try:
        model = load(path)
    except ValueError as exc:
        # The net under the checks catches other exceptions; the checks themselves must.
        assert "unexpected content" not in str(exc), exc
        return "refused"
    X = _predict_input(model, X)
    predicted = np.asarray(model.predict(X))
    assert predicted.shape[0] == len(X)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), len(model.classes_))
    _predicts_what_a_fit_can(model, X)
    return "loaded"


NAMES = list(_estimators())


@pytest.mark.parametrize("name", NAMES)
def test_mutated_files_load_or_raise_value_error(saved, tmp_path, name):
    document, X = saved[name]
    rng = random.Random(f"dpdt fuzz {name}")
    outcomes = []
    for k in range(N_MUTANTS):
        content = _mutant(document, rng)
        path = tmp_path / f"mutant{k}.json"
        path.write_bytes(content)
        tracemalloc.start()
        try:
            outcomes.append(_check(path, X))
            peak = tracemalloc.get_traced_memory()[1]
        except Exception as exc:
            raise AssertionError(f"mutant {k} of {name}: {type(exc).__name__}: {exc}\n"
                                 f"{content[:300]!r}") from exc
        finally:
            tracemalloc.stop()
        assert peak <= MEMORY_PER_FILE_BYTE * len(content) + MEMORY_ALWAYS, (k, peak)
    # The mutations are not all refused: the fuzzer also reaches models that load.
    assert "refused" in outcomes and "loaded" in outcomes


def _with_attribute(document, key, value):
    document = json.loads(json.dumps(document))
    document["attributes"][key] = value
    document["sha256"] = _digest(document)
    return json.dumps(document, separators=(",", ":"))


_WIDE = "<U200000000"


@pytest.mark.parametrize("key, value", [
    # The file: 200 million characters declared, a few present (1.7 GB at load, 3.7 GB
    # at predict before).
    ("classes_", {"__type__": "ndarray", "dtype": _WIDE, "shape": [3], "data": ["a", "b", "c"]}),
    ("extra_", {"__type__": "scalar", "dtype": _WIDE, "value": "a"}),
    ("extra_", {"__type__": "scalar", "dtype": "(100000000,)f8", "value": 0.0}),
    ("extra_", {"__type__": "ndarray", "dtype": "<U64", "shape": [50_000],
                "data": [""] * 50_000}),
    ("extra_", {"__type__": "ndarray", "dtype": "<f8", "shape": [0, 10**18, 10**18],
                "data": []}),
], ids=["classes_ U200000000", "scalar U200000000", "subarray", "wide empty strings",
        "huge empty shape"])
def test_declared_sizes_are_refused_before_allocating(saved, tmp_path, key, value):
    document, _ = saved["tree"]
    path = tmp_path / "hostile.json"
    path.write_text(_with_attribute(document, key, value))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="dtype|memory|shape|needs"):
            load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= MEMORY_PER_FILE_BYTE * path.stat().st_size + MEMORY_ALWAYS


@pytest.mark.parametrize("value", [
    [[]] * 20_000,                                  # the JSON parse's costliest objects
    [[0]] * 20_000,
    {"__type__": "dict", "items": [[i, []] for i in range(10_000)]},
    [1.5] * 20_000,
    {"__type__": "ndarray", "dtype": "<f8", "shape": [30_000], "data": [0] * 30_000},
    {"__type__": "ndarray", "dtype": "|O", "shape": [30_000], "data": [""] * 30_000},
], ids=["empty lists", "short lists", "dict", "floats", "float array", "object array"])
def test_memory_is_proportional_to_the_file(saved, tmp_path, value):
    """Whatever the file holds, loading it takes less than 64 bytes per byte of it."""
    document, X = saved["tree"]
    path = tmp_path / "big.json"
    path.write_text(_with_attribute(document, "extra_", value))
    size = path.stat().st_size
    assert size > 50_000
    tracemalloc.start()
    try:
        _check(path, X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= MEMORY_PER_FILE_BYTE * size + MEMORY_ALWAYS, peak / size


# -- declared sizes and values ------------------------------------------------------------------

def _documents(document):
    """Yield every estimator document of a file, nested ones (a CV's refits) first."""
    for _, node in _nodes(document["attributes"]):
        if isinstance(node, dict) and node.get("__type__") == "estimator":
            yield from _documents(node["document"])
    yield document


def _redigest(document):
    for inner in _documents(document):   # inner documents first: their digests are content
        inner["sha256"] = _digest(inner)
    return document


def _declaring_features(document, n_features):
    """Return ``document`` declaring ``n_features`` unnamed features everywhere it counts them."""
    document = json.loads(json.dumps(document))
    for inner in _documents(document):
        attributes = inner["attributes"]
        attributes.pop("feature_names_in_", None)
        attributes["n_features_in_"] = n_features
        for _, node in _nodes(attributes):
            if isinstance(node, dict) and node.get("__type__") == "Tree":
                node["n_features"] = n_features
    return _redigest(document)


def _operations(model):
    """Every public operation on a loaded model that does not need its training data."""
    X = np.zeros((2, model.n_features_in_))
    operations = {
        "predict": lambda: model.predict(X),
        "repr": lambda: repr(model),
        "get_params": lambda: model.get_params(),
        "export_text": lambda: export_text(model) if hasattr(model, "tree_") else None,
        "export_graphviz": lambda: export_graphviz(model) if hasattr(model, "tree_") else None,
        "export_html": lambda: export_html(model) if hasattr(model, "tree_") else None,
        "feature_importances_": lambda: getattr(model, "feature_importances_", None),
    }
    if hasattr(model, "predict_proba"):
        operations["predict_proba"] = lambda: model.predict_proba(X)
    if hasattr(model, "select_tree"):
        operations["select_tree"] = lambda: model.select_tree(max_leaves=2)
    if isinstance(model, DPDTreeClassifier | DPDTreeRegressor):
        operations["to_sklearn"] = lambda: to_sklearn(model)
    return operations


# Any operation on a loaded model may take this much memory per byte of its file, plus a constant
# (export_html, the costliest, writes each declared feature's name into its page).
OPERATION_MEMORY_PER_FILE_BYTE = 256
OPERATION_MEMORY_ALWAYS = 32 << 20
OPERATION_SECONDS = 20


@pytest.mark.parametrize("name", NAMES)
def test_declared_features_are_bounded_by_the_file(saved, tmp_path, name):
    """A 5 KB file declaring 10**8 features took 86 s and 7 GB in export_text: now refused.

    As many unnamed features as the file's size pays for still load, and every operation on
    the model then takes memory proportional to the file (predict's X aside, the caller's).
    """
    document, _ = saved[name]
    path = tmp_path / "features.json"
    for n_features in (10**8, 10**6):
        path.write_text(json.dumps(_declaring_features(document, n_features)))
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match="n_features_in_|encoders"):
                load(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= MEMORY_PER_FILE_BYTE * path.stat().st_size + MEMORY_ALWAYS
    # The most unnamed features a file of this size may declare, found by halving.
    low, high = 1, 10**6
    while high - low > 1:
        middle = (low + high) // 2
        path.write_text(json.dumps(_declaring_features(document, middle)))
        try:
            load(path)
            low = middle
        except ValueError:
            high = middle
    if name == "one-hot":   # its features are its encoding's columns: no other count loads
        path.write_text(json.dumps(_declaring_features(document, low)))
        with pytest.raises(ValueError):
            load(path)
        return
    if name in ("branches", "multiway greedy"):   # one category encoder per feature
        assert low == document["attributes"]["n_features_in_"]
        return
    assert low > 100_000   # a model fit on as many unnamed features saves and loads
    path.write_text(json.dumps(_declaring_features(document, low)))
    size = path.stat().st_size
    model = load(path)
    for operation, run in _operations(model).items():
        tracemalloc.start()
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        seconds = time.perf_counter() - start
        X_bytes = 16 * model.n_features_in_ if "predict" in operation else 0
        assert peak <= (OPERATION_MEMORY_PER_FILE_BYTE * size + OPERATION_MEMORY_ALWAYS
                        + X_bytes), (operation, peak)
        assert seconds <= OPERATION_SECONDS, (operation, seconds)


def _floats(document):
    """Return (path, array node, index) of every float a document's arrays and records hold."""
    found = []
    for path, node in _nodes(document["attributes"]):
        if isinstance(node, dict) and node.get("__type__") == "ndarray" and str(
                node.get("dtype", "")).endswith(("f8", "f4")):
            found += [(path, node["data"], i) for i in range(len(node["data"]))]
        elif isinstance(node, dict) and node.get("__type__") == "records":
            for field, dtype in node["fields"]:
                if dtype.endswith("f8"):
                    data = node["data"][field]
                    found += [(path, data, i) for i in range(len(data))]
    return found


_HOSTILE_FLOATS = ["nan", "inf", "-inf", -5.0, -1e-3, 2.0, 1e308, -1e308]


def _predicts_what_a_fit_can(model, X):
    """Assert the predictions of ``model`` are ones a fitted model makes."""
    X = _predict_input(model, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predicted = np.asarray(model.predict(X))
        if predicted.dtype.kind == "f":
            assert np.all(np.isfinite(predicted))
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(X)
            assert np.all((proba >= 0) & (proba <= 1))
            assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
        if hasattr(model, "tree_"):
            export_text(model)
            export_html(model)


@pytest.mark.parametrize("name", NAMES)
def test_loaded_numbers_are_ones_a_fit_makes(saved, tmp_path, name):
    """Every float of a file replaced by a value no fit writes: refused, or harmless.

    A leaf value of -5, NaN or inf loaded and predicted it (a predict_proba of -5), boosting's
    init_raw_ NaN predicted NaN, a CV's alpha_ NaN broke export_html with an IndexError. Now a
    file loads only if what it predicts is what a fitted model can: finite predictions,
    probabilities in [0, 1] summing to 1, exports that run.
    """
    document, X = saved[name]
    rng = random.Random(f"dpdt values {name}")
    floats = _floats(document)
    refused = 0
    for k in range(60):
        mutated = json.loads(json.dumps(document))
        path_, _, i = rng.choice(floats)
        node = mutated["attributes"]
        for key in path_:
            node = node[key]
        data = node["data"] if node.get("__type__") == "ndarray" else None
        if data is None:   # a records column
            columns = [c for c in node["data"].values() if len(c) > i and isinstance(c[i], float)]
            data = rng.choice(columns) if columns else None
        if data is None:
            continue
        data[i] = rng.choice(_HOSTILE_FLOATS)
        path = tmp_path / f"values{k}.json"
        path.write_text(json.dumps(_redigest(mutated)))
        try:
            model = load(path)
        except ValueError as exc:
            assert "unexpected content" not in str(exc), exc
            refused += 1
            continue
        try:
            _predicts_what_a_fit_can(model, X)
        except Exception as exc:
            raise AssertionError(f"mutant {k} of {name}: {path_} [{i}] = {data[i]}") from exc
    assert refused > 0
