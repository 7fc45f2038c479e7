"""Defaults on data nobody tuned them to: the wide corpus of 40 real tabular sets.

Every set of the corpus (``--data``, by default ``shared/datasets/wide`` beside the checkout:
21 classification, 11 regression and 8 causal sets, each a fixed 75/25 train/test split with
NaN for missing values) is fitted on its train split at each depth limit and measured on both
splits. Causal sets are read as prediction of the outcome from the covariates and the treatment
(the treatment code appended as the last feature): binary outcomes as classification, continuous
ones as regression. Classification is scored by accuracy, regression by R².

Methods (one thread everywhere):

- default: ``DPDTreeClassifier(max_depth=d)`` / ``DPDTreeRegressor(max_depth=d)``;
- DPDT-CV: ``DPDTreeClassifierCV(max_depths=[d], cv=5)`` / ``DPDTreeRegressorCV``;
- CART: scikit-learn's ``DecisionTreeClassifier(max_depth=d, random_state=0)`` /
  ``DecisionTreeRegressor``, with its native support of missing values;
- CART-CV: CART of the same depth limit with ``ccp_alpha`` chosen by ``GridSearchCV`` among the
  alphas of its pruning path on the train split (at most 30, evenly spaced through the path;
  computing the path is part of the fit time), 5 folds (``StratifiedKFold(5, shuffle=True,
  random_state=0)``, ``KFold`` for regression);
- LightGBM: one greedy tree of depth d: ``n_estimators=1``, ``learning_rate=1``,
  ``num_leaves=2**d``, ``max_depth=d``, no minimum leaf size beyond one sample
  (``min_child_samples=1``, ``min_child_weight=0``), no split gain threshold and no
  regularisation (``min_split_gain=0``, ``reg_lambda=0``, ``reg_alpha=0``), no bagging or
  column sampling. It splits on histograms (255 bins) by the gradient-statistics gain, and its
  leaf values are Newton steps from the base score: for regression exactly the leaf means of a
  variance-reduction tree; for classification one Newton step of the log-loss, which can give
  a leaf near even odds the other class than its majority; with K > 2 classes LightGBM grows one
  such tree per class (their leaves are counted together);
- LicketySPLIT (optional, ``pip install licketysplit``): ``LicketySPLITClassifier`` /
  ``LicketySPLITRegressor(depth_budget=d)`` with the package's default ``lambda_leaf=0.01`` (a
  leaf costs as much as 1 % of the training samples misclassified) on its own binarisation,
  ``ThresholdGuessBinarizer`` with the settings its README shows (100 boosted trees of depth 3,
  no column elimination); its fit time includes the binarisation. For regression the target is
  divided by its training standard deviation before the fit (and the predictions multiplied
  back), so that ``lambda_leaf`` is a fraction of the variance whatever the target's unit.
  The binariser rejects missing values: sets with NaN are "n/a".

Per (set, depth, method): test and train score, leaves, fit seconds (a fit is repeated while the
repeats take under half a second in all, at most five times, and the median kept, so that fast
fits are not timed once), and the ratio of those seconds to CART's on the same set and depth in
the same run. A method that cannot run on a set is "n/a" with the reason; ``--max-rows`` skips
larger sets altogether and ``--cv-max-rows`` only the two cross-validated columns.

Summary per depth and per score (accuracy, R²): mean and worst of default - CART on the train
and the test split, the sets where the default is below CART, the default's time ratio to CART
(median, worst), DPDT-CV - CART-CV on the test split (mean, wins / losses), and every method's
means. Differences are in points (hundredths) of accuracy or R².

``--selection-study`` measures instead how DPDT-CV's selection rule could be chosen without
reading the test splits: see :func:`selection_study`.

Run ``python benchmarks/wide.py [--data DIR] [--depths 3 4 5 6] [--sets NAME ...]
[--max-rows N] [--cv-max-rows 60000] [--methods ...] [--json OUT] [--selection-study]``;
``--load OUT`` prints the tables of saved rows again (of a whole or an interrupted run).
"""

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from _common import progress
from dpdt import DPDTreeClassifier, DPDTreeClassifierCV, DPDTreeRegressor, DPDTreeRegressorCV

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "wide"
FOLDS = 5
MAX_ALPHAS = 30
METHODS = ("default", "DPDT-CV", "CART", "CART-CV", "LightGBM", "LicketySPLIT")
CV_METHODS = ("DPDT-CV", "CART-CV")
ACCURACY, R2 = "accuracy", "R²"
# How long the repeats of one fit may take in all before the median is kept (seconds).
TIMING_BUDGET = 0.5
MAX_REPEATS = 5


class Dataset:
    """One set of the corpus: its splits, its kind and how it is scored."""

    def __init__(self, path):
        data = np.load(path, allow_pickle=False)
        self.name = Path(path).stem
        self.kind = str(data["task"])
        self.X_train, self.X_test = data["X_train"], data["X_test"]
        self.y_train, self.y_test = data["y_train"], data["y_test"]
        if self.kind == "causal":
            # The outcome given the covariates and the treatment, as the corpus's README scores it.
            self.X_train = np.column_stack([self.X_train, data["t_train"]])
            self.X_test = np.column_stack([self.X_test, data["t_test"]])
            classify = "outcome_names" in data.files
        else:
            classify = self.kind == "classification"
        if classify:
            self.y_train = self.y_train.astype(np.int64)
            self.y_test = self.y_test.astype(np.int64)
        self.score = ACCURACY if classify else R2
        self.n_train = len(self.y_train)
        self.has_nan = bool(np.isnan(self.X_train).any() or np.isnan(self.X_test).any())


def load(data_dir, names=None, max_rows=None):
    """Return the sets of ``data_dir`` within ``max_rows``, and the names of those skipped.

    All sets in the order of their names, or those of ``names`` in that order; a set of more
    than ``max_rows`` training rows is skipped.
    """
    data_dir = Path(data_dir)
    paths = ([data_dir / f"{name}.npz" for name in names] if names
             else sorted(data_dir.glob("*.npz")))
    sets, skipped = [], []
    for path in paths:
        if not path.is_file():
            raise SystemExit(f"wide: no set {path.stem!r} in {data_dir}")
        data = Dataset(path)
        if max_rows is not None and data.n_train > max_rows:
            skipped.append(data.name)
        else:
            sets.append(data)
    return sets, skipped


# ---------------------------------------------------------------------------------- methods

def _classify(data):
    return data.score == ACCURACY


def _cart(data, depth, **params):
    kind = DecisionTreeClassifier if _classify(data) else DecisionTreeRegressor
    return kind(max_depth=depth, random_state=0, **params)


class _CartCV:
    """CART with ``ccp_alpha`` chosen by GridSearchCV among (at most 30 of) the alphas of the
    train split's pruning path; the path is part of the fit, and of its time. ``params`` go to
    every tree (benchmarks/monotone.py passes ``monotonic_cst``)."""

    def __init__(self, data, depth, **params):
        self.data, self.depth, self.params = data, depth, params

    def fit(self, X, y):
        alphas = np.unique(_cart(self.data, self.depth, **self.params)
                           .cost_complexity_pruning_path(X, y).ccp_alphas)
        if len(alphas) > MAX_ALPHAS:
            alphas = alphas[np.linspace(0, len(alphas) - 1, MAX_ALPHAS).astype(int)]
        folds = (StratifiedKFold if _classify(self.data) else KFold)(FOLDS, shuffle=True,
                                                                     random_state=0)
        self.search_ = GridSearchCV(_cart(self.data, self.depth, **self.params),
                                    {"ccp_alpha": alphas},
                                    cv=folds, n_jobs=1).fit(X, y)
        self.best_estimator_ = self.search_.best_estimator_
        return self

    def predict(self, X):
        return self.best_estimator_.predict(X)


def _lightgbm(data, depth):
    import lightgbm

    kind = lightgbm.LGBMClassifier if _classify(data) else lightgbm.LGBMRegressor
    return kind(n_estimators=1, learning_rate=1.0, max_depth=depth, num_leaves=2 ** depth,
                min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0, reg_lambda=0.0,
                reg_alpha=0.0, subsample=1.0, colsample_bytree=1.0, n_jobs=1, num_threads=1,
                verbose=-1, random_state=0)


class _LicketySPLIT:
    """LicketySPLIT on its own binarisation, the target scaled for regression (see above)."""

    def __init__(self, classify, depth):
        self.classify, self.depth = classify, depth

    def fit(self, X, y):
        from licketysplit import (
            LicketySPLITClassifier,
            LicketySPLITRegressor,
            ThresholdGuessBinarizer,
        )

        if np.isnan(X).any():
            raise ValueError("missing values: its ThresholdGuessBinarizer rejects NaN")
        self.binarizer_ = ThresholdGuessBinarizer(
            n_estimators=100, max_depth=3, random_state=0, column_elimination=False,
            task="classification" if self.classify else "regression").fit(X, y)
        Xb = self.binarizer_.transform(X)
        self.scale_ = 1.0
        if self.classify:
            self.model_ = LicketySPLITClassifier(depth_budget=self.depth).fit(Xb, y)
        else:
            self.scale_ = float(np.std(y)) or 1.0
            self.model_ = LicketySPLITRegressor(depth_budget=self.depth).fit(Xb, y / self.scale_)
        return self

    def predict(self, X):
        if np.isnan(X).any():
            raise ValueError("missing values: its ThresholdGuessBinarizer rejects NaN")
        prediction = self.model_.predict(self.binarizer_.transform(X))
        return prediction if self.classify else prediction * self.scale_


def _make(method, data, depth):
    """Return a fresh estimator of ``method`` for ``data`` at depth limit ``depth``."""
    classify = _classify(data)
    if method == "default":
        return (DPDTreeClassifier if classify else DPDTreeRegressor)(max_depth=depth, n_jobs=1)
    if method == "DPDT-CV":
        return (DPDTreeClassifierCV if classify else DPDTreeRegressorCV)(
            max_depths=[depth], cv=FOLDS, n_jobs=1)
    if method == "CART":
        return _cart(data, depth)
    if method == "CART-CV":
        return _CartCV(data, depth)
    if method == "LightGBM":
        return _lightgbm(data, depth)
    if method == "LicketySPLIT":
        return _LicketySPLIT(classify, depth)
    raise ValueError(method)


def n_leaves(method, model):
    """Return the number of leaves of a fitted model of ``method``."""
    if method == "CART-CV":
        return int(model.best_estimator_.get_n_leaves())
    if method == "LightGBM":
        return int(sum(tree["num_leaves"] for tree in model.booster_.dump_model()["tree_info"]))
    if method == "LicketySPLIT":
        return len(model.model_.leaf_paths())
    return int(model.get_n_leaves())


def score(data, y, prediction):
    """Accuracy or R² of ``prediction``, as ``data`` is scored."""
    y, prediction = np.asarray(y), np.asarray(prediction)
    if data.score == ACCURACY:
        return float(np.mean(prediction == y))
    total = float(np.sum((y - y.mean()) ** 2))
    return 1.0 - float(np.sum((y - prediction) ** 2)) / total if total > 0 else 0.0


def unavailable(method, data, cv_max_rows):
    """Return why ``method`` does not run on ``data``, or None."""
    if method in CV_METHODS and cv_max_rows is not None and data.n_train > cv_max_rows:
        return f"more than --cv-max-rows {cv_max_rows} training rows"
    if method == "LightGBM":
        try:
            import lightgbm  # noqa: F401
        except ImportError:
            return "lightgbm is not installed"
    if method == "LicketySPLIT":
        try:
            import licketysplit  # noqa: F401
        except ImportError:
            return "licketysplit is not installed"
        if data.has_nan:
            return "missing values: its ThresholdGuessBinarizer rejects NaN"
    return None


def timed_fit(make, X, y):
    """Fit ``make()`` on (X, y), again while the fits take under TIMING_BUDGET in all (at most
    MAX_REPEATS); return the last model and the median seconds."""
    times, model = [], None
    while not times or (sum(times) < TIMING_BUDGET and len(times) < MAX_REPEATS):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return model, statistics.median(times)


def run(sets, depths, methods=METHODS, cv_max_rows=None, log=None, save=None):
    """Fit and measure every method on every set and depth limit.

    ``save``, when given, is called with the rows so far after each set, so that an
    interrupted run keeps what it measured.

    Returns
    -------
    rows : list of dict
        One per (set, depth, method): ``set``, ``kind``, ``score`` (the metric's name),
        ``n_train``, ``depth``, ``method``, and ``test``, ``train``, ``leaves``, ``seconds``,
        ``ratio`` (seconds over CART's; None without CART), or None and a ``note`` saying why.
    """
    log, rows = log or sys.stderr, []
    for depth in depths:
        for data in progress(sets, f"depth {depth}"):
            at = []
            for method in methods:
                row = dict(set=data.name, kind=data.kind, score=data.score, n_train=data.n_train,
                           depth=depth, method=method, test=None, train=None, leaves=None,
                           seconds=None, ratio=None, note=unavailable(method, data, cv_max_rows))
                if row["note"] is None:
                    try:
                        with warnings.catch_warnings():
                            # Classes with fewer members than folds, LightGBM's small-data notes.
                            warnings.simplefilter("ignore")
                            model, seconds = timed_fit(
                                lambda m=method, d=data, k=depth: _make(m, d, k),
                                data.X_train, data.y_train)
                            row.update(test=score(data, data.y_test, model.predict(data.X_test)),
                                       train=score(data, data.y_train,
                                                   model.predict(data.X_train)),
                                       leaves=n_leaves(method, model), seconds=seconds)
                    except Exception as error:  # a peer that cannot run here: recorded, not fatal
                        row["note"] = f"{type(error).__name__}: {error}".splitlines()[0][:120]
                at.append(row)
                print(f"  depth {depth} {data.name:24s} {method:12s} " + (
                    f"test {row['test']:.4f} train {row['train']:.4f} leaves {row['leaves']:4d} "
                    f"{row['seconds']:8.3f} s" if row["note"] is None else f"n/a: {row['note']}"),
                    file=log, flush=True)
            cart = next((r["seconds"] for r in at if r["method"] == "CART" and r["seconds"]), None)
            for row in at:
                if cart and row["seconds"] is not None:
                    row["ratio"] = row["seconds"] / cart
            rows.extend(at)
            if save is not None:
                save(rows)
    return rows


# ---------------------------------------------------------------------------------- report

def _cell(row):
    if row["note"] is not None:
        return "n/a"
    ratio = "" if row["ratio"] is None else f" ({row['ratio']:.1f}x)"
    return (f"{row['test']:.4f} / {row['train']:.4f} / {row['leaves']} / "
            f"{row['seconds']:.3f} s{ratio}")


def _by(rows, **keys):
    return [r for r in rows if all(r[k] == v for k, v in keys.items())]


def _value(rows, name, method, depth, key):
    for row in rows:
        if row["set"] == name and row["method"] == method and row["depth"] == depth:
            return row[key]
    return None


def _paired(rows, depth, names, new, old, key):
    """Return {set: new - old} of ``key`` where both ran, in points."""
    out = {}
    for name in names:
        a, b = _value(rows, name, new, depth, key), _value(rows, name, old, depth, key)
        if a is not None and b is not None:
            # Equal scores stay 0 (not -0.00 from rounding), neither a win nor a loss.
            out[name] = 100.0 * (a - b) if abs(a - b) > 1e-12 else 0.0
    return out


def summary(rows, depth, metric):
    """Return the summary lines of one depth limit and one metric (``accuracy`` or ``R²``)."""
    at = [r for r in rows if r["depth"] == depth and r["score"] == metric]
    names = list(dict.fromkeys(r["set"] for r in at))
    methods = list(dict.fromkeys(r["method"] for r in at))
    head = f"depth {depth}, {metric} ({len(names)} sets)"
    lines = []
    if {"default", "CART"} <= set(methods):
        for key in ("train", "test"):
            diff = _paired(at, depth, names, "default", "CART", key)
            if diff:
                worst = min(diff, key=diff.get)
                below = sorted((n for n, d in diff.items() if d < -1e-9), key=diff.get)
                lines.append(
                    f"- {head}: default - CART {key} mean {np.mean(list(diff.values())):+.2f} "
                    f"points, worst {diff[worst]:+.2f} ({worst}); below CART on {len(below)}/"
                    f"{len(diff)} sets" + (f" ({', '.join(below)})" if below else ""))
        ratios = {n: _value(at, n, "default", depth, "ratio") for n in names}
        ratios = {n: r for n, r in ratios.items() if r is not None}
        if ratios:
            worst = max(ratios, key=ratios.get)
            lines.append(f"- {head}: default / CART fit time median "
                         f"{np.median(list(ratios.values())):.1f}x, worst {ratios[worst]:.1f}x "
                         f"({worst})")
    if set(CV_METHODS) <= set(methods):
        diff = _paired(at, depth, names, "DPDT-CV", "CART-CV", "test")
        if diff:
            values = np.array(list(diff.values()))
            lines.append(f"- {head}: DPDT-CV - CART-CV test mean {values.mean():+.2f} points over "
                         f"{len(values)} sets, wins {(values > 1e-9).sum()} / losses "
                         f"{(values < -1e-9).sum()}")
    return lines


def method_means(rows, depth, metric):
    """Return a markdown table of every method's means at one depth limit and metric."""
    at = [r for r in rows if r["depth"] == depth and r["score"] == metric]
    methods = list(dict.fromkeys(r["method"] for r in at))
    out = [f"| depth {depth}, {metric} | sets run | mean test | mean train | mean leaves | "
           "time ratio to CART median | worst |", "|---|---|---|---|---|---|---|"]
    for method in methods:
        ran = [r for r in at if r["method"] == method and r["note"] is None]
        ratios = [r["ratio"] for r in ran if r["ratio"] is not None]
        if not ran:
            out.append(f"| {method} | 0 | n/a | n/a | n/a | n/a | n/a |")
            continue
        out.append(f"| {method} | {len(ran)} | {np.mean([r['test'] for r in ran]):.4f} | "
                   f"{np.mean([r['train'] for r in ran]):.4f} | "
                   f"{np.mean([r['leaves'] for r in ran]):.1f} | "
                   + (f"{np.median(ratios):.1f}x | {max(ratios):.1f}x |" if ratios
                      else "n/a | n/a |"))
    return out


def report(rows, skipped=(), out=None):
    """Print the per-set tables, the method means and the summaries, per depth limit."""
    out = out or sys.stdout
    depths = list(dict.fromkeys(r["depth"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    if skipped:
        print(f"Skipped by --max-rows: {', '.join(skipped)}.\n", file=out)
    print("Each cell: test / train score / leaves / fit seconds (ratio to CART's). The tables of "
          "means average over the sets each method ran on (column \"sets run\").\n", file=out)
    for depth in depths:
        print(f"| depth {depth} | score | " + " | ".join(methods) + " |", file=out)
        print("|" + "---|" * (2 + len(methods)), file=out)
        names = list(dict.fromkeys(r["set"] for r in rows if r["depth"] == depth))
        for name in names:
            at = {r["method"]: r for r in _by(rows, set=name, depth=depth)}
            print(f"| {name} | {at[methods[0]]['score']} | "
                  + " | ".join(_cell(at[m]) for m in methods) + " |", file=out)
        print(file=out)
    notes = {}
    for row in rows:
        if row["note"] is not None:
            notes.setdefault((row["method"], row["note"]), set()).add(row["set"])
    for (method, note), names in notes.items():
        print(f"- n/a: {method} on {', '.join(sorted(names))}: {note}", file=out)
    for depth in depths:
        for metric in (ACCURACY, R2):
            if not any(r["depth"] == depth and r["score"] == metric for r in rows):
                continue
            print(file=out)
            print("\n".join(method_means(rows, depth, metric)), file=out)
            print(file=out)
            print("\n".join(summary(rows, depth, metric)), file=out)


# ---------------------------------------------------------------------------------- selection

# The candidate selection rules: DPDT-CV's ``selection``, its ``complexity``, which sets both
# the front the candidates come from (one fit per complexity) and what "1se" trades score for,
# its ``min_samples_leaf``, which bounds how few samples a leaf of the candidates rests on, and
# whether its folds take the rows in order or shuffled (what an int ``cv`` now means):
# a table sorted by date or by outcome gives ordered folds unlike the whole. The first, the
# trees' own defaults with ordered folds, is the reference the others are compared with.
RULES = tuple((selection, complexity, leaf, False)
              for complexity, leaf in (("expected_tests", 1), ("n_splits", 1), ("n_splits", 5),
                                       ("n_splits", 10))
              for selection in ("best", "1se")) + (("best", "n_splits", 1, True),
                                                   ("best", "n_splits", 10, True))
OUTER_FOLDS = 5


def _rule_name(rule):
    return f"{rule[0]}/{rule[1]}/leaf {rule[2]}" + ("/shuffled" if rule[3] else "")


def _folds(data, shuffle):
    """Return 5 folds of the rows in order, or of shuffled rows (what ``cv=5`` means)."""
    kind = StratifiedKFold if _classify(data) else KFold
    return kind(FOLDS, shuffle=True, random_state=0) if shuffle else kind(FOLDS)


def _rule_scores(data, depth, X, y, X_val, y_val, rules):
    """Fit DPDT-CV per (complexity, leaf, folds) on (X, y); score every rule on (X_val, y_val)."""
    kind = DPDTreeClassifierCV if _classify(data) else DPDTreeRegressorCV
    scores = {}
    for complexity, leaf, shuffle in dict.fromkeys(rule[1:] for rule in rules):
        model = kind(max_depths=[depth], cv=_folds(data, shuffle), n_jobs=1,
                     complexity=complexity, min_samples_leaf=leaf).fit(X, y)
        for rule in rules:
            if rule[1:] == (complexity, leaf, shuffle):
                model.set_params(selection=rule[0]).select_tree()
                scores[rule] = score(data, y_val, model.predict(X_val))
    return scores


def selection_study(sets, depths, rules=RULES, outer_folds=OUTER_FOLDS, log=None, save=None):
    """Choose DPDT-CV's selection rule per set on its train split alone; score it on the test.

    For each set and depth limit, an outer cross-validation of the train split
    (``StratifiedKFold(outer_folds, shuffle=True, random_state=0)``, ``KFold`` for regression)
    fits DPDT-CV (itself 5-fold) on each outer training part and scores every candidate rule's
    tree on the outer validation part. The rule of best mean outer score (ties to the earlier
    rule of ``rules``, the default first) is the one chosen for that set; DPDT-CV is then fitted
    on the whole train split and the chosen rule's tree scored on the test split, which no
    choice has read. Every rule's test score is kept too, for reference only. ``save``, when
    given, is called with the rows so far after each set.

    Returns
    -------
    rows : list of dict
        One per (set, depth): ``set``, ``score``, ``depth``, ``inner`` (rule name: mean outer
        validation score), ``chosen`` (rule name), ``test`` (rule name: test score) and
        ``chosen_test``.
    """
    log, rows = log or sys.stderr, []
    for depth in depths:
        for data in progress(sets, f"selection depth {depth}"):
            folds = (StratifiedKFold if _classify(data) else KFold)(
                outer_folds, shuffle=True, random_state=0)
            X, y = data.X_train, data.y_train
            inner = {rule: [] for rule in rules}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # classes with fewer members than folds
                for train, val in folds.split(X, y):
                    fold = _rule_scores(data, depth, X[train], y[train], X[val], y[val], rules)
                    for rule in rules:
                        inner[rule].append(fold[rule])
                test = _rule_scores(data, depth, X, y, data.X_test, data.y_test, rules)
            means = {rule: float(np.mean(v)) for rule, v in inner.items()}
            chosen = max(rules, key=lambda rule: (means[rule], -rules.index(rule)))
            rows.append(dict(set=data.name, score=data.score, depth=depth,
                             inner={_rule_name(r): means[r] for r in rules},
                             test={_rule_name(r): test[r] for r in rules},
                             chosen=_rule_name(chosen), chosen_test=test[chosen]))
            print(f"  depth {depth} {data.name:24s} chosen {_rule_name(chosen):20s} test "
                  f"{test[chosen]:.4f} (reference {test[rules[0]]:.4f})", file=log, flush=True)
            if save is not None:
                save(rows)
    return rows


def report_selection(rows, rules=RULES, out=None):
    """Print the selection study's table and, per depth and metric, its summary."""
    out = out or sys.stdout
    names = [_rule_name(r) for r in rules]
    default = names[0]
    print("Per set: the rule chosen on the train split by the outer cross-validation, its test "
          "score, and every rule's (outer validation mean / test), the latter for reference "
          "only.\n", file=out)
    print("| depth | set | score | chosen | chosen test | " + " | ".join(names) + " |", file=out)
    print("|" + "---|" * (5 + len(names)), file=out)
    for row in rows:
        print(f"| {row['depth']} | {row['set']} | {row['score']} | {row['chosen']} | "
              f"{row['chosen_test']:.4f} | " + " | ".join(
                  f"{row['inner'][n]:.4f} / {row['test'][n]:.4f}" for n in names) + " |",
              file=out)
    print(file=out)
    for metric in (ACCURACY, R2):
        at = [r for r in rows if r["score"] == metric]
        if at:
            # DPDT-CV's defaults are this choice: one rule per metric, read on the train splits.
            means = {n: np.mean([r["inner"][n] for r in at]) for n in names}
            pooled = max(names, key=lambda n: (means[n], -names.index(n)))
            print(f"- every depth, {metric} ({len(at)} set-depths): best mean outer validation "
                  f"score {pooled} ({means[pooled]:.4f}; the reference {default}: "
                  f"{means[default]:.4f})", file=out)
    for depth in dict.fromkeys(r["depth"] for r in rows):
        for metric in (ACCURACY, R2):
            at = [r for r in rows if r["depth"] == depth and r["score"] == metric]
            if not at:
                continue
            gain = 100.0 * np.array([r["chosen_test"] - r["test"][default] for r in at])
            counts = {n: sum(r["chosen"] == n for r in at) for n in names}
            means = {n: 100.0 * np.mean([r["test"][n] - r["test"][default] for r in at])
                     for n in names[1:]}
            # One rule for every set, also chosen on the train splits: best mean outer score.
            pooled = max(names, key=lambda n: (np.mean([r["inner"][n] for r in at]),
                                               -names.index(n)))
            pooled_gain = 100.0 * np.array([r["test"][pooled] - r["test"][default] for r in at])
            print(f"- depth {depth}, {metric} ({len(at)} sets): one rule for all sets chosen on "
                  f"the train splits (best mean outer validation score): {pooled}; its test - "
                  f"reference test mean {pooled_gain.mean():+.2f} points, better on "
                  f"{(pooled_gain > 1e-9).sum()}, worse on {(pooled_gain < -1e-9).sum()}",
                  file=out)
            print(f"- depth {depth}, {metric} ({len(at)} sets): rule chosen per set on the train "
                  f"split - reference ({default}) test mean {gain.mean():+.2f} points, better on "
                  f"{(gain > 1e-9).sum()}, worse on {(gain < -1e-9).sum()}; chosen: "
                  + ", ".join(f"{n} {c}" for n, c in counts.items())
                  + "; each fixed rule - reference (read on the test splits): "
                  + ", ".join(f"{n} {m:+.2f}" for n, m in means.items()), file=out)


# ---------------------------------------------------------------------------------- main

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the corpus folder (default: shared/datasets/wide beside the "
                             "checkout)")
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5, 6])
    parser.add_argument("--sets", nargs="+", metavar="NAME", help="sets to run (default: all)")
    parser.add_argument("--max-rows", type=int, help="skip sets of more training rows")
    parser.add_argument("--cv-max-rows", type=int, default=60000,
                        help="skip the cross-validated methods (and the selection study) on "
                             "sets of more training rows (default 60000)")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--json", type=Path, metavar="OUT", help="save the raw rows as JSON")
    parser.add_argument("--selection-study", action="store_true",
                        help="choose DPDT-CV's selection rule per set by an outer CV of the "
                             "train split and report the test score of that choice instead")
    parser.add_argument("--outer-folds", type=int, default=OUTER_FOLDS,
                        help=f"outer folds of --selection-study (default {OUTER_FOLDS})")
    parser.add_argument("--load", type=Path, metavar="IN",
                        help="print the tables of rows saved by --json instead of fitting")
    args = parser.parse_args(argv)

    def save(rows):
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    if args.load:
        rows = json.loads(args.load.read_text(encoding="utf-8"))
        (report_selection if rows and "chosen" in rows[0] else report)(rows)
        return
    if not args.data.is_dir():
        parser.error(f"no corpus folder {args.data} (pass --data DIR)")
    if args.selection_study:
        sets, skipped = load(args.data, args.sets, args.max_rows)
        limit = args.cv_max_rows
        skipped += [d.name for d in sets if limit is not None and d.n_train > limit]
        sets = [d for d in sets if limit is None or d.n_train <= limit]
        if skipped:
            print(f"Skipped by --max-rows / --cv-max-rows: {', '.join(skipped)}.\n")
        rows = selection_study(sets, args.depths, outer_folds=args.outer_folds, save=save)
        report_selection(rows)
    else:
        sets, skipped = load(args.data, args.sets, args.max_rows)
        rows = run(sets, args.depths, args.methods, args.cv_max_rows, save=save)
        report(rows, skipped)
    save(rows)


if __name__ == "__main__":
    main()
