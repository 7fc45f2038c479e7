"""Monotone trees on the wide corpus: dpdt against scikit-learn's and LightGBM's monotone trees.

Each set below carries the monotonic constraints a domain expert would set, written down with
the reason (``CONSTRAINTS``): the direction in which the predicted value (the probability of
the positive class, or the regression target) must move with each constrained feature. A set's
other features are free. Binary classification and regression only: scikit-learn refuses
monotonic constraints on multiclass targets.

Methods, one tree each, depth limit d, one thread:

- CART: scikit-learn's ``DecisionTreeClassifier`` / ``DecisionTreeRegressor(max_depth=d,
  monotonic_cst=..., random_state=0)``; it keeps the tree monotone by rejecting a split on a
  constrained feature whose children's values are in the wrong order, and bounding each child's
  subtree by the midpoint of the two values;
- LightGBM: one tree (``n_estimators=1, learning_rate=1, num_leaves=2**d, max_depth=d``, no
  minimum leaf size or regularisation, as in benchmarks/wide.py) with ``monotone_constraints``
  and its default ``monotone_constraints_method="basic"``;
- dpdt: ``DPDTreeClassifier`` / ``DPDTreeRegressor(max_depth=d, monotonic_cst=...)``, its
  defaults otherwise (it applies scikit-learn's rule in every state of its search);
- and the unconstrained fits of the same depth, ``dpdt free`` and ``CART free``: what the
  constraints cost in score, and in dpdt's fit time.

Missing values: scikit-learn before 1.9 refuses monotonic constraints with NaN in X, so sets
with NaN are filled with each column's training median, for every method alike.

Every returned model is probed for monotonicity: 2 000 training rows are moved along the
constrained features in their directions by random steps, and the count of rows whose
prediction moved the wrong way (beyond 1e-9) is shown; it must be 0 for the constrained
methods (the unconstrained fits' counts show that the probe finds violations where there are
some). The tests check dpdt's trees exactly, leaf pair by leaf pair (tests/test_monotone.py).

Per (set, depth, method): test and train score (accuracy or R²), leaves and fit seconds (the
median of repeated fits, as in benchmarks/wide.py). Then per depth, each method minus monotone
CART on the test and train splits (mean, worst, sets below CART: dpdt is never below on the
train split, the guarantee), the same on the credit and health sets, the fit time of dpdt
over that of its unconstrained fit (median, worst), and any constrained model the probe
caught.

Run ``python benchmarks/monotone.py [--data DIR] [--depths 3 4 5] [--sets NAME ...]``.
"""

import argparse
import statistics
import sys
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from wide import ACCURACY, DEFAULT_DATA, load, score, timed_fit

# set name -> {feature: +1 or -1, reason}. The class the probability is of is the corpus's
# class 1 (its manifest's class_names[1]).
CONSTRAINTS = {
    # card accepted
    "creditcard": {
        "reports": (-1, "more major derogatory reports never raise acceptance"),
        "income": (+1, "more income never lowers acceptance"),
        "majorcards": (+1, "holding other major cards never lowers acceptance"),
    },
    # diabetes
    "pima_diabetes": {
        "glu": (+1, "plasma glucose is the diagnostic criterion"),
        "bmi": (+1, "obesity is a risk factor"),
        "ped": (+1, "the diabetes pedigree function scores family history"),
        "age": (+1, "risk grows with age"),
    },
    # loan went bad
    "lending_club_bad": {
        "int_rate": (+1, "the rate prices the lender's own risk estimate"),
        "annual_inc": (-1, "more income never raises the risk"),
        "delinq_2yrs": (+1, "past delinquencies never lower the risk"),
        "inq_last_6mths": (+1, "credit inquiries signal need of credit"),
        "revol_util": (+1, "higher revolving utilisation never lowers the risk"),
        "acc_now_delinq": (+1, "accounts delinquent now"),
    },
    # has health insurance
    "health_insurance": {
        "age": (+1, "coverage through employers and Medicare grows with age"),
        "selfemp": (-1, "the self-employed have no employer plan"),
    },
    # biopsy malignant: nine cytology scores, each 1 (normal) to 10 (most abnormal)
    "biopsy_wbc": {f"V{k}": (+1, "a more abnormal cytology score") for k in range(1, 10)},
    # mass benign (class 1 is benign here)
    "breast_cancer_wdbc": {
        "worst radius": (-1, "larger masses are more often malignant"),
        "worst concave points": (-1, "more concave contour points are more often malignant"),
        "mean concavity": (-1, "deeper concavities are more often malignant"),
    },
    # married woman worked
    "psid1976_lfp": {
        "youngkids": (-1, "children under six keep mothers at home"),
        "education": (+1, "education raises the wage offered"),
        "nwifeinc": (-1, "the family's other income lowers the need to work"),
    },
    # weekly wage
    "cps1988_wage": {"education": (+1, "years of education")},
    # wage; education codes 0-4 are ordered levels (< HS grad ... advanced degree)
    "wage_midatlantic": {"education": (+1, "a higher degree")},
    # body weight from measurements
    "body_dims_weight": {
        name: (+1, "a larger girth or height")
        for name in ("che_gi", "wai_gi", "hip_gi", "thi_gi", "hgt")
    },
    # heating value of biomass
    "biomass_hhv": {
        "carbon": (+1, "carbon is the main fuel"),
        "hydrogen": (+1, "hydrogen burns with the highest heat per mass"),
        "oxygen": (-1, "oxygen is already oxidised fuel"),
    },
    # adult height
    "galton_heights": {
        "father": (+1, "heritability"),
        "mother": (+1, "heritability"),
        "midparentHeight": (+1, "heritability"),
    },
    # A-level chemistry score
    "chem97_alevel": {"gcsescore": (+1, "earlier attainment")},
    # vocabulary test
    "gss_vocab": {"educ": (+1, "years of education")},
    # observed precipitation
    "rain_innsbruck": {f"rainfc.{k}": (+1, "a member forecast of the same quantity")
                       for k in range(1, 12)},
}
PROBE_ROWS = 2000


def constraints_of(data, feature_names):
    """The monotonic_cst vector of a set: one entry per feature, 0 where free."""
    declared = CONSTRAINTS[data.name]
    unknown = set(declared) - set(feature_names)
    if unknown:
        raise SystemExit(f"monotone: {data.name} has no feature {sorted(unknown)}")
    return np.array([declared.get(name, (0, ""))[0] for name in feature_names], dtype=int)


def _lightgbm(classify, depth, cst):
    import lightgbm

    kind = lightgbm.LGBMClassifier if classify else lightgbm.LGBMRegressor
    return kind(n_estimators=1, learning_rate=1.0, max_depth=depth, num_leaves=2 ** depth,
                min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0, reg_lambda=0.0,
                reg_alpha=0.0, subsample=1.0, colsample_bytree=1.0, n_jobs=1, num_threads=1,
                monotone_constraints=[int(c) for c in cst], verbose=-1, random_state=0)


def _dpdt(classify, depth, cst):
    from dpdt import DPDTreeClassifier, DPDTreeRegressor

    kind = DPDTreeClassifier if classify else DPDTreeRegressor
    if "monotonic_cst" not in kind().get_params():
        raise TypeError("this dpdt has no monotonic_cst")
    return kind(max_depth=depth, monotonic_cst=cst, n_jobs=1)


def make(method, classify, depth, cst):
    cart = DecisionTreeClassifier if classify else DecisionTreeRegressor
    if method == "CART":
        return cart(max_depth=depth, monotonic_cst=cst, random_state=0)
    if method == "CART free":
        return cart(max_depth=depth, random_state=0)
    if method == "LightGBM":
        return _lightgbm(classify, depth, cst)
    if method == "dpdt free":
        return _dpdt(classify, depth, None)
    return _dpdt(classify, depth, cst)


METHODS = ("dpdt", "CART", "LightGBM", "dpdt free", "CART free")
# The unconstrained fits: what the constraints cost in score, and in time (dpdt free).
FREE = ("dpdt free", "CART free")
# The credit-scoring and medical sets, where a monotone model is the one a regulator or a
# clinician accepts.
CREDIT_AND_HEALTH = ("creditcard", "lending_club_bad", "health_insurance", "pima_diabetes",
                     "biopsy_wbc", "breast_cancer_wdbc")


def _value(model, X, classify):
    return model.predict_proba(X)[:, 1] if classify else model.predict(X)


def probe(model, X, cst, classify, seed=0):
    """Rows whose prediction moves the wrong way when moved along the constrained features."""
    rng = np.random.default_rng(seed)
    start = X[rng.integers(len(X), size=PROBE_ROWS)]
    spread = np.nanstd(X, axis=0)
    moved = start + np.abs(rng.normal(size=start.shape)) * spread * cst
    return int(np.sum(_value(model, start, classify) > _value(model, moved, classify) + 1e-9))


def n_leaves(model):
    if hasattr(model, "get_n_leaves"):
        return int(model.get_n_leaves())
    return int(model.booster_.dump_model()["tree_info"][0]["num_leaves"])


def run(sets, depths, feature_names, log=print):
    rows = []
    for data in sets:
        classify = data.score == ACCURACY
        if classify and len(np.unique(data.y_train)) > 2:
            log(f"{data.name}: skipped, multiclass")
            continue
        cst = constraints_of(data, feature_names[data.name])
        median = np.nanmedian(data.X_train, axis=0)
        X, X_test = (np.where(np.isnan(A), median, A) for A in (data.X_train, data.X_test))
        for depth in depths:
            for method in METHODS:
                try:
                    model, seconds = timed_fit(partial(make, method, classify, depth, cst), X,
                                               data.y_train)
                except (ImportError, TypeError) as error:
                    log(f"{data.name} d={depth} {method}: n/a ({error})")
                    continue
                row = dict(set=data.name, score=data.score, depth=depth, method=method,
                           seconds=seconds,
                           train=score(data, data.y_train, model.predict(X)),
                           test=score(data, data.y_test, model.predict(X_test)),
                           leaves=n_leaves(model),
                           violations=probe(model, X, cst, classify))
                rows.append(row)
                log(f"{data.name:20s} d={depth} {method:10s} train {row['train']:.4f} "
                    f"test {row['test']:.4f} leaves {row['leaves']:3d} {seconds:8.3f}s"
                    f" violations {row['violations']}")
    return rows


def _cell(row):
    if row is None:
        return "n/a"
    cell = (f"{row['test']:.4f} / {row['train']:.4f} / {row['leaves']} / "
            f"{row['seconds']:.3f} s")
    return cell + (f" / **{row['violations']} moved the wrong way**" if row["violations"] else "")


def _differences(at, method, base, field, sets=None):
    """Points of ``field`` (test or train) of ``method`` minus ``base``, per set ran by both."""
    by = {(r["set"], r["method"]): r for r in at}
    names = sorted({r["set"] for r in at if sets is None or r["set"] in sets})
    return {name: 100 * (by[name, method][field] - by[name, base][field]) for name in names
            if (name, method) in by and (name, base) in by}


def report(rows, depths, out=sys.stdout):
    """Print the tables of ``rows`` per depth, and the summary of each against monotone CART."""
    print("Each cell: test / train score (accuracy or R²) / leaves / fit seconds; a probed "
          "model whose prediction moved the wrong way for some rows says how many (the "
          "unconstrained fits show that the probe finds them). Differences are in points "
          "(hundredths) of the score.\n", file=out)
    methods = [m for m in METHODS if any(r["method"] == m for r in rows)]
    for depth in depths:
        at = [r for r in rows if r["depth"] == depth]
        by = {(r["set"], r["method"]): r for r in at}
        print(f"| depth {depth} | score | " + " | ".join(methods) + " |", file=out)
        print("|" + "---|" * (2 + len(methods)), file=out)
        for name in dict.fromkeys(r["set"] for r in at):
            score_name = next(r["score"] for r in at if r["set"] == name)
            print(f"| {name} | {score_name} | "
                  + " | ".join(_cell(by.get((name, m))) for m in methods) + " |", file=out)
        print(file=out)
        for method in methods:
            if method == "CART":
                continue
            for field in ("test", "train"):
                diffs = _differences(at, method, "CART", field)
                if diffs:
                    worst = min(diffs, key=diffs.get)
                    below = sum(d < -1e-9 for d in diffs.values())
                    print(f"- depth {depth}: {method} - monotone CART, {field}: mean "
                          f"{statistics.mean(diffs.values()):+.2f} over {len(diffs)} sets, worst "
                          f"{diffs[worst]:+.2f} ({worst}); below CART on {below}", file=out)
        for method in ("dpdt", "LightGBM"):
            diffs = _differences(at, method, "CART", "test", CREDIT_AND_HEALTH)
            if diffs:
                print(f"- depth {depth}: {method} - monotone CART, test, credit and health sets "
                      f"({', '.join(diffs)}): mean {statistics.mean(diffs.values()):+.2f}",
                      file=out)
        ratios = {name: by[name, "dpdt"]["seconds"] / by[name, "dpdt free"]["seconds"]
                  for name in {r["set"] for r in at}
                  if (name, "dpdt") in by and (name, "dpdt free") in by}
        if ratios:
            worst = max(ratios, key=ratios.get)
            print(f"- depth {depth}: dpdt / dpdt free fit time: median "
                  f"{statistics.median(ratios.values()):.2f}x, worst {ratios[worst]:.2f}x "
                  f"({worst})", file=out)
        bad = [f"{r['set']} ({r['method']})" for r in at
               if r["violations"] and r["method"] not in FREE]
        print(f"- depth {depth}: constrained models that moved the wrong way: "
              f"{', '.join(bad) or 'none'}\n", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--sets", nargs="+", default=sorted(CONSTRAINTS))
    args = parser.parse_args(argv)
    sets, _ = load(args.data, args.sets)
    names = {data.name: [str(n) for n in np.load(args.data / f"{data.name}.npz")["feature_names"]]
             for data in sets}
    rows = run(sets, args.depths, names,
               log=lambda line: print(line, file=sys.stderr, flush=True))
    report(rows, args.depths)


if __name__ == "__main__":
    main()
