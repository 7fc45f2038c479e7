"""Saving fitted estimators to a versioned JSON schema, and loading them back.

A model file is one JSON object::

    {"format": "dpdt-model", "version": 1, "estimator": "DPDTreeClassifier",
     "dpdt_version": "0.1.0", "params": {...}, "attributes": {...}, "sha256": "..."}

``params`` are the constructor arguments, ``attributes`` the fitted state (every attribute
that is not a parameter, including the whole Pareto front and its trees). Values that JSON
has no type for are tagged objects ``{"__type__": name, ...}``: ndarray, tuple, dict, float
(non-finite), scalar (numpy), range, estimator, and the tags of the types registered with
:func:`register_type` (Tree, MultiwayTree, CategoryCodes, loss). ``sha256`` is the digest of the
canonical JSON of everything else, so that a file modified after saving is refused.

This module depends on no estimator: each class says how it is written, read back and checked,
and registers itself here (:func:`register_type`, :func:`register_estimator`). Loading only ever
builds registered types, from these fixed registries: nothing in the file is imported, evaluated
or unpickled.
"""

import hashlib
import json
import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._version import __version__

FORMAT = "dpdt-model"
VERSION = 1

_ARRAY_KINDS = "biufU"   # bool, int, uint, float, str; object arrays hold such scalars only
_BUILTIN_TAGS = {"ndarray", "records", "float", "scalar", "tuple", "range", "dict", "estimator"}

# The registries: which classes a file may hold, by tag (and name), and which estimators.
_TAG_OF = {}          # class -> (tag, name or None)
_CLASS_OF = {}        # tag -> {name or None: class}
_ESTIMATORS = {}      # class name -> estimator class


def register_type(tag, *, name=None):
    """Return a class decorator registering a type that model files hold as ``tag``.

    An instance is written ``{"__type__": tag, "name": name, **fields}`` (no ``name`` when it is
    None), where ``fields`` is what its ``_encode(encoder, where)`` method returns: a dict of
    JSON-ready values, made with the encoder's ``float``, ``array`` and ``value``. The classmethod
    ``_decode(node, decoder, where)`` rebuilds an instance from that object, checking every field
    with the decoder's ``expect``, ``float``, ``array`` and ``value``. Classes that share a tag
    (the boosting losses) are told apart by ``name``.
    """
    def register(cls):
        classes = _CLASS_OF.get(tag, {})
        # A tag holds one unnamed class, or named ones only.
        if tag in _BUILTIN_TAGS or None in classes or name in classes or (classes and not name):
            raise ValueError(f"the model schema already has the type {tag!r} {name!r}")
        _CLASS_OF[tag] = {**classes, name: cls}
        _TAG_OF[cls] = (tag, name)
        return cls

    return register


def register_estimator(cls):
    """Register an estimator class that :meth:`SaveMixin.save` writes and :func:`load` builds.

    Files name it by its class name. Its ``_check_fitted_state(decoder, where)`` (see
    :class:`SaveMixin`) checks a loaded instance.
    """
    if _ESTIMATORS.setdefault(cls.__name__, cls) is not cls:
        raise ValueError(f"two estimators are named {cls.__name__}")
    return cls


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

    def _check_fitted_state(self, decoder, where):
        """Check the invariants of a loaded fitted state that prediction relies on.

        Called by :func:`load` once the attributes are set and ``n_features_in_`` and
        ``feature_names_in_`` are checked; report a violation with ``decoder.expect``.
        """


def _digest(document):
    body = {k: v for k, v in document.items() if k != "sha256"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def to_document(estimator):
    """Return the JSON-ready dict describing a fitted estimator (see the module docstring)."""
    name = type(estimator).__name__
    if _ESTIMATORS.get(name) is not type(estimator):
        raise TypeError(f"cannot save a {name}: only dpdt's estimators can be saved")
    params = estimator.get_params(deep=False)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "dpdt_version": __version__,
        "params": {key: _ENCODER.value(value, f"parameter {key}")
                   for key, value in params.items()},
        "attributes": {key: _ENCODER.value(value, f"attribute {key}")
                       for key, value in vars(estimator).items() if key not in params},
    }
    document["sha256"] = _digest(document)
    return document


class _Encoder:
    """Turns values into their JSON form; raises TypeError for what the schema cannot hold."""

    @staticmethod
    def float(value):
        value = float(value)
        return value if math.isfinite(value) else str(value)   # "inf", "-inf", "nan"

    def array(self, array, where):
        if array.dtype.names is not None:
            return {"__type__": "records", "shape": list(array.shape),
                    "fields": [[name, array.dtype[name].str] for name in array.dtype.names],
                    "data": {name: self.array(array[name], where)["data"]
                             for name in array.dtype.names}}
        kind = array.dtype.kind
        flat = array.ravel().tolist()
        if kind == "f":
            data = [self.float(v) for v in flat]
        elif kind in "biuU":
            data = flat
        elif kind == "O" and all(isinstance(v, str | bool | Integral | Real) for v in flat):
            data = [self.value(v, where) for v in flat]
        else:
            raise TypeError(f"cannot save {where}: arrays of dtype {array.dtype} are not "
                            "supported")
        return {"__type__": "ndarray", "dtype": array.dtype.str, "shape": list(array.shape),
                "data": data}

    def value(self, value, where):
        # numpy scalars first: np.float64 and np.str_ are also float and str.
        if isinstance(value, np.generic):
            item = value.item()
            if not isinstance(item, bool | int | float | str):
                raise TypeError(f"cannot save {where}: numpy scalars of dtype {value.dtype} are "
                                "not supported")
            return {"__type__": "scalar", "dtype": value.dtype.str,
                    "value": self.float(item) if isinstance(item, float) else item}
        if value is None or isinstance(value, bool | str | int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"__type__": "float", "value": str(value)}
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, list):
            return [self.value(v, where) for v in value]
        if isinstance(value, tuple):
            return {"__type__": "tuple", "items": [self.value(v, where) for v in value]}
        if isinstance(value, range):
            return {"__type__": "range", "start": value.start, "stop": value.stop,
                    "step": value.step}
        if isinstance(value, dict):
            return {"__type__": "dict",
                    "items": [[self.value(k, where), self.value(v, where)]
                              for k, v in value.items()]}
        registered = next((cls for cls in type(value).__mro__ if cls in _TAG_OF), None)
        if registered is not None:
            tag, name = _TAG_OF[registered]
            head = {"__type__": tag} if name is None else {"__type__": tag, "name": name}
            return {**head, **value._encode(self, where)}
        if isinstance(value, SaveMixin):
            return {"__type__": "estimator", "document": to_document(value)}
        raise TypeError(f"cannot save {where}: values of type {type(value).__name__} are not "
                        "supported by the model schema")


_ENCODER = _Encoder()


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

    def value(self, node, where):
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
        if kind in _CLASS_OF:
            classes = _CLASS_OF[kind]
            name = node.get("name") if None not in classes else None
            self.expect(isinstance(name, str | None) and name in classes,
                        f"{where}: unknown {kind} {name!r}")
            return classes[name]._decode(node, self, where)
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
        name = document.get("estimator")
        self.expect(isinstance(name, str) and name in _ESTIMATORS,
                    f"{where}: unknown estimator {name!r} "
                    f"(known: {', '.join(sorted(_ESTIMATORS))})")
        cls = _ESTIMATORS[name]
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
        """Check the cross-attribute invariants that prediction relies on.

        The features here; the rest is the estimator's own ``_check_fitted_state``.
        """
        n_features = getattr(estimator, "n_features_in_", None)
        self.expect(isinstance(n_features, int) and n_features >= 1,
                    f"{where}: missing n_features_in_")
        names = getattr(estimator, "feature_names_in_", None)
        self.expect(names is None or (isinstance(names, np.ndarray)
                                      and names.shape == (n_features,)),
                    f"{where}: feature_names_in_ does not match n_features_in_")
        estimator._check_fitted_state(self, where)


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
