"""Saving fitted estimators to a versioned JSON schema, and loading them back.

A model file is one JSON object::

    {"format": "dpdt-model", "version": 1, "estimator": "DPDTreeClassifier",
     "dpdt_version": "0.1.0", "params": {...}, "attributes": {...}, "sha256": "..."}

``params`` are the constructor arguments, ``attributes`` the fitted state (every attribute
that is not a parameter, including the whole Pareto front and its trees). Values that JSON
has no type for are tagged objects ``{"__type__": name, ...}``: ndarray, tuple, dict, float
(non-finite), scalar (numpy), range, series (a pandas Series given as a parameter, such as
``monotonic_cst`` by feature name), estimator (fitted, or a meta-estimator's unfitted
parameter), and the tags of the types registered with :func:`register_type` (Tree,
MultiwayTree, CategoryCodes, OneHotColumns, loss). ``sha256`` is the digest of the canonical
JSON of everything else, so that a file corrupted or cut short after saving is refused. It is
a checksum, not a signature: anyone can edit a file and write the new digest. So the decoder
trusts nothing in the file: every dtype is one of a fixed list, every declared shape must match
the values present and the arrays it must agree with, and the arrays of a file may take at
most a fixed multiple of its size (:data:`_BYTES_PER_FILE_BYTE`).

This module depends on no estimator: each class says how it is written, read back and checked,
and registers itself here (:func:`register_type`, :func:`register_estimator`). Loading only ever
builds registered types, from these fixed registries: nothing in the file is imported, evaluated
or unpickled.
"""

import hashlib
import importlib
import json
import math
import os
import re
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._version import __version__

FORMAT = "dpdt-model"
VERSION = 1

# The dtypes a file may declare: those dpdt writes. Fixed-size numbers and booleans; strings,
# no wider than their longest value or _STRING_SLACK characters; object arrays of JSON scalars
# (scikit-learn's feature_names_in_, labels from pandas). No subarrays, bytes, void or dates;
# structured arrays are the "records" tag, of named numeric fields.
_NUMERIC_DTYPE = re.compile(r"[<>|=]?(?:b1|[iuf][1248])")
_STRING_DTYPE = re.compile(r"[<>|=]?U([1-9][0-9]{0,8})")
_OBJECT_DTYPE = "|O"
_STRING_SLACK = 64
_MAX_NDIM = 8
_KIND_NAMES = {None: "", "f": "floats", "i": "integers", "iu": "integers", "ub": "booleans",
               "iuf": "numbers", "U": "strings"}
# JSON nesting: a saved CV model nests 12 levels. Deeper files are refused before parsing, so
# neither the parser nor the decoder can run out of stack.
_MAX_DEPTH = 32
# The arrays of a file may take this many bytes per byte of the file, plus _BYTES_ALWAYS. A JSON
# number takes 2 bytes or more and an array element 8 at most: honest files use a quarter of it.
_BYTES_PER_FILE_BYTE = 8
_BYTES_ALWAYS = 1 << 20
# Each feature a model declares is charged this much to the same budget: what an operation on
# the model may allocate per feature (feature_importances_, the names exports print), whether or
# not the file names the features. A file cannot declare 10**8 features in a few bytes.
_BYTES_PER_FEATURE = 8
_BUILTIN_TAGS = {"ndarray", "records", "float", "scalar", "tuple", "range", "dict", "estimator"}

# The registries: which classes a file may hold, by tag (and name), and which estimators.
_TAG_OF = {}          # class -> (tag, name or None)
_CLASS_OF = {}        # tag -> {name or None: class}
_ESTIMATORS = {}      # class name -> estimator class
# Estimators registered by modules dpdt does not import itself (their dependencies are optional):
# a file naming one imports its module, from this fixed table.
_OPTIONAL_MODULES = {"DaskDPDTreeClassifier": "dpdt.dask", "DaskDPDTreeRegressor": "dpdt.dask",
                     "DaskDPDTreePolicy": "dpdt.dask"}


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
            whole fitted state (for DPDT trees, every tree of the Pareto front), and a SHA-256
            checksum of it. The checksum detects accidental corruption and truncation; it is
            not a signature (anyone can edit the file and recompute it). :func:`dpdt.load`
            never executes anything from a file and bounds its memory by the file's size.

        Returns
        -------
        self : estimator
            The estimator, unchanged.

        Raises
        ------
        ValueError
            If a parameter is invalid (the error ``fit`` would raise), or if the fitted state
            is not one :func:`dpdt.load` accepts, such as a model of more features than its
            file may declare (see :func:`dpdt.load`; fit on a DataFrame, whose column names
            the file then holds); nothing is written then.

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
        # The checks fit makes of the parameters (set_params may have changed them since), so
        # that an invalid value is the error fit would raise, not a file load refuses.
        self._validate_params()
        text = json.dumps(to_document(self), separators=(",", ":"), allow_nan=False) + "\n"
        # Read back as load reads it, before anything is written: a file that load would refuse
        # (a fitted state no fit makes, a model larger than its file may declare) is never saved.
        _decode(text, f"cannot save {type(self).__name__} to {os.fspath(path)}: the file would "
                      "not load")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
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
        if _is_series(value):
            # Its labels are part of its meaning (monotonic_cst reads them as feature names).
            return {"__type__": "series", "index": self.array(np.asarray(value.index), where),
                    "values": self.array(value.to_numpy(), where)}
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


def _is_series(value):
    """Return whether ``value`` is a pandas Series (without importing pandas)."""
    return any(cls.__name__ == "Series" and cls.__module__.startswith("pandas")
               for cls in type(value).__mro__)


class _Decoder:
    """Rebuilds values from their JSON form, checking every type and shape on the way.

    ``budget`` is the number of bytes the file's arrays may still take: each array is charged
    before it is allocated, so a file cannot make the loader allocate more than its share.
    """

    def __init__(self, path, budget=math.inf, prefix=None):
        self.path = path
        self.budget = budget
        self.prefix = prefix or f"{path}: invalid dpdt model file"
        # The most features charged so far: nested models (a CV's refits) share theirs.
        self.features = 0

    def fail(self, message):
        raise ValueError(f"{self.prefix}: {message}")

    def expect(self, condition, message):
        if not condition:
            self.fail(message)

    def allocate(self, nbytes, where):
        """Charge ``nbytes`` of array memory to the file's budget (before allocating it)."""
        self.expect(nbytes <= self.budget,
                    f"{where}: its arrays would take more memory than a model file of this size "
                    f"holds ({_BYTES_PER_FILE_BYTE} bytes per byte of the file)")
        self.budget -= nbytes

    def float(self, value, where):
        if isinstance(value, str) and value in ("inf", "-inf", "nan"):
            return float(value)
        self.expect(isinstance(value, int | float) and not isinstance(value, bool),
                    f"{where}: expected a number, got {value!r:.40}")
        try:
            return float(value)
        except OverflowError:
            self.fail(f"{where}: an integer of {len(str(value))} digits does not fit a float")

    def dtype(self, text, where):
        """Return the dtype a file declares, if it is one dpdt writes (see _NUMERIC_DTYPE)."""
        self.expect(isinstance(text, str)
                    and (_NUMERIC_DTYPE.fullmatch(text) or _STRING_DTYPE.fullmatch(text)
                         or text == _OBJECT_DTYPE),
                    f"{where}: dtype {text!r:.40} is not allowed")
        return np.dtype(text)

    def array(self, node, where, kinds=None):
        """Rebuild an array; ``kinds``: the dtype kinds (``np.dtype.kind``) allowed, if not all."""
        self.expect(isinstance(node, dict) and node.get("__type__") in ("ndarray", "records"),
                    f"{where}: expected an array")
        shape = node.get("shape")
        self.expect(isinstance(shape, list) and len(shape) <= _MAX_NDIM
                    and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                            for n in shape), f"{where}: bad shape {shape!r:.60}")
        size = math.prod(shape)
        if node["__type__"] == "records":
            fields, data = node.get("fields"), node.get("data")
            self.expect(isinstance(fields, list) and isinstance(data, dict)
                        and all(isinstance(f, list) and len(f) == 2 and isinstance(f[0], str)
                                and f[0].isidentifier() and isinstance(f[1], str)
                                and _NUMERIC_DTYPE.fullmatch(f[1])
                                for f in fields)
                        and len(data) == len(fields) == len({f[0] for f in fields})
                        and all(f[0] in data for f in fields),
                        f"{where}: bad record fields")
            columns = {name: self.array({"__type__": "ndarray", "dtype": dtype, "shape": shape,
                                         "data": data[name]}, f"{where}.{name}")
                       for name, dtype in fields}
            dtype = np.dtype([(name, columns[name].dtype) for name, _ in fields])
            self.allocate(size * dtype.itemsize, where)
            array = np.empty(shape, dtype=dtype)
            for name, column in columns.items():
                array[name] = column
            self.budget += sum(column.nbytes for column in columns.values())   # freed on return
            return array
        data = node.get("data")
        self.expect(isinstance(data, list) and len(data) == size,
                    f"{where}: the shape {shape} needs {size} values")
        dtype = self.dtype(node.get("dtype"), where)
        self.expect(kinds is None or dtype.kind in kinds,
                    f"{where}: dtype {dtype} where {_KIND_NAMES[kinds]} are expected")
        if dtype.kind == "f":
            data = [self.float(v, where) for v in data]
        elif dtype.kind == "O":
            self.expect(all(isinstance(v, str | int | float) or (
                isinstance(v, dict) and v.get("__type__") in ("float", "scalar")) for v in data),
                f"{where}: object arrays hold numbers and strings only")
            data = [self.value(v, where) for v in data]
        elif dtype.kind == "U":
            self.expect(all(isinstance(v, str) for v in data), f"{where}: expected strings")
            # As wide as the longest string (numpy's choice), or a little wider (a label array
            # keeps the width of y's dtype): never a width that the values do not fill.
            longest = max(map(len, data), default=0)
            width = dtype.itemsize // 4
            self.expect(longest <= width <= max(longest, _STRING_SLACK),
                        f"{where}: dtype {dtype} for strings of at most {longest} characters")
        elif dtype.kind == "b":
            self.expect(all(isinstance(v, bool) for v in data), f"{where}: expected booleans")
        else:
            self.expect(all(isinstance(v, int) and not isinstance(v, bool) for v in data),
                        f"{where}: expected integers")
        self.allocate(size * dtype.itemsize, where)
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
            self.expect(node.get("dtype") != _OBJECT_DTYPE, f"{where}: bad scalar dtype")
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
        if kind == "series":
            index, values = (self.value(node.get(key), where) for key in ("index", "values"))
            self.expect(isinstance(index, np.ndarray) and isinstance(values, np.ndarray)
                        and index.ndim == values.ndim == 1 and len(index) == len(values),
                        f"{where}: bad series")
            try:
                import pandas as pd
            except ImportError:
                self.fail(f"{where}: holds a pandas Series, and pandas is not installed")
            return pd.Series(values, index=index)
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
                    f"{where}: checksum mismatch, the file was damaged, cut short or edited "
                    "after it was saved")
        name = document.get("estimator")
        if isinstance(name, str) and name in _OPTIONAL_MODULES and name not in _ESTIMATORS:
            try:
                importlib.import_module(_OPTIONAL_MODULES[name])
            except ImportError as error:
                self.fail(f"{where}: {name} needs {_OPTIONAL_MODULES[name]}, which cannot be "
                          f"imported: {error}")
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
        # Numpy scalars as Python numbers: files of earlier versions hold the np.float64 alpha
        # select_tree set, which get_params and repr would show.
        estimator = cls(**{k: _plain(self.value(v, f"parameter {k}")) for k, v in params.items()})
        try:
            estimator._validate_params()
        except (TypeError, ValueError) as exc:
            self.fail(f"{where}: {exc}")
        for key, value in attributes.items():
            # Not a name of the class: an attribute must not hide a method or a property.
            self.expect(isinstance(key, str) and key.isidentifier() and not key.startswith("__")
                        and key not in known and not hasattr(cls, key),
                        f"{where}: bad attribute name {key!r:.60}")
            setattr(estimator, key, self.value(value, f"attribute {key}"))
        # An estimator without fitted attributes is a meta-estimator's parameter (the model
        # it fits, unfitted); a file's own estimator is fitted (save refuses any other).
        self.expect(attributes or where != "model", f"{where}: the estimator is not fitted")
        if attributes:
            self.check_fitted_state(estimator, where)
        return estimator

    def check_fitted_state(self, estimator, where):
        """Check the cross-attribute invariants that prediction relies on.

        The features here; the rest is the estimator's own ``_check_fitted_state``.
        """
        n_features = getattr(estimator, "n_features_in_", None)
        self.expect(isinstance(n_features, int) and n_features >= 1,
                    f"{where}: missing n_features_in_")
        if n_features > self.features:
            self.expect(_BYTES_PER_FEATURE * (n_features - self.features) <= self.budget,
                        f"{where}: n_features_in_={n_features} is more features than a model "
                        f"file of this size may declare ({_BYTES_PER_FEATURE} bytes of the "
                        f"budget of {_BYTES_PER_FILE_BYTE} bytes per byte of the file, plus "
                        f"{_BYTES_ALWAYS >> 20} MiB, per feature; a model fit on a DataFrame "
                        "holds its features' names, which pay for them)")
            self.budget -= _BYTES_PER_FEATURE * (n_features - self.features)
            self.features = n_features
        names = getattr(estimator, "feature_names_in_", None)
        self.expect(names is None or (isinstance(names, np.ndarray)
                                      and names.shape == (n_features,)),
                    f"{where}: feature_names_in_ does not match n_features_in_")
        self.expect(names is None or all(isinstance(name, str) for name in names),
                    f"{where}: feature_names_in_ holds names that are not strings")
        classes, n_classes = (vars(estimator).get(key) for key in ("classes_", "n_classes_"))
        self.expect(n_classes is None or (isinstance(classes, np.ndarray) and classes.ndim == 1
                                          and n_classes == len(classes)),
                    f"{where}: n_classes_ does not match classes_")
        estimator._check_fitted_state(self, where)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def load(path):
    """Load an estimator saved with ``estimator.save(path)``.

    Loading never executes anything: the file is JSON, and only dpdt's own estimators and
    types are built from it (nothing is imported, evaluated or unpickled). The file is
    validated against the versioned schema: its format and version, its checksum, the
    estimator's name and parameters, and every fitted array: its dtype (fixed-size numbers,
    booleans, strings no wider than needed), its shape against the values present and against
    the arrays it must agree with (tree structure, node counts, classes, features), before
    anything is allocated. The memory it takes is bounded by the file's size: the arrays at most
    8 bytes per byte of the file plus 1 MiB, the whole load (the JSON parse's Python objects
    included) under 64 times the file's size plus a few MiB. The features a model declares are
    charged 8 bytes each to the same budget, so that no operation on the loaded model
    (exports, ``feature_importances_``) costs more than the file pays for: a model may declare
    about 130 000 features more than its file's size in bytes (a model fit on a DataFrame
    holds the names, which pay for more). JSON nested deeper than 32 levels is refused before
    it is parsed. Every number is one a fit can write: class fractions in [0, 1] summing to 1,
    finite leaf values, thresholds and starting scores, boosting's trees summing within
    float64, impurities, losses, complexities and alphas of the front >= 0, a cross-validated
    choice among the validation curve's rows.

    The checksum (SHA-256 of the content) detects accidental corruption and truncation. It is
    not a signature: anyone can edit a file and write a new checksum, and such a file loads if
    it is consistent. Load files from sources you trust to give the predictions you expect;
    from any other source, loading still cannot run code or exhaust memory.

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
        If the file is not UTF-8 JSON, nested deeper than 32 levels, not a dpdt model, of a
        newer schema version, damaged, or inconsistent in any way; the message names the
        problem.
    OSError
        If the file cannot be read.

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
    path = os.fspath(path)
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a dpdt model file (not UTF-8 text: {exc})") from None
    return _decode(text, f"{path}: invalid dpdt model file", path=path, size=len(raw))


def _decode(text, prefix, *, path=None, size=None):
    """Return the estimator a model file's ``text`` describes; ValueError(``prefix: ...``) if none.

    ``size`` is the file's size in bytes (the UTF-8 length of ``text`` if None), which bounds
    the memory of the arrays and the features the file may declare.
    """
    size = len(text.encode("utf-8")) if size is None else size
    where = path if path is not None else prefix
    try:
        depth = _nesting_depth(text)
        if depth > _MAX_DEPTH:
            raise ValueError(f"JSON nested {depth} levels deep; a model nests {_MAX_DEPTH} at "
                             "most")
        document = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:   # JSONDecodeError and over-long integers
        raise ValueError(f"{where}: not a dpdt model file (invalid JSON: {exc})") from None
    except MemoryError:
        raise ValueError(f"{where}: not enough memory to parse {size} bytes of JSON") from None
    decoder = _Decoder(path, budget=_BYTES_PER_FILE_BYTE * size + _BYTES_ALWAYS, prefix=prefix)
    try:
        return decoder.document(document)
    except (TypeError, IndexError, KeyError, AttributeError, OverflowError,
            ZeroDivisionError) as exc:
        # Every check above raises ValueError; this is the net under them, so that no content
        # escapes as another exception.
        raise ValueError(f"{prefix}: unexpected content "
                         f"({type(exc).__name__}: {exc})") from exc


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _nesting_depth(text):
    """Return how deep the arrays and objects of a JSON text nest, without parsing it."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).encode("ascii")
    opens = np.frombuffer(brackets, dtype=np.uint8)
    opens = (opens == ord("[")) | (opens == ord("{"))
    return int(np.cumsum(opens.astype(np.int32) * 2 - 1, dtype=np.int32).max(initial=0))


def _reject_constant(name):
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)
