"""Monotone trees on the wide corpus: dpdt against scikit-learn's and LightGBM's monotone trees.

Each set below carries the monotonic constraints a domain expert would set, written down with
the reason (``CONSTRAINTS``): the direction in which the predicted value (the probability of
the positive class, or the regression target) must move with each constrained feature. A set's
other features are free. Binary classification and regression only: scikit-learn refuses
monotonic constraints on multiclass targets.

Splits: a test split of a few hundred rows moves a score by points from one split to the next,
more than the methods differ, so each set's train and test rows are pooled and split again
``--seeds`` times (10 by default), 75/25 as the corpus splits them, stratified by class for
classification (``train_test_split(test_size=0.25, stratify=y, random_state=seed)``). Every
method fits the same splits; a set of more than ``--max-rows`` pooled rows (default 12 000) is
split from a random subset of that many rows (drawn once per set, seed 0), which keeps the
larger regression sets' test splits at 3 000 rows and the run within minutes.

Methods, one tree each, depth limit d, one thread:

- CART: scikit-learn's ``DecisionTreeClassifier`` / ``DecisionTreeRegressor(max_depth=d,
  monotonic_cst=..., random_state=0)``; it keeps the tree monotone by rejecting a split on a
  constrained feature whose children's values are in the wrong order or outside the node's
  bounds, and bounding each child's subtree by the midpoint of the two values;
- CART-CV: that CART with ``ccp_alpha`` chosen by 5-fold ``GridSearchCV`` on the train split
  among the alphas of its pruning path, as in benchmarks/wide.py;
- LightGBM: one tree (``n_estimators=1, learning_rate=1, num_leaves=2**d, max_depth=d``, no
  minimum leaf size or regularisation, as in benchmarks/wide.py) with ``monotone_constraints``
  and its default ``monotone_constraints_method="basic"``;
- dpdt: ``DPDTreeClassifier`` / ``DPDTreeRegressor(max_depth=d, monotonic_cst=...)``, its
  defaults otherwise (it applies scikit-learn's rule in every state of its search);
- dpdt-CV: ``DPDTreeClassifierCV`` / ``DPDTreeRegressorCV(max_depths=[d], cv=5,
  monotonic_cst=...)``: the tree of the front whose alpha scores best in 5-fold cross-validation
  on the train split, what a user who cares about the test score runs;
- and the unconstrained fits of the same depth, ``dpdt free`` and ``CART free``: what the
  constraints cost in score and in dpdt's fit time, and how far dpdt's test score departs from
  CART's without constraints (the optimiser's own gap, to compare with the constrained one).

Missing values: scikit-learn before 1.9 refuses monotonic constraints with NaN in X, so sets
with NaN are filled with each column's training median, for every method alike.

Every returned model is probed for monotonicity: 2 000 training rows are moved along the
constrained features in their directions by random steps, and the count of rows whose
prediction moved the wrong way (beyond 1e-9) is kept; it must be 0 for the constrained
methods (the unconstrained fits' counts show that the probe finds violations where there are
some). The tests check dpdt's trees exactly, leaf pair by leaf pair (tests/test_monotone.py).

Per (set, depth, method): test and train score (accuracy or R²) and leaves, each the mean over
the splits, and fit seconds (the median over the splits, each fit timed once); then dpdt's and
dpdt-CV's test score minus monotone CART's, the mean over the splits with its standard error.
Per depth, each comparison's test difference on the credit and health sets and on all sets:
the mean over sets, its standard error over the splits (of each split's mean over the sets),
and the sets won and lost (those lost or won by more than two standard errors in brackets);
the train difference of dpdt and monotone CART with the count of fits where dpdt is below (0:
the guarantee); the fit time of dpdt over that of its unconstrained fit and of dpdt-CV over
dpdt's (median, worst); and any constrained model the probe caught. Differences are in points
(hundredths) of the score.

Run ``python benchmarks/monotone.py [--data DIR] [--depths 3 4 5] [--sets NAME ...]
[--seeds N] [--max-rows N] [--json OUT]``; ``--load OUT`` prints the tables of saved rows again.
"""

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from _common import progress
from wide import ACCURACY, DEFAULT_DATA, FOLDS, _CartCV, load, score

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
SEEDS = 10
MAX_ROWS = 12000


def constraints_of(data, feature_names):
    """The monotonic_cst vector of a set: one entry per feature, 0 where free."""
    declared = CONSTRAINTS[data.name]
    unknown = set(declared) - set(feature_names)
    if unknown:
        raise SystemExit(f"monotone: {data.name} has no feature {sorted(unknown)}")
    return np.array([declared.get(name, (0, ""))[0] for name in feature_names], dtype=int)


def splits(data, seeds, max_rows=None):
    """Yield (seed, X, y, X_test, y_test): the pooled rows split 75/25 once per seed.

    Stratified by class for classification; a pool of more than ``max_rows`` rows is first cut
    to a random ``max_rows`` of them (the same for every seed). Missing values are filled with
    the train split's column medians.
    """
    X = np.concatenate([data.X_train, data.X_test])
    y = np.concatenate([data.y_train, data.y_test])
    if max_rows is not None and len(y) > max_rows:
        keep = np.sort(np.random.default_rng(0).choice(len(y), size=max_rows, replace=False))
        X, y = X[keep], y[keep]
    classify = data.score == ACCURACY
    for seed in range(seeds):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, stratify=y if classify else None, random_state=seed)
        median = np.nanmedian(X_train, axis=0)
        X_train, X_test = (np.where(np.isnan(A), median, A) for A in (X_train, X_test))
        yield seed, X_train, y_train, X_test, y_test


def _lightgbm(classify, depth, cst):
    import lightgbm

    kind = lightgbm.LGBMClassifier if classify else lightgbm.LGBMRegressor
    return kind(n_estimators=1, learning_rate=1.0, max_depth=depth, num_leaves=2 ** depth,
                min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0, reg_lambda=0.0,
                reg_alpha=0.0, subsample=1.0, colsample_bytree=1.0, n_jobs=1, num_threads=1,
                monotone_constraints=[int(c) for c in cst], verbose=-1, random_state=0)


def _dpdt(classify, depth, cst, cv=False):
    from dpdt import DPDTreeClassifier, DPDTreeClassifierCV, DPDTreeRegressor, DPDTreeRegressorCV

    if cv:
        kind = DPDTreeClassifierCV if classify else DPDTreeRegressorCV
        return kind(max_depths=[depth], cv=FOLDS, monotonic_cst=cst, n_jobs=1)
    kind = DPDTreeClassifier if classify else DPDTreeRegressor
    return kind(max_depth=depth, monotonic_cst=cst, n_jobs=1)


def make(method, data, depth, cst):
    """Return a fresh estimator of ``method`` for ``data`` at depth limit ``depth``."""
    classify = data.score == ACCURACY
    cart = DecisionTreeClassifier if classify else DecisionTreeRegressor
    if method == "CART":
        return cart(max_depth=depth, monotonic_cst=cst, random_state=0)
    if method == "CART-CV":
        return _CartCV(data, depth, monotonic_cst=cst)
    if method == "CART free":
        return cart(max_depth=depth, random_state=0)
    if method == "LightGBM":
        return _lightgbm(classify, depth, cst)
    if method == "dpdt free":
        return _dpdt(classify, depth, None)
    if method == "dpdt-CV":
        return _dpdt(classify, depth, cst, cv=True)
    if method == "dpdt":
        return _dpdt(classify, depth, cst)
    raise ValueError(method)


METHODS = ("dpdt", "dpdt-CV", "CART", "CART-CV", "LightGBM", "dpdt free", "CART free")
# The unconstrained fits: what the constraints cost in score, and in time (dpdt free).
FREE = ("dpdt free", "CART free")
# The credit-scoring and medical sets, where a monotone model is the one a regulator or a
# clinician accepts.
CREDIT_AND_HEALTH = ("creditcard", "lending_club_bad", "health_insurance", "pima_diabetes",
                     "biopsy_wbc", "breast_cancer_wdbc")
# The test comparisons of the summary, (method, base): each constrained method against
# monotone CART; the CV estimators against each other; the optimiser's own gap without
# constraints; and what the constraints cost each tree.
PAIRS = (("dpdt", "CART"), ("dpdt-CV", "CART"), ("CART-CV", "CART"), ("dpdt-CV", "CART-CV"),
         ("LightGBM", "CART"), ("dpdt free", "CART free"), ("dpdt", "dpdt free"),
         ("CART", "CART free"))
# The per-set difference columns of the tables.
COLUMNS = (("dpdt", "CART"), ("dpdt-CV", "CART"))


def _tree(model):
    """The fitted tree inside a search wrapper (CART-CV), or the model itself."""
    return getattr(model, "best_estimator_", model) if isinstance(model, _CartCV) else model


def _value(model, X, classify):
    model = _tree(model)
    return model.predict_proba(X)[:, 1] if classify else model.predict(X)


def probe(model, X, cst, classify, seed=0):
    """Rows whose prediction moves the wrong way when moved along the constrained features."""
    rng = np.random.default_rng(seed)
    start = X[rng.integers(len(X), size=PROBE_ROWS)]
    spread = np.nanstd(X, axis=0)
    moved = start + np.abs(rng.normal(size=start.shape)) * spread * cst
    return int(np.sum(_value(model, start, classify) > _value(model, moved, classify) + 1e-9))


def n_leaves(model):
    model = _tree(model)
    if hasattr(model, "get_n_leaves"):
        return int(model.get_n_leaves())
    return int(model.booster_.dump_model()["tree_info"][0]["num_leaves"])


def run(sets, depths, feature_names, seeds=SEEDS, max_rows=MAX_ROWS, methods=METHODS,
        log=print, save=None):
    """Fit every method on every set, depth and split; one row per fit.

    ``save``, when given, is called with the rows so far after each set.
    """
    rows = []
    for data in progress(sets, "monotone"):
        classify = data.score == ACCURACY
        if classify and len(np.unique(data.y_train)) > 2:
            log(f"{data.name}: skipped, multiclass")
            continue
        cst = constraints_of(data, feature_names[data.name])
        for seed, X, y, X_test, y_test in splits(data, seeds, max_rows):
            for depth in depths:
                for method in methods:
                    try:
                        model = make(method, data, depth, cst)
                        with warnings.catch_warnings():
                            # Classes with fewer members than folds, LightGBM's small-data notes.
                            warnings.simplefilter("ignore")
                            start = time.perf_counter()
                            model.fit(X, y)
                            seconds = time.perf_counter() - start
                    except (ImportError, TypeError) as error:
                        log(f"{data.name} d={depth} {method}: n/a ({error})")
                        continue
                    row = dict(set=data.name, score=data.score, n_train=len(y),
                               n_test=len(y_test), depth=depth, seed=seed, method=method,
                               seconds=seconds, train=score(data, y, model.predict(X)),
                               test=score(data, y_test, model.predict(X_test)),
                               leaves=n_leaves(model), violations=probe(model, X, cst, classify))
                    rows.append(row)
                    log(f"{data.name:20s} seed {seed} d={depth} {method:9s} "
                        f"train {row['train']:.4f} test {row['test']:.4f} "
                        f"leaves {row['leaves']:3d} {seconds:8.3f}s "
                        f"violations {row['violations']}")
        if save is not None:
            save(rows)
    return rows


# ---------------------------------------------------------------------------------- report

def paired(rows, depth, method, base, field):
    """Points of ``field`` of ``method`` minus ``base``: {set: {seed: difference}}.

    Only the splits that both methods ran.
    """
    by = {(r["set"], r["seed"], r["method"]): r[field] for r in rows if r["depth"] == depth}
    out = {}
    for (name, seed, m), value in by.items():
        if m == method and (name, seed, base) in by:
            out.setdefault(name, {})[seed] = 100 * (value - by[name, seed, base])
    return out


def mean_se(values):
    """The mean of ``values`` and its standard error (0 for a single value)."""
    values = list(values)
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return mean, se


def summarise(diffs, sets=None):
    """Summarise paired differences {set: {seed: points}} over ``sets`` (None: all).

    Returns the mean over sets of each set's mean over its splits, the standard error of that
    mean over the splits (from each split's mean over the sets; only the splits every set
    ran), the sets won and lost, and those won and lost by more than two standard errors of
    their own; or None when no set has differences.
    """
    names = sorted(n for n in diffs if sets is None or n in sets)
    if not names:
        return None
    per_set = {n: mean_se(diffs[n].values()) for n in names}
    common = sorted(set.intersection(*(set(diffs[n]) for n in names)))
    by_seed = [statistics.fmean(diffs[n][s] for n in names) for s in common]
    return dict(sets=names, mean=statistics.fmean(m for m, _ in per_set.values()),
                se=mean_se(by_seed)[1] if by_seed else float("nan"),
                wins=sum(m > 1e-9 for m, _ in per_set.values()),
                losses=sum(m < -1e-9 for m, _ in per_set.values()),
                clear_wins=sum(m > 2 * se and m > 1e-9 for m, se in per_set.values()),
                clear_losses=sum(m < -2 * se and m < -1e-9 for m, se in per_set.values()))


def _cell(rows):
    if not rows:
        return "n/a"
    mean = {k: statistics.fmean(r[k] for r in rows) for k in ("test", "train", "leaves")}
    cell = (f"{mean['test']:.4f} / {mean['train']:.4f} / {mean['leaves']:.1f} / "
            f"{statistics.median(r['seconds'] for r in rows):.3f} s")
    bad = sum(r["violations"] for r in rows)
    return cell + (f" / **{bad} moved the wrong way**" if bad else "")


def _line(s):
    return (f"{s['mean']:+.2f} ± {s['se']:.2f} (won {s['wins']} [{s['clear_wins']}], lost "
            f"{s['losses']} [{s['clear_losses']}] of {len(s['sets'])})")


def report(rows, depths, out=sys.stdout):
    """Print the tables of ``rows`` per depth, and the summary of each against monotone CART."""
    seeds = len({r["seed"] for r in rows})
    print(f"Means over {seeds} random 75/25 splits of each set's pooled rows. Each method's "
          "cell: test / train score (accuracy or R²) / leaves / median fit seconds; a "
          "probed model whose prediction moved the wrong way for some rows says how many, "
          "summed over the splits (the unconstrained fits show that the probe finds them). "
          "Differences are in points (hundredths) of the score, ± their standard error over "
          "the splits; won / lost counts the sets on either side, [in brackets] those by more "
          "than two standard errors.\n", file=out)
    methods = [m for m in METHODS if any(r["method"] == m for r in rows)]
    columns = [c for c in COLUMNS if c[0] in methods and c[1] in methods]
    for depth in depths:
        at = [r for r in rows if r["depth"] == depth]
        if not at:
            continue
        names = list(dict.fromkeys(r["set"] for r in at))
        diffs = {pair: paired(at, depth, *pair, "test") for pair in PAIRS
                 if pair[0] in methods and pair[1] in methods}
        print(f"| depth {depth} | score | rows (train / test) | " + " | ".join(methods)
              + "".join(f" | {m} − {b}, test" for m, b in columns) + " |", file=out)
        print("|" + "---|" * (3 + len(methods) + len(columns)), file=out)
        for name in names:
            mine = [r for r in at if r["set"] == name]
            cells = [_cell([r for r in mine if r["method"] == m]) for m in methods]
            for pair in columns:
                got = diffs[pair].get(name)
                cells.append("{:+.2f} ± {:.2f}".format(*mean_se(got.values())) if got else "n/a")
            first = mine[0]
            print(f"| {name} | {first['score']} | {first['n_train']} / {first['n_test']} | "
                  + " | ".join(cells) + " |", file=out)
        print(file=out)
        for pair, d in diffs.items():
            parts = []
            for label, sets in (("credit and health sets", CREDIT_AND_HEALTH),
                                ("all sets", None)):
                s = summarise(d, sets)
                if s:
                    parts.append(f"{label} {_line(s)}")
            if parts:
                print(f"- depth {depth}: {pair[0]} − {pair[1]}, test: " + "; ".join(parts),
                      file=out)
        train = paired(at, depth, "dpdt", "CART", "train")
        if train:
            s = summarise(train)
            below = sum(v < -1e-9 for per in train.values() for v in per.values())
            fits = sum(len(per) for per in train.values())
            print(f"- depth {depth}: dpdt − CART, train: all sets {s['mean']:+.2f} ± "
                  f"{s['se']:.2f}; fits where dpdt is below CART: {below} of {fits}", file=out)
        for method, base in (("dpdt", "dpdt free"), ("dpdt-CV", "dpdt")):
            by = {(r["set"], r["seed"], r["method"]): r["seconds"] for r in at}
            ratios = {}
            for (name, seed, m), seconds in by.items():
                if m == method and (name, seed, base) in by:
                    ratios.setdefault(name, []).append(seconds / by[name, seed, base])
            if ratios:
                per_set = {name: statistics.median(v) for name, v in ratios.items()}
                worst = max(per_set, key=per_set.get)
                print(f"- depth {depth}: {method} / {base} fit time: median over sets "
                      f"{statistics.median(per_set.values()):.2f}x, worst {per_set[worst]:.2f}x "
                      f"({worst})", file=out)
        bad = sorted({f"{r['set']} ({r['method']})" for r in at
                      if r["violations"] and r["method"] not in FREE})
        print(f"- depth {depth}: constrained models that moved the wrong way: "
              f"{', '.join(bad) or 'none'}\n", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the corpus folder (default: shared/datasets/wide beside the "
                             "checkout)")
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--sets", nargs="+", default=sorted(CONSTRAINTS),
                        choices=sorted(CONSTRAINTS), metavar="NAME")
    parser.add_argument("--seeds", type=int, default=SEEDS,
                        help=f"random splits per set (default {SEEDS})")
    parser.add_argument("--max-rows", type=int, default=MAX_ROWS,
                        help=f"split larger sets from a random subset of this many rows "
                             f"(default {MAX_ROWS})")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--json", type=Path, metavar="OUT", help="save the raw rows as JSON")
    parser.add_argument("--load", type=Path, metavar="IN",
                        help="print the tables of rows saved by --json instead of fitting")
    args = parser.parse_args(argv)

    def save(rows):
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    if args.load:
        rows = json.loads(args.load.read_text(encoding="utf-8"))
        report(rows, sorted({r["depth"] for r in rows}))
        return
    if not args.data.is_dir():
        parser.error(f"no corpus folder {args.data} (pass --data DIR)")
    sets, _ = load(args.data, args.sets)
    names = {data.name: [str(n) for n in np.load(args.data / f"{data.name}.npz")["feature_names"]]
             for data in sets}
    rows = run(sets, args.depths, names, args.seeds, args.max_rows, args.methods,
               log=lambda line: print(line, file=sys.stderr, flush=True), save=save)
    save(rows)
    report(rows, args.depths)


if __name__ == "__main__":
    main()
