"""Saving fitted estimators to a versioned JSON schema, and loading them back.

A model file is one JSON object::

    {"format": "dpdt-model", "version": 1, "estimator": "DPDTreeClassifier",
     "dpdt_version": "0.1.0", "params": {...}, "attributes": {...}, "sha256": "..."}

``params`` are the constructor arguments, ``attributes`` the fitted state (every attribute
that is not a parameter, including the whole Pareto front and its trees). Values that JSON
has no type for are tagged objects ``{"__type__": name, ...}``: ndarray, tuple, dict, float
(non-finite), scalar (numpy), range, Tree, MultiwayTree, CategoryCodes, loss, estimator. ``sha256``
is the digest of the canonical JSON of everything else, so that a file modified after saving
is refused. Loading only ever builds these types, from a fixed list of estimator classes:
nothing in the file is imported, evaluated or unpickled.
"""

import hashlib
import json
import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree

FORMAT = "dpdt-model"
VERSION = 1

_TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
                "n_node_samples", "weighted_n_node_samples", "missing_go_to_left")
# Arrays that files of an earlier dpdt may lack, and what they mean then.
_TREE_ARRAY_DEFAULTS = {"missing_go_to_left": lambda n: np.zeros(n, dtype=np.uint8)}
_MULTIWAY_ARRAYS = ("feature", "edge_begin", "edge_category", "edge_child", "value",
                    "n_node_samples")
_ARRAY_KINDS = "biufU"   # bool, int, uint, float, str; object arrays hold such scalars only


class SaveMixin:
    """Adds :meth:`save` to an estimator; :func:`dpdt.load` reads the file back."""

    def save(self, path):
        """Save the fitted estimator to a JSON file readable by :func:`dpdt.load`.

        Parameters
        ----------
        path : str or path-like
            File to write. The schema is versioned JSON; it holds the parameters and the
            whole fitted state (for DPDT trees, every tree of the Pareto front).

        Returns
        -------
        self : estimator
            The estimator, unchanged.

        Examples
        --------
        >>> import os, tempfile
        >>> from dpdt import DPDTreeClassifier, load
        >>> clf = DPDTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
        >>> clf.save(path)
        DPDTreeClassifier(max_depth=1)
        >>> load(path).predict([[0.2], [0.9]]).tolist()
        [0, 1]
        """
        check_is_fitted(self)
        document = to_document(self)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(document, fh, separators=(",", ":"), allow_nan=False)
            fh.write("\n")
        return self


def _estimator_classes():
    """Return the classes a model file may name: dpdt's public estimators that can be saved."""
    # Imported here: the estimator modules import this one for SaveMixin.
    import dpdt

    return {name: getattr(dpdt, name) for name in dpdt.__all__
            if isinstance(getattr(dpdt, name), type) and issubclass(getattr(dpdt, name), SaveMixin)}


def _digest(document):
    body = {k: v for k, v in document.items() if k != "sha256"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def to_document(estimator):
    """Return the JSON-ready dict describing a fitted estimator (see the module docstring)."""
    from . import __version__

    name = type(estimator).__name__
    if _estimator_classes().get(name) is not type(estimator):
        raise TypeError(f"cannot save a {name}: only dpdt's estimators can be saved")
    params = estimator.get_params(deep=False)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "dpdt_version": __version__,
        "params": {key: _encode(value, f"parameter {key}") for key, value in params.items()},
        "attributes": {key: _encode(value, f"attribute {key}")
                       for key, value in vars(estimator).items() if key not in params},
    }
    document["sha256"] = _digest(document)
    return document


def _encode_float(value):
    value = float(value)
    return value if math.isfinite(value) else str(value)   # "inf", "-inf", "nan"


def _encode_array(array, where):
    if array.dtype.names is not None:
        return {"__type__": "records", "shape": list(array.shape),
                "fields": [[name, array.dtype[name].str] for name in array.dtype.names],
                "data": {name: _encode_array(array[name], where)["data"]
                         for name in array.dtype.names}}
    kind = array.dtype.kind
    flat = array.ravel().tolist()
    if kind == "f":
        data = [_encode_float(v) for v in flat]
    elif kind in "biuU":
        data = flat
    elif kind == "O" and all(isinstance(v, str | bool | Integral | Real) for v in flat):
        data = [_encode(v, where) for v in flat]
    else:
        raise TypeError(f"cannot save {where}: arrays of dtype {array.dtype} are not supported")
    return {"__type__": "ndarray", "dtype": array.dtype.str, "shape": list(array.shape),
            "data": data}


def _encode(value, where):
    """Return a JSON-ready form of ``value``; raise TypeError for what the schema cannot hold."""
    from ._boosting import (
        _AbsoluteError,
        _BinaryLogLoss,
        _Huber,
        _MultinomialLogLoss,
        _SquaredError,
    )
    from ._branches import MultiwayTree, _CategoryCodes

    # numpy scalars first: np.float64 and np.str_ are also float and str.
    if isinstance(value, np.generic):
        item = value.item()
        if not isinstance(item, bool | int | float | str):
            raise TypeError(f"cannot save {where}: numpy scalars of dtype {value.dtype} are not "
                            "supported")
        return {"__type__": "scalar", "dtype": value.dtype.str,
                "value": _encode_float(item) if isinstance(item, float) else item}
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__type__": "float", "value": str(value)}
    if isinstance(value, np.ndarray):
        return _encode_array(value, where)
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, tuple):
        return {"__type__": "tuple", "items": [_encode(v, where) for v in value]}
    if isinstance(value, range):
        return {"__type__": "range", "start": value.start, "stop": value.stop, "step": value.step}
    if isinstance(value, dict):
        return {"__type__": "dict",
                "items": [[_encode(k, where), _encode(v, where)] for k, v in value.items()]}
    if isinstance(value, Tree):
        return {"__type__": "Tree", "n_features": value.n_features,
                **{name: _encode_array(getattr(value, name), where) for name in _TREE_ARRAYS}}
    if isinstance(value, MultiwayTree):
        return {"__type__": "MultiwayTree",
                **{name: _encode_array(getattr(value, name), where) for name in _MULTIWAY_ARRAYS}}
    if isinstance(value, _CategoryCodes):
        return {"__type__": "CategoryCodes", "max_bins": value.max_bins,
                "encoders": [[kind, _encode_array(table, where)]
                             for kind, table in value.encoders_]}
    if isinstance(value, _Huber):
        return {"__type__": "loss", "name": "_Huber", "quantile": _encode_float(value.quantile),
                "delta": _encode_float(value.delta)}
    if isinstance(value, _SquaredError | _AbsoluteError | _BinaryLogLoss | _MultinomialLogLoss):
        return {"__type__": "loss", "name": type(value).__name__,
                "n_classes": getattr(value, "n_trees_per_round", 1)}
    if isinstance(value, SaveMixin):
        return {"__type__": "estimator", "document": to_document(value)}
    raise TypeError(f"cannot save {where}: values of type {type(value).__name__} are not "
                    "supported by the model schema")


class _Decoder:
    """Rebuilds values from their JSON form, checking every type and shape on the way."""

    def __init__(self, path):
        self.path = path

    def fail(self, message):
        raise ValueError(f"{self.path}: invalid dpdt model file: {message}")

    def expect(self, condition, message):
        if not condition:
            self.fail(message)

    def float(self, value, where):
        if isinstance(value, str) and value in ("inf", "-inf", "nan"):
            return float(value)
        self.expect(isinstance(value, int | float) and not isinstance(value, bool),
                    f"{where}: expected a number, got {value!r}")
        return float(value)

    def array(self, node, where):
        self.expect(isinstance(node, dict) and node.get("__type__") in ("ndarray", "records"),
                    f"{where}: expected an array")
        shape = node.get("shape")
        self.expect(isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape),
                    f"{where}: bad shape {shape!r}")
        size = math.prod(shape)
        if node["__type__"] == "records":
            fields, data = node.get("fields"), node.get("data")
            self.expect(isinstance(fields, list) and isinstance(data, dict)
                        and all(isinstance(f, list) and len(f) == 2 for f in fields)
                        and sorted(data) == sorted(f[0] for f in fields),
                        f"{where}: bad record fields")
            columns = {name: self.array({"__type__": "ndarray", "dtype": dtype, "shape": shape,
                                         "data": data[name]}, f"{where}.{name}")
                       for name, dtype in fields}
            array = np.empty(shape, dtype=[(name, columns[name].dtype) for name, _ in fields])
            for name, column in columns.items():
                array[name] = column
            return array
        try:
            dtype = np.dtype(node.get("dtype"))
        except TypeError:
            self.fail(f"{where}: unknown dtype {node.get('dtype')!r}")
        data = node.get("data")
        self.expect(dtype.kind in _ARRAY_KINDS + "O" and dtype.names is None,
                    f"{where}: dtype {dtype} is not allowed")
        self.expect(isinstance(data, list) and len(data) == size,
                    f"{where}: expected {size} values")
        if dtype.kind == "f":
            data = [self.float(v, where) for v in data]
        elif dtype.kind == "O":
            data = [self.value(v, where) for v in data]
            self.expect(all(isinstance(v, str | bool | int | float | np.generic) for v in data),
                        f"{where}: object arrays hold numbers and strings only")
        elif dtype.kind == "U":
            self.expect(all(isinstance(v, str) for v in data), f"{where}: expected strings")
        elif dtype.kind == "b":
            self.expect(all(isinstance(v, bool) for v in data), f"{where}: expected booleans")
        else:
            self.expect(all(isinstance(v, int) and not isinstance(v, bool) for v in data),
                        f"{where}: expected integers")
        try:
            if dtype.kind == "O":
                array = np.empty(size, dtype=object)
                array[:] = data
                return array.reshape(shape)
            return np.array(data, dtype=dtype).reshape(shape)
        except (OverflowError, ValueError) as exc:
            self.fail(f"{where}: {exc}")

    def tree(self, node, where):
        arrays = {name: self.array(node.get(name), f"{where}.{name}") for name in _TREE_ARRAYS
                  if name in node or name not in _TREE_ARRAY_DEFAULTS}
        n_features = node.get("n_features")
        self.expect(isinstance(n_features, int) and n_features >= 1, f"{where}: bad n_features")
        n = arrays["feature"].shape[0]
        for name, default in _TREE_ARRAY_DEFAULTS.items():
            arrays.setdefault(name, default(n))
        self.expect(np.isin(arrays["missing_go_to_left"], (0, 1)).all(),
                    f"{where}.missing_go_to_left: expected 0 or 1")
        self.expect(n >= 1 and all(a.shape[:1] == (n,) for a in arrays.values())
                    and arrays["value"].ndim == 3, f"{where}: arrays of inconsistent shapes")
        for name in ("children_left", "children_right", "feature", "n_node_samples"):
            self.expect(arrays[name].dtype.kind == "i", f"{where}.{name}: expected integers")
        left, right, feature = arrays["children_left"], arrays["children_right"], arrays["feature"]
        leaf = left == TREE_LEAF
        nodes = np.arange(n)
        # Preorder (children after their parent) rules out cycles; every node but the root is
        # the child of exactly one split.
        self.expect(np.array_equal(leaf, right == TREE_LEAF)
                    and np.all(left[~leaf] > nodes[~leaf]) and np.all(right[~leaf] > left[~leaf])
                    and np.all(right[~leaf] < n)
                    and np.array_equal(np.sort(np.concatenate([left[~leaf], right[~leaf]])),
                                       nodes[1:]),
                    f"{where}: the children arrays do not form a binary tree")
        self.expect(np.all((feature[~leaf] >= 0) & (feature[~leaf] < n_features))
                    and np.all(feature[leaf] == TREE_UNDEFINED),
                    f"{where}: feature index out of range")
        self.expect(np.all(np.isfinite(arrays["threshold"][~leaf])),
                    f"{where}: non-finite threshold")
        return Tree(**arrays, n_features=n_features)

    def multiway_tree(self, node, where):
        from ._branches import MultiwayTree

        arrays = {name: self.array(node.get(name), f"{where}.{name}")
                  for name in _MULTIWAY_ARRAYS}
        n = arrays["feature"].shape[0]
        begin, child = arrays["edge_begin"], arrays["edge_child"]
        self.expect(n >= 1 and arrays["value"].ndim == 2 and arrays["value"].shape[0] == n
                    and arrays["n_node_samples"].shape == (n,) and begin.shape == (n + 1,)
                    and child.shape == arrays["edge_category"].shape and begin[0] == 0
                    and np.all(np.diff(begin) >= 0) and begin[-1] == child.shape[0],
                    f"{where}: arrays of inconsistent shapes")
        parents = np.repeat(np.arange(n), np.diff(begin))
        self.expect(np.all(child > parents) and np.all(child < n)
                    and np.array_equal(np.sort(child), np.arange(1, n)),
                    f"{where}: the edges do not form a tree")
        tree = MultiwayTree({**arrays, "value": arrays["value"]})
        tree.value = arrays["value"]   # the saved fractions, not renormalised
        return tree

    def category_codes(self, node, where):
        from ._branches import _CategoryCodes

        encoders = node.get("encoders")
        self.expect(isinstance(encoders, list), f"{where}: bad encoders")
        codes = _CategoryCodes(self.value(node.get("max_bins"), where))
        codes.encoders_ = []
        for item in encoders:
            self.expect(isinstance(item, list) and len(item) == 2
                        and item[0] in ("categories", "bins", "values"),
                        f"{where}: bad encoder {item!r:.60}")
            codes.encoders_.append((item[0], self.array(item[1], where)))
        return codes

    def value(self, node, where):
        from ._boosting import (
            _AbsoluteError,
            _BinaryLogLoss,
            _Huber,
            _MultinomialLogLoss,
            _SquaredError,
        )

        if node is None or isinstance(node, bool | int | float | str):
            return node
        if isinstance(node, list):
            return [self.value(v, where) for v in node]
        self.expect(isinstance(node, dict) and isinstance(node.get("__type__"), str),
                    f"{where}: untagged object")
        kind = node["__type__"]
        if kind in ("ndarray", "records"):
            return self.array(node, where)
        if kind == "float":
            return self.float(node.get("value"), where)
        if kind == "scalar":
            array = self.array({"__type__": "ndarray", "dtype": node.get("dtype"), "shape": [],
                                "data": [node.get("value")]}, where)
            return array[()]
        if kind == "tuple":
            self.expect(isinstance(node.get("items"), list), f"{where}: bad tuple")
            return tuple(self.value(v, where) for v in node["items"])
        if kind == "range":
            ends = [node.get(key) for key in ("start", "stop", "step")]
            self.expect(all(isinstance(v, int) and not isinstance(v, bool) for v in ends)
                        and ends[2] != 0, f"{where}: bad range")
            return range(*ends)
        if kind == "dict":
            items = node.get("items")
            self.expect(isinstance(items, list)
                        and all(isinstance(i, list) and len(i) == 2 for i in items),
                        f"{where}: bad dict")
            try:
                return {self.value(k, where): self.value(v, where) for k, v in items}
            except TypeError:
                self.fail(f"{where}: unhashable dict key")
        if kind == "Tree":
            return self.tree(node, where)
        if kind == "MultiwayTree":
            return self.multiway_tree(node, where)
        if kind == "CategoryCodes":
            return self.category_codes(node, where)
        if kind == "loss":
            losses = {"_SquaredError": _SquaredError, "_BinaryLogLoss": _BinaryLogLoss,
                      "_AbsoluteError": _AbsoluteError}
            if node.get("name") == "_Huber":
                quantile = self.float(node.get("quantile"), where)
                self.expect(0 < quantile < 1, f"{where}: bad huber quantile")
                return _Huber(quantile, self.float(node.get("delta"), where))
            if node.get("name") == "_MultinomialLogLoss":
                n_classes = node.get("n_classes")
                self.expect(isinstance(n_classes, int) and n_classes > 2, f"{where}: bad loss")
                return _MultinomialLogLoss(n_classes)
            self.expect(node.get("name") in losses, f"{where}: unknown loss")
            return losses[node["name"]]()
        if kind == "estimator":
            return self.document(node.get("document"), where)
        self.fail(f"{where}: unknown type tag {kind!r}")

    def document(self, document, where="model"):
        self.expect(isinstance(document, dict) and document.get("format") == FORMAT,
                    f"{where}: not a dpdt model (no \"format\": \"{FORMAT}\" field)")
        version = document.get("version")
        self.expect(isinstance(version, int) and not isinstance(version, bool),
                    f"{where}: missing schema version")
        if version > VERSION:
            self.fail(f"{where}: schema version {version} was written by a newer dpdt "
                      f"(this one reads versions up to {VERSION}); upgrade dpdt")
        self.expect(version >= 1, f"{where}: bad schema version {version}")
        self.expect(document.get("sha256") == _digest(document),
                    f"{where}: checksum mismatch, the file was modified after it was saved")
        classes = _estimator_classes()
        name = document.get("estimator")
        self.expect(name in classes, f"{where}: unknown estimator {name!r} "
                                     f"(known: {', '.join(sorted(classes))})")
        cls = classes[name]
        params, attributes = document.get("params"), document.get("attributes")
        self.expect(isinstance(params, dict) and isinstance(attributes, dict),
                    f"{where}: params and attributes must be objects")
        known = set(cls().get_params(deep=False))
        unknown = set(params) - known
        self.expect(not unknown, f"{where}: unknown parameters {sorted(unknown)} for {name}")
        estimator = cls(**{k: self.value(v, f"parameter {k}") for k, v in params.items()})
        try:
            estimator._validate_params()
        except (TypeError, ValueError) as exc:
            self.fail(f"{where}: {exc}")
        for key, value in attributes.items():
            self.expect(isinstance(key, str) and key.isidentifier() and not key.startswith("__")
                        and key not in known, f"{where}: bad attribute name {key!r}")
            setattr(estimator, key, self.value(value, f"attribute {key}"))
        self.check_fitted_state(estimator, where)
        return estimator

    def check_fitted_state(self, estimator, where):
        """Check the cross-attribute invariants that prediction relies on."""
        n_features = getattr(estimator, "n_features_in_", None)
        self.expect(isinstance(n_features, int) and n_features >= 1,
                    f"{where}: missing n_features_in_")
        names = getattr(estimator, "feature_names_in_", None)
        self.expect(names is None or (isinstance(names, np.ndarray)
                                      and names.shape == (n_features,)),
                    f"{where}: feature_names_in_ does not match n_features_in_")
        # Own attributes only: a CV estimator's trees_ is a property of its refit estimator,
        # which was validated when it was decoded.
        state = vars(estimator)
        trees = []
        if "trees_" in state:
            front = getattr(estimator, "pareto_front_", None)
            from ._classes import PARETO_DTYPE

            self.expect(isinstance(front, np.ndarray) and front.dtype == PARETO_DTYPE
                        and front.ndim == 1 and len(front) >= 1
                        and isinstance(estimator.trees_, list)
                        and len(estimator.trees_) == len(front)
                        and all(isinstance(t, Tree) for t in estimator.trees_),
                        f"{where}: pareto_front_ and trees_ do not match")
            for name in ("_front_impurity", "_front_n_splits"):
                value = getattr(estimator, name, None)
                self.expect(isinstance(value, np.ndarray) and value.shape == front.shape,
                            f"{where}: {name} does not match pareto_front_")
            trees = estimator.trees_
        elif "estimators_" in state:
            self.expect(isinstance(estimator.estimators_, list)
                        and all(isinstance(r, list) and all(isinstance(t, Tree) for t in r)
                                for r in estimator.estimators_), f"{where}: bad estimators_")
            trees = [t for r in estimator.estimators_ for t in r]
            self.expect(all(len(r) == len(estimator.init_raw_) for r in estimator.estimators_),
                        f"{where}: estimators_ and init_raw_ do not match")
        elif "tree_" in state:
            codes = getattr(estimator, "_codes", None)
            self.expect(codes is not None and len(codes.encoders_) == n_features,
                        f"{where}: the category encoders do not match n_features_in_")
            tree = estimator.tree_
            self.expect(np.all(tree.feature < n_features), f"{where}: feature out of range")
        for tree in trees:
            self.expect(tree.n_features == n_features,
                        f"{where}: a tree has {tree.n_features} features, the estimator "
                        f"{n_features}")
        classes = getattr(estimator, "classes_", None)
        if classes is not None and "estimators_" not in state:
            # A classifier's trees hold one class fraction per class (boosted trees hold logits).
            values = [t.value for t in trees] or [estimator.tree_.value]
            self.expect(isinstance(classes, np.ndarray) and classes.ndim == 1
                        and all(v.shape[-1] == len(classes) for v in values),
                        f"{where}: the trees' class fractions do not match classes_")


def load(path):
    """Load an estimator saved with ``estimator.save(path)``.

    The file is validated against the versioned schema: its format and version, a checksum of
    its contents, the estimator's name (one of dpdt's estimators) and parameters, and the shape
    of every fitted array. Nothing in the file is imported or executed.

    Parameters
    ----------
    path : str or path-like
        A file written by :meth:`save`.

    Returns
    -------
    estimator : estimator
        The fitted estimator, predicting exactly as the one saved.

    Raises
    ------
    ValueError
        If the file is not valid JSON, not a dpdt model, of a newer schema version, modified
        after it was saved, or inconsistent.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpdt import DPDTreeRegressor, load
    >>> reg = DPDTreeRegressor(max_depth=1).fit([[0.0], [1.0], [2.0]], [0.0, 1.0, 1.0])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> reg.save(path).pareto_front_["n_leaves"].tolist()
    [2, 1]
    >>> load(path).pareto_front_["n_leaves"].tolist()
    [2, 1]
    """
    try:
        with open(path, encoding="utf-8") as fh:
            document = json.load(fh, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a dpdt model file (not UTF-8 text: {exc})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a dpdt model file (invalid JSON: {exc})") from None
    return _Decoder(path).document(document)


def _reject_constant(name):
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)
