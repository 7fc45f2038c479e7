"""Fingerprints of many fits, to check that a refactor changes no tree, front or prediction.

    python tools/fingerprint.py record before.json     # with the code as it was
    python tools/fingerprint.py compare before.json    # after each step: exit 1 on any difference

Every case fits one estimator and hashes (SHA-256 of dtype, shape and bytes) each public
fitted attribute (``trees_``, ``pareto_front_``, ``estimators_``, ...) and each prediction method
on held-out rows, so a difference names the case and the attribute. Bitwise equality is the
test: a refactor that only moves code must not move a single bit. Timings and search
statistics are left out.
"""

import hashlib
import json
import sys
import warnings

import numpy as np
from sklearn.datasets import make_classification, make_regression

import dpdt

_SKIPPED_ATTRIBUTES = {"stats_", "n_iter_", "train_score_", "fit_seconds_"}


def _hash(value, h):
    if isinstance(value, np.ndarray):
        h.update(f"array{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes() if value.dtype != object else repr(
            value.tolist()).encode())
    elif isinstance(value, (list, tuple)):
        h.update(f"seq{len(value)}".encode())
        for item in value:
            _hash(item, h)
    elif isinstance(value, dict):
        h.update(f"dict{len(value)}".encode())
        for key in sorted(value, key=str):
            h.update(str(key).encode())
            _hash(value[key], h)
    elif isinstance(value, (bool, int, float, str, type(None), np.generic)):
        h.update(repr(value).encode())
    elif hasattr(value, "get_params"):   # an estimator inside another
        _hash(_public_state(value), h)
    elif hasattr(value, "__dict__"):     # Tree, MultiwayTree, category codes, losses
        h.update(type(value).__name__.encode())
        _hash({k: v for k, v in vars(value).items() if not k.startswith("_")}, h)
    else:
        h.update(repr(value).encode())


def _digest(value):
    h = hashlib.sha256()
    _hash(value, h)
    return h.hexdigest()[:16]


def _public_state(estimator):
    return {k: v for k, v in vars(estimator).items()
            if k.endswith("_") and not k.startswith("_") and k not in _SKIPPED_ATTRIBUTES}


def _fingerprint(estimator, X_test):
    out = {name: _digest(value) for name, value in sorted(_public_state(estimator).items())}
    for method in ("predict", "predict_proba", "decision_function", "apply"):
        if hasattr(estimator, method):
            try:
                out[method] = _digest(getattr(estimator, method)(X_test))
            except (AttributeError, ValueError, NotImplementedError) as error:
                out[method] = f"raises {type(error).__name__}"
    return out


def _data():
    Xc, yc = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3,
                                 n_clusters_per_class=1, random_state=0)
    Xc = np.round(Xc, 2)   # ties between thresholds
    Xr, yr = make_regression(n_samples=300, n_features=5, noise=5.0, random_state=1)
    rng = np.random.RandomState(2)
    Xnan = Xc.copy()
    Xnan[rng.rand(*Xnan.shape) < 0.1] = np.nan
    weight = rng.randint(0, 4, size=len(yc)).astype(float)
    Xcat = rng.randint(0, 4, size=(300, 5))
    ycat = (Xcat[:, 0] == Xcat[:, 1]) ^ (Xcat[:, 2] > 1)
    yr2 = np.column_stack([yr, yr ** 2 / 100 + Xr[:, 0]])
    return dict(Xc=Xc, yc=yc, yb=(yc > 0).astype(int), Xr=Xr, yr=yr, yr2=yr2, Xnan=Xnan,
                weight=weight, Xcat=Xcat, ycat=ycat.astype(int))


def _cases():
    """Yield (name, estimator, X, y, fit keyword arguments)."""
    d = _data()
    C, R = dpdt.DPDTreeClassifier, dpdt.DPDTreeRegressor
    for splitter in ("auto", "cart", "exhaustive", "quantile", "topk", "topb", "lookahead",
                     "screen"):
        depth = 2 if splitter == "exhaustive" else 3
        yield f"clf-{splitter}", C(max_depth=depth, splitter=splitter), d["Xc"], d["yc"], {}
        yield f"reg-{splitter}", R(max_depth=depth, splitter=splitter), d["Xr"], d["yr"], {}
    yield "clf-mixed-splitters", C(max_depth=3, splitter=("screen", "topk", "cart"),
                                   candidates=(2, 3, 4)), d["Xc"], d["yc"], {}
    for complexity in ("expected_tests", "n_splits"):
        for front in ("convex", "pareto"):
            yield (f"clf-{complexity}-{front}", C(max_depth=3, complexity=complexity, front=front),
                   d["Xc"], d["yc"], {})
            yield (f"reg-{complexity}-{front}", R(max_depth=3, complexity=complexity, front=front),
                   d["Xr"], d["yr"], {})
    yield "clf-weights", C(max_depth=3), d["Xc"], d["yc"], {"sample_weight": d["weight"]}
    yield "reg-weights", R(max_depth=3), d["Xr"], d["yr"], {"sample_weight": d["weight"]}
    yield "clf-class-weight", C(max_depth=3, class_weight="balanced"), d["Xc"], d["yb"], {}
    yield "clf-nan", C(max_depth=3), d["Xnan"], d["yc"], {}
    yield "clf-nan-binned", C(max_depth=3, max_bins=16), d["Xnan"], d["yc"], {}
    yield "clf-binned", C(max_depth=4, max_bins=8), d["Xc"], d["yc"], {}
    yield "reg-binned", R(max_depth=3, max_bins=300), d["Xr"], d["yr"], {}
    yield "reg-multioutput", R(max_depth=3), d["Xr"], d["yr2"], {}
    yield "reg-scaled", R(max_depth=3), d["Xr"], d["yr"] * 1e-7, {}
    for criterion in ("entropy", "gain_ratio"):
        yield f"clf-{criterion}", C(max_depth=3, criterion=criterion), d["Xc"], d["yc"], {}
    yield "clf-costs", C(max_depth=3, feature_costs=[1, 2, 3, 1, 1, 5]), d["Xc"], d["yc"], {}
    yield ("clf-limits", C(max_depth=4, min_samples_leaf=7, min_samples_split=20,
                           min_weight_fraction_leaf=0.01, min_impurity_decrease=0.001),
           d["Xc"], d["yc"], {})
    yield ("clf-max-features", C(max_depth=3, max_features="sqrt", random_state=3),
           d["Xc"], d["yc"], {})
    yield "clf-threads", C(max_depth=4, n_jobs=2), d["Xc"], d["yc"], {}
    yield "clf-depth5", C(max_depth=5), d["Xc"], d["yc"], {}
    yield ("clf-bounded", C(max_depth=3, splitter="exhaustive", full_front=False, alpha=0.01),
           d["Xc"], d["yc"], {})
    yield ("clf-bounded-threads", C(max_depth=3, splitter="exhaustive", full_front=False,
                                    n_jobs=2), d["Xc"], d["yc"], {})
    yield "clf-single-alpha", C(max_depth=3, full_front=False, alpha=0.02), d["Xc"], d["yc"], {}
    yield "reg-budget", R(max_depth=3, max_complexity=1.5), d["Xr"], d["yr"], {}
    yield "clf-cv", dpdt.DPDTreeClassifierCV(max_depth=3, cv=3), d["Xc"], d["yc"], {}
    yield ("clf-cv-1se", dpdt.DPDTreeClassifierCV(max_depths=range(2, 4), cv=3, selection="1se"),
           d["Xc"], d["yc"], {})
    yield "reg-cv", dpdt.DPDTreeRegressorCV(max_depth=3, cv=3), d["Xr"], d["yr"], {}
    B = dpdt.DPDTGradientBoostingClassifier
    BR = dpdt.DPDTGradientBoostingRegressor
    yield "boost-binary", B(n_estimators=15, random_state=0), d["Xc"], d["yb"], {}
    yield ("boost-multiclass", B(n_estimators=10, subsample=0.7, random_state=0, n_jobs=2),
           d["Xc"], d["yc"], {})
    yield ("boost-exact", B(n_estimators=8, max_bins=None, splitter="topk"), d["Xc"], d["yb"],
           {"sample_weight": d["weight"]})
    for loss in ("squared_error", "absolute_error", "huber"):
        yield (f"boost-reg-{loss}", BR(loss=loss, n_estimators=12, random_state=0), d["Xr"],
               d["yr"], {})
    yield ("boost-reg-early-stop", BR(n_estimators=200, n_iter_no_change=3, random_state=0),
           d["Xr"], d["yr"], {})
    yield "branches", dpdt.BranchesClassifier(lam=0.01, max_depth=3), d["Xcat"], d["ycat"], {}
    yield ("branches-weights", dpdt.BranchesClassifier(lam=0.02), d["Xcat"], d["ycat"],
           {"sample_weight": d["weight"]})
    yield ("branches-float", dpdt.BranchesClassifier(lam=0.01, max_depth=2, max_bins=4),
           d["Xc"], d["yc"], {})
    for criterion in ("gain_ratio", "entropy"):
        yield (f"multiway-{criterion}", dpdt.MultiwayGreedyClassifier(criterion=criterion,
                                                                      max_depth=3),
               d["Xcat"], d["ycat"], {})


def run():
    """Fit every case; return {case: {attribute or method: digest}}."""
    results = {}
    for name, estimator, X, y, fit_kwargs in _cases():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(X[:240], y[:240], **{k: v[:240] for k, v in fit_kwargs.items()})
            results[name] = _fingerprint(estimator, X[240:])
            alphas = getattr(estimator, "pareto_front_", {"alpha_min": []})["alpha_min"]
            alphas = [a for a in alphas if np.isfinite(a) and a > 0]
            if getattr(estimator, "full_front", False) and alphas:
                # Another tree of the front, chosen without refitting.
                estimator.set_params(alpha=float(alphas[0]))
                results[name]["predict@alpha1"] = _digest(estimator.predict(X[240:]))
    return results


def main(argv):
    """Record or compare the fingerprints; return the exit status."""
    if len(argv) != 3 or argv[1] not in ("record", "compare"):
        print(__doc__)
        return 2
    results = run()
    if argv[1] == "record":
        with open(argv[2], "w") as fh:
            json.dump(results, fh, indent=1, sort_keys=True)
        print(f"recorded {len(results)} fits, "
              f"{sum(len(v) for v in results.values())} fingerprints")
        return 0
    with open(argv[2]) as fh:
        expected = json.load(fh)
    differences = [(case, key, expected.get(case, {}).get(key), got)
                   for case, values in results.items() for key, got in values.items()
                   if expected.get(case, {}).get(key) != got]
    missing = sorted(set(expected) - set(results))
    for case, key, want, got in differences:
        print(f"DIFFERS {case}.{key}: {want} -> {got}")
    for case in missing:
        print(f"MISSING {case}")
    n = sum(len(v) for v in results.values())
    print(f"{len(results)} fits, {n} fingerprints: {len(differences)} differ, "
          f"{len(missing)} cases missing")
    return 1 if differences or missing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
