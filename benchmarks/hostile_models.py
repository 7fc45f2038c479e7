"""Hostile model files: what ``dpdt.load`` and ``predict`` do with crafted files, and their memory.

Each probe edits a valid saved model (the checksum recomputed, as anyone can) or writes raw
bytes, then loads it in a fresh interpreter under an address-space limit and predicts on a few
rows. A probe holds when loading raises ValueError, or when the model loads and predicts with
the right shape, with a peak memory within ``MEMORY_FACTOR`` times the file's size of what
loading an honest model takes; anything else (another exception, a crash, the limit reached,
more memory) fails it. The table gives each probe's outcome and the child's peak resident
memory beside the file's size.

Run ``python benchmarks/hostile_models.py [--limit-gb 4]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
from sklearn.datasets import load_iris

from _common import verdict
from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
)
from dpdt._io import _digest

_CHILD = textwrap.dedent("""
    import resource, sys, numpy as np
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import dpdt
    outcome = "?"
    try:
        try:
            model = dpdt.load(sys.argv[1])
        except ValueError as exc:
            outcome = "ValueError: " + str(exc).split("invalid dpdt model file: ")[-1][:60]
        else:
            X = np.zeros((5, model.n_features_in_))
            y = model.predict(X)
            assert len(y) == 5, y.shape
            outcome = "loaded, predicted"
    except BaseException as exc:
        outcome = "FAIL " + type(exc).__name__ + ": " + str(exc)[:60]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(outcome.replace("\\n", " ") + "|" + str(peak))
""")


def _models():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    return {
        "tree": DPDTreeClassifier(max_depth=2).fit(X, names),
        "boosting": DPDTGradientBoostingClassifier(n_estimators=2, max_depth=2).fit(X, y),
        "cv": DPDTreeRegressorCV(max_depths=[1, 2], cv=2).fit(X[:, :3], X[:, 3]),
        "branches": BranchesClassifier(lam=0.05, max_bins=3).fit(X, names),
        "multiway": MultiwayGreedyClassifier(max_bins=3).fit(X, y),
    }


def _attr(name, key, edit):
    """A probe editing attribute ``key`` of model ``name`` with ``edit(value) -> value``."""
    def probe(documents):
        document = json.loads(json.dumps(documents[name]))
        document["attributes"][key] = edit(document["attributes"].get(key))
        return document
    return probe


def _set(node, **fields):
    return {**node, **fields}


def _deep(depth):
    return lambda documents: "[" * depth + "]" * depth


def _nested_document(depth):
    def probe(documents):
        document = json.loads(json.dumps(documents["tree"]))
        inner = 0
        for _ in range(depth):
            inner = [inner]
        document["attributes"]["stats_"] = inner
        return document
    return probe


def _tree_edit(edit):
    def probe(documents):
        document = json.loads(json.dumps(documents["tree"]))
        edit(document["attributes"]["trees_"][0])
        return document
    return probe


def _multiway_edit(edit):
    def probe(documents):
        document = json.loads(json.dumps(documents["branches"]))
        edit(document["attributes"]["tree_"])
        return document
    return probe


def _raw(make):
    return lambda documents: make(json.dumps(documents["tree"]))


_WIDE = "<U200000000"
MEMORY_FACTOR = 64
PROBES = {
    "classes_ declared <U200000000": _attr("tree", "classes_", lambda a: _set(a, dtype=_WIDE)),
    "scalar of dtype <U200000000": _attr(
        "tree", "extra_", lambda a: {"__type__": "scalar", "dtype": _WIDE, "value": "a"}),
    "subarray dtype (10**8,)f8": _attr(
        "tree", "extra_",
        lambda a: {"__type__": "scalar", "dtype": "(100000000,)f8", "value": 0.0}),
    "void dtype |V800000000": _attr("tree", "classes_", lambda a: _set(a, dtype="|V800000000")),
    "bytes dtype |S800000000": _attr("tree", "classes_", lambda a: _set(a, dtype="|S800000000")),
    "complex dtype": _attr("tree", "_front_impurity", lambda a: _set(a, dtype="<c16")),
    "datetime dtype": _attr("tree", "_front_impurity", lambda a: _set(a, dtype="<M8[ns]")),
    "object array of arrays": _attr(
        "tree", "classes_", lambda a: _set(a, dtype="|O", data=[
            {"__type__": "ndarray", "dtype": "<f8", "shape": [1], "data": [0.0]}] * 3)),
    "records field <U200000000": _attr(
        "tree", "pareto_front_",
        lambda a: _set(a, fields=[[f, _WIDE if f == "alpha_min" else d] for f, d in a["fields"]])),
    "records duplicate field": _attr(
        "tree", "pareto_front_", lambda a: _set(a, fields=a["fields"] + [a["fields"][0]])),
    "shape of 40 dimensions": _attr(
        "tree", "_front_impurity",
        lambda a: _set(a, shape=[len(a["data"])] + [1] * 40)),
    "shape of a huge product, no data": _attr(
        "tree", "_front_impurity", lambda a: _set(a, shape=[0, 10**18, 10**18], data=[])),
    "int of 5000 digits": _attr(
        "tree", "_front_impurity", lambda a: _set(a, data=[10**4999] + a["data"][1:])),
    "int of 400 digits in a float array": _attr(
        "tree", "_front_impurity", lambda a: _set(a, data=[10**400] + a["data"][1:])),
    "JSON nested 100 000 deep": _deep(100_000),
    "JSON nested 900 deep": _deep(900),
    "attribute nested 300 deep": _nested_document(300),
    "attribute nested 5 000 deep": _nested_document(5_000),
    "truncated file": _raw(lambda text: text[: len(text) // 2]),
    "not UTF-8": _raw(lambda text: b"\xff\xfe" + text.encode()),
    "NaN literal": _raw(lambda text: text.replace('"max_depth": 2', '"max_depth": NaN')),
    "empty file": _raw(lambda text: ""),
    "value width != classes_": _tree_edit(lambda t: t["value"].update(
        shape=t["value"]["shape"][:2] + [2],
        data=t["value"]["data"][: t["value"]["shape"][0] * 2])),
    "tree arrays of different lengths": _tree_edit(lambda t: t["impurity"].update(
        shape=[1], data=t["impurity"]["data"][:1])),
    "tree child index huge": _tree_edit(lambda t: t["children_right"]["data"].__setitem__(
        0, 10**18)),
    "tree n_features 10**9": _tree_edit(lambda t: t.update(n_features=10**9)),
    "n_features_in_ 10**9": _attr("tree", "n_features_in_", lambda a: 10**9),
    "feature_names_in_ too short": _attr(
        "tree", "n_features_in_", lambda a: a),  # replaced below
    "front losses NaN": _attr("tree", "pareto_front_", lambda a: {
        **a, "data": {**a["data"], "train_loss": ["nan"] * len(a["data"]["train_loss"])}}),
    "front with no selectable tree": _attr("tree", "pareto_front_", lambda a: {
        **a, "data": {**a["data"], "alpha_min": ["nan"] * len(a["data"]["alpha_min"])}}),
    "front as object numbers": _attr(
        "tree", "_front_n_splits", lambda a: _set(a, dtype="|O")),
    "attribute shadows predict": _attr("tree", "classes_", lambda a: a),  # replaced below
    "multiway edge category 10**12": _multiway_edit(
        lambda t: t["edge_category"]["data"].__setitem__(0, 10**12)),
    "multiway value width != classes_": _multiway_edit(lambda t: t["value"].update(
        shape=[t["value"]["shape"][0], 1], data=t["value"]["data"][: t["value"]["shape"][0]])),
    "boosting init_raw_ != loss": _attr(
        "boosting", "init_raw_", lambda a: _set(a, shape=[1], data=a["data"][:1])),
    "cv max_depths range(10**30)": lambda documents: _param(
        documents["cv"], "max_depths", {"__type__": "range", "start": 0, "stop": 10**30,
                                        "step": 1}),
}


def _param(document, key, value):
    document = json.loads(json.dumps(document))
    document["params"][key] = value
    return document


def _shadow(documents):
    document = json.loads(json.dumps(documents["tree"]))
    document["attributes"]["predict"] = 1
    return document


def _short_names(documents):
    document = json.loads(json.dumps(documents["tree"]))
    document["attributes"]["feature_names_in_"] = {
        "__type__": "ndarray", "dtype": "|O", "shape": [1], "data": ["a"]}
    return document


PROBES["attribute shadows predict"] = _shadow
PROBES["feature_names_in_ too short"] = _short_names


def main(argv=None):
    """Print the outcome and peak memory of each probe, and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-gb", type=float, default=4.0,
                        help="address-space limit of each child (default 4)")
    args = parser.parse_args(argv)
    limit = int(args.limit_gb * 2**30)
    # Only to write the probes (deep lists, long integers); the children keep Python's defaults.
    sys.set_int_max_str_digits(0)
    sys.setrecursionlimit(30_000)
    directory = tempfile.mkdtemp()
    documents = {}
    for name, model in _models().items():
        path = os.path.join(directory, f"{name}.json")
        model.save(path)
        with open(path) as fh:
            documents[name] = json.load(fh)
    child = _CHILD.format(limit=limit)
    print("| probe | file KB | outcome | peak MB |\n|---|---:|---|---:|")
    failures = []
    baseline = None
    for name, make in {"honest model": lambda documents: documents["tree"], **PROBES}.items():
        content = make(documents)
        if isinstance(content, dict):
            content["sha256"] = _digest(content)
            content = json.dumps(content)
        path = os.path.join(directory, "probe.json")
        with open(path, "wb") as fh:
            fh.write(content if isinstance(content, bytes) else content.encode())
        proc = subprocess.run([sys.executable, "-c", child, path], capture_output=True,
                              text=True)
        line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        outcome, _, peak = line.rpartition("|")
        if proc.returncode != 0 or not outcome:
            outcome, peak = f"FAIL exit {proc.returncode}", "-"
        size = os.path.getsize(path)
        if baseline is None:
            baseline = int(peak)
        elif peak != "-" and int(peak) > baseline + MEMORY_FACTOR * size / 2**20 + 1:
            outcome = f"FAIL memory ({outcome})"
        if outcome.startswith("FAIL"):
            failures.append(name)
        print(f"| {name} | {size / 1024:.1f} | {outcome} | {peak} |")
    print(f"\n{len(PROBES)} probes, {len(PROBES) - len(failures)} held, {len(failures)} failed")
    print(verdict(not failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
