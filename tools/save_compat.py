"""Check that model files keep their format across a refactor, on every fit of fingerprint.py.

With the old build, save each case::

    python tools/save_compat.py save DIR

(writes DIR/<case>.json and DIR/<case>.npz, its predictions on held-out rows). With the new
build::

    python tools/save_compat.py compare DIR

fits each case again and saves it: the file must be byte-identical to DIR's, and DIR's file must
load and predict bitwise as the old build did. The seconds a search took are set to 0 before
saving, in both runs; files that still differ only in ``stats_`` (search counters, which threads
make vary) are reported as such. Exit 1 on any other difference.
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fingerprint  # noqa: E402

import dpdt  # noqa: E402

_METHODS = ("predict", "predict_proba", "decision_function", "apply")


def _predictions(estimator, X):
    out = {}
    for method in _METHODS:
        if hasattr(estimator, method):
            try:
                out[method] = np.asarray(getattr(estimator, method)(X))
            except (AttributeError, ValueError, NotImplementedError):
                pass
    return out


def _zero_seconds(value):
    """Set the seconds of every search, nested estimators included, to 0.0."""
    if hasattr(value, "get_params"):
        stats = vars(value).get("stats_")
        if isinstance(stats, dict) and "seconds" in stats:
            stats["seconds"] = 0.0
        values = vars(value).values()
    elif isinstance(value, dict):
        values = value.values()
    elif isinstance(value, list | tuple):
        values = value
    else:
        return
    for item in values:
        _zero_seconds(item)


def _without_stats(text):
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("stats_", "sha256")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(json.loads(text))


def _fits():
    for name, estimator, X, y, kwargs in fingerprint._cases():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(X[:240], y[:240], **{k: v[:240] for k, v in kwargs.items()})
        _zero_seconds(estimator)
        yield name, estimator, X[240:]


def main(argv):
    """Save the cases (``save DIR``) or compare them with the files in DIR (``compare DIR``)."""
    if len(argv) != 3 or argv[1] not in ("save", "compare"):
        print(__doc__)
        return 2
    mode, folder = argv[1:]
    os.makedirs(folder, exist_ok=True)
    identical = differ = loads = 0
    for name, estimator, X in _fits():
        path = os.path.join(folder, name + ".json")
        if mode == "save":
            estimator.save(path)
            np.savez(os.path.join(folder, name + ".npz"), **_predictions(estimator, X))
            continue
        new = os.path.join(folder, name + ".new.json")
        estimator.save(new)
        with open(path) as fh:
            old_text = fh.read()
        with open(new) as fh:
            new_text = fh.read()
        if old_text == new_text:
            identical += 1
        elif _without_stats(old_text) == _without_stats(new_text):
            identical += 1
            print(f"{name}: identical but for stats_ (search counters)")
        else:
            differ += 1
            print(f"DIFFERS {name}")
        want = np.load(os.path.join(folder, name + ".npz"))
        got, mine = _predictions(dpdt.load(path), X), _predictions(estimator, X)
        if set(got) == set(want.files) and all(
                np.array_equal(got[m], want[m]) and got[m].dtype == want[m].dtype
                and np.array_equal(mine[m], want[m]) for m in got):
            loads += 1
        else:
            differ += 1
            print(f"PREDICTIONS DIFFER {name}")
    if mode == "compare":
        print(f"files: {identical} identical, {differ} differ; old files loading and predicting "
              f"bitwise equal: {loads}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
