"""The ``dpdt`` command line: fit, pareto, show, predict, explore."""

import argparse
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from . import datasets
from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
from ._branches import BranchesClassifier, MultiwayGreedyClassifier
from ._classes import DPDTreeClassifier, DPDTreeRegressor
from ._cv import DPDTreeClassifierCV, DPDTreeRegressorCV
from ._export import export_text
from ._front import held_out_figures
from ._io import load
from ._optional import require
from ._params import SPLITTERS

# Models that take categorical columns as they are.
_CATEGORICAL_MODELS = (BranchesClassifier, MultiwayGreedyClassifier)


class CommandError(ValueError):
    """A problem with the command's input, reported as one line and exit status 2."""


def format_front(estimator, X_test=None, y_test=None):
    """Return the Pareto front of a fitted estimator as a markdown table under its caption.

    One row per tree of the front, simplest last. With held-out data, each tree's test
    accuracy (or MSE) too. A cross-validated estimator's table has each tree's mean validation
    score and marks (``*``) the tree it chose. The caption says what a row and the complexity
    are; notes under the table explain the rows of a single alpha and those of none.
    """
    model = getattr(estimator, "best_estimator_", estimator)   # a CV estimator's refit
    front = model.pareto_front_
    classifier = hasattr(estimator, "classes_")
    columns = ["alpha from", "alpha to", "train accuracy" if classifier else "train MSE"]
    cells = [[], [], [f"{1 - loss if classifier else loss:.4f}" for loss in front["train_loss"]]]
    # A tree of a Pareto front that no alpha selects has no alpha range.
    selectable = ~np.isnan(front["alpha_min"])
    for k, bound in enumerate(("alpha_min", "alpha_max")):
        cells[k] = [f"{value:.6g}" if ok else "-"
                    for value, ok in zip(front[bound], selectable, strict=True)]
    # A range of one point is a tree that ties with its neighbour there and wins the
    # tie-break: alpha = 0 (the default) selects, among the most accurate trees, the purest.
    single = selectable & (front["alpha_min"] == front["alpha_max"])
    cells[1] = [f"{cell} only" if one else cell for cell, one in zip(cells[1], single,
                                                                      strict=True)]
    validation = _validation_scores(estimator)
    if validation is not None:
        scoring = getattr(estimator, "scoring", None) or ("accuracy" if classifier else "R²")
        columns.append(f"validation {scoring}")
        cells.append([f"{v:.4f}" if np.isfinite(v) else "-" for v in validation])
    if X_test is not None:
        columns.append("test accuracy" if classifier else "test MSE")
        figures = held_out_figures(estimator, X_test, y_test)
        cells.append([("-" if np.isnan(v) else f"{v:.4f}" if classifier else f"{v:.6g}")
                      for v in figures])
    columns += ["complexity", "leaves", "depth"]
    cells += [[f"{c:.4f}" for c in front["complexity"]], list(map(str, front["n_leaves"])),
              list(map(str, front["depth"]))]
    if validation is not None:
        chosen = model._front_index(estimator.alpha_, model.get_params()["max_complexity"])
        columns.append("chosen")
        cells.append(["*" if k == chosen else "" for k in range(len(front))])
    costs = ", each test at its feature's cost" if getattr(
        model, "feature_costs", None) is not None else ""
    if getattr(model, "complexity", "expected_tests") == "expected_tests":
        complexity = (f"complexity: expected tests per training sample{costs}; a tree of more "
                      "leaves can have a lower one, when its extra leaves are rarely reached.")
    else:
        complexity = f"complexity: the number of splits{costs}."
    lines = ["One row per tree of the front; an alpha from 'alpha from' to 'alpha to' predicts "
             "with it.", complexity, "",
             "| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in zip(*cells, strict=True)]
    notes = []
    if single.any():
        notes.append("'only': selected at that alpha alone, where it ties with its neighbours "
                     "in train loss + alpha × complexity and wins on purer leaves (alpha = 0, "
                     "the default, takes the purest of the most accurate trees).")
    if not selectable.all():
        notes.append("'-': a tree of front=\"pareto\" that no alpha selects; max_complexity "
                     "(select_tree) does.")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def _validation_scores(estimator):
    """Return a CV estimator's mean validation score of each tree of its front, or None.

    NaN for a tree the curve does not score.
    """
    curve = getattr(estimator, "validation_curve_", None)
    if curve is None:
        return None
    model = estimator.best_estimator_
    scores = np.full(len(model.pareto_front_), np.nan)
    # The curve scores, at the chosen depth, one alpha per tree of the refit's front.
    for row in curve[curve["max_depth"] == estimator.max_depth_]:
        scores[model._front_index(row["alpha"])] = row["mean_score"]
    return scores


# ---------------------------------------------------------------------------------------------
# Reading data


def _read_table(path):
    """Return a DataFrame from a CSV or Parquet file, or the arrays of an .npz file."""
    path = Path(path)
    if not path.is_file():
        raise CommandError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        try:
            archive = np.load(path, allow_pickle=False)
            if not isinstance(archive, np.lib.npyio.NpzFile):   # a .npy file, renamed
                raise ValueError("a single .npy array, not an archive")
            with archive:
                return {key: archive[key] for key in archive.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise CommandError(f"{path}: not a readable .npz archive ({exc})") from None
    pd = _pandas()
    try:
        if suffix in (".parquet", ".pq"):
            require("pyarrow", "reading Parquet")
            return pd.read_parquet(path)
        if suffix in (".csv", ".txt", ".tsv"):
            return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: not a readable table ({exc})") from None
    raise CommandError(f"{path}: unknown file type {suffix!r}; use .csv, .parquet or .npz")


def _pandas():
    """Return pandas, which reading and writing tables needs (the `cli` extra)."""
    return require("pandas", "reading and writing tables")


def _check_numeric(frame, path):
    """Refuse non-numeric feature columns, naming them; missing values (NaN) are the trees'."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind not in "biuf":
            raise CommandError(f"{path}: column {column!r} is not numeric (dtype {values.dtype}); "
                               "DPDT trees need numeric features: one-hot encode it, or fit "
                               "--model branches (categorical columns)")


def _features_and_target(path, target, *, need_target=True, categorical=False):
    """Return (X, y, extra) from a data file; ``extra`` holds an .npz file's test split."""
    table = _read_table(path)
    if isinstance(table, dict):
        if target is not None:
            raise CommandError("--target names a column of a CSV or Parquet file; an .npz "
                               "archive holds arrays X and y (or X_train, y_train)")
        for x_key, y_key in (("X", "y"), ("X_train", "y_train"), ("X_test", "y_test")):
            if x_key in table:
                X = np.asarray(table[x_key])
                if X.ndim != 2 or X.dtype.kind not in "biuf":
                    raise CommandError(f"{path}: {x_key} must be a 2-D numeric array, got "
                                       f"shape {X.shape} and dtype {X.dtype}")
                y = table.get(y_key)
                if y is None and need_target:
                    raise CommandError(f"{path}: the archive has {x_key} but no {y_key}")
                test = ((table["X_test"], table["y_test"])
                        if x_key == "X_train" and "X_test" in table and "y_test" in table
                        else None)
                return X, y, test
        raise CommandError(f"{path}: the archive holds {sorted(table)}, not X and y "
                           "(or X_train and y_train)")
    if target is None:
        if need_target:
            raise CommandError(f"{path}: name the column to predict with --target "
                               f"(columns: {', '.join(map(str, table.columns))})")
        return table, None, None   # the caller picks and checks the model's columns
    if target not in table.columns:
        raise CommandError(f"{path}: unknown column {target!r} for --target "
                           f"(columns: {', '.join(map(str, table.columns))})")
    y = table[target].to_numpy()
    if table[target].isna().any():
        raise CommandError(f"{path}: the target column {target!r} has missing values")
    X = table.drop(columns=[target])
    if X.shape[1] == 0:
        raise CommandError(f"{path}: no feature columns besides the target {target!r}")
    if not categorical:   # BRANCHES takes categorical columns as they are
        _check_numeric(X, path)
    return X, y, None


def _training_data(args):
    """Return (name, X_train, y_train, X_test, y_test, regression) for fit and pareto."""
    if (args.data is None) == (args.dataset is None):
        raise CommandError("give a data file or --dataset NAME (exactly one)")
    if args.dataset is not None:
        if args.dataset not in datasets.list_datasets():
            task = "regression" if args.regression else "classification"
            names = ", ".join(datasets.list_datasets(task=task))
            raise CommandError(f"unknown {task} dataset {args.dataset!r} (bundled: {names})")
        # Frames, as a table's columns are: the model names the features.
        require("pandas", f"dpdt {args.command} --dataset")
        data = datasets.load(args.dataset, as_frame=True)
        return (args.dataset, data.X_train, data.y_train.to_numpy(), data.X_test,
                data.y_test.to_numpy(), data.task == "regression")
    categorical = getattr(args, "model", "tree") == "branches"
    X, y, test = _features_and_target(args.data, args.target, categorical=categorical)
    if args.test is not None:
        X_test, y_test, _ = _features_and_target(args.test, args.target, categorical=categorical)
        if hasattr(X, "columns") and list(X_test.columns) != list(X.columns):
            missing = [c for c in X.columns if c not in X_test.columns]
            if missing:
                raise CommandError(f"{args.test}: missing feature columns {missing}")
            X_test = X_test[X.columns]
        test = (X_test, y_test)
    X_test, y_test = test if test is not None else (None, None)
    return Path(args.data).name, X, y, X_test, y_test, _is_regression(args, y)


# An integer-valued target with more distinct values than this is no obvious set of classes.
MAX_AUTO_CLASSES = 20


def _is_regression(args, y):
    """Return whether to fit a regressor: --task (or --regression), else what the target is."""
    task = "regression" if args.regression else args.task
    values = np.asarray(y)
    numeric = values.dtype.kind in "biuf"
    if task == "regression" and not numeric:
        raise CommandError(f"--task regression needs a numeric target, got dtype {values.dtype}")
    if task != "auto":
        return task == "regression"
    if not numeric:
        return False
    if values.dtype.kind == "f" and not np.all(np.mod(values, 1) == 0):
        return True   # non-integer values: a quantity, not classes
    distinct = len(np.unique(values))
    if distinct > MAX_AUTO_CLASSES:
        raise CommandError(f"the target has {distinct} distinct integer values: say --task "
                           "regression or --task classification")
    return False


def _estimator(args, regression):
    depth = 3 if args.max_depth is None else args.max_depth
    model = getattr(args, "model", "tree")   # pareto fits trees only
    if model == "branches":
        if regression:
            raise CommandError("--model branches is a classifier: its target is classes")
        return BranchesClassifier(lam=args.lam, max_depth=args.max_depth,
                                  time_limit=args.time_limit, verbose=args.verbose)
    if model == "boosting":
        cls = DPDTGradientBoostingRegressor if regression else DPDTGradientBoostingClassifier
        return cls(n_estimators=args.n_estimators, max_depth=depth, n_jobs=args.n_jobs,
                   verbose=args.verbose)
    search = dict(candidates=tuple(args.candidates) if args.candidates else "auto",
                  splitter=args.splitter[0] if len(args.splitter) == 1 else tuple(args.splitter),
                  complexity=args.complexity, n_jobs=args.n_jobs, verbose=args.verbose)
    if getattr(args, "cv", None) is not None:
        if args.alpha != 0.0:
            raise CommandError("--cv chooses alpha: give --cv or --alpha, not both")
        if args.front != "convex":
            raise CommandError("--cv chooses among the trees of the convex front: give --cv "
                               "or --front pareto, not both")
        cls = DPDTreeRegressorCV if regression else DPDTreeClassifierCV
        return cls(max_depth=depth, cv=args.cv, **search)
    cls = DPDTreeRegressor if regression else DPDTreeClassifier
    return cls(max_depth=depth, alpha=args.alpha, front=args.front, **search)


def _metrics(estimator, X, y):
    """Return the metrics line of a fitted estimator on (X, y)."""
    if hasattr(estimator, "classes_"):
        return f"accuracy {estimator.score(X, y):.4f}"
    from sklearn.metrics import mean_squared_error, r2_score

    predicted = estimator.predict(X)
    return f"MSE {mean_squared_error(y, predicted):.6g}, R² {r2_score(y, predicted):.4f}"


def _fit_and_report(args):
    name, X, y, X_test, y_test, regression = _training_data(args)
    estimator = _estimator(args, regression)
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    what = ("regression" if regression
            else f"{len(estimator.classes_)} classes")
    print(f"# {name}: {X.shape[0]} samples, {X.shape[1]} features, {what}; "
          f"fitted in {seconds:.3f} s\n")
    return estimator, X, y, X_test, y_test


def _chosen_by_cv(estimator, folds):
    """Return the sentence that says which tree cross-validation chose."""
    return (f"Tree for alpha = {estimator.alpha_:.6g}, chosen by {folds}-fold "
            f"cross-validation (mean score {estimator.best_score_:.4f})")


def _fit(args):
    estimator, X, y, X_test, y_test = _fit_and_report(args)
    if args.model != "tree":
        return _fit_other(args, estimator, X, y, X_test, y_test)
    if hasattr(estimator, "alpha_"):
        print(f"{_chosen_by_cv(estimator, args.cv)}:\n")
    else:
        print(f"Tree for alpha = {args.alpha:g}:\n")
    print(export_text(estimator))
    _print_metrics(estimator, X, y, X_test, y_test)
    if args.dataset is not None and args.max_depth in (None, 3):
        errors = datasets.load(args.dataset).optimal_depth3_errors
        if errors is not None:
            print(f"proven optimal depth-3 train accuracy {1.0 - errors / len(y):.4f} "
                  f"({errors} errors)")
    print("\nPareto front (one fit, every alpha):\n")
    print(format_front(estimator, X_test, y_test))
    stats = getattr(estimator, "best_estimator_", estimator).stats_
    print(f"\n{stats['states']} states, {stats['candidates']} candidate splits, "
          f"{stats['cache_hits']} cache hits")
    return _save(args, estimator)


def _fit_other(args, estimator, X, y, X_test, y_test):
    """Report a BRANCHES tree or a boosting model: its rules or rounds, and its metrics."""
    if hasattr(estimator, "estimators_"):
        print(f"{len(estimator.estimators_)} boosting rounds of depth-{estimator.max_depth} "
              "DPDT trees\n")
    else:
        status = "certified optimal" if estimator.is_optimal_ else (
            f"best found in time, objective at most {estimator.upper_bound_:.6g}")
        print(f"BRANCHES tree for lam = {args.lam:g} ({status}):\n")
        print(export_text(estimator))
    _print_metrics(estimator, X, y, X_test, y_test)
    return _save(args, estimator)


def _print_metrics(estimator, X, y, X_test, y_test):
    line = f"train {_metrics(estimator, X, y)}"
    if X_test is not None:
        line += f", test {_metrics(estimator, X_test, y_test)}"
    print(line)


def _save(args, estimator):
    """Save the model where --out says, if it says; return the command's status."""
    if args.out is not None:
        estimator.save(args.out)
        print(f"\nsaved to {args.out}")
    return 0


def _pyplot(option):
    require("matplotlib", option).use("Agg")   # files only: no display needed
    return require("matplotlib.pyplot", option)


def _pareto(args):
    from ._plot import plot_pareto

    estimator, X, y, X_test, y_test = _fit_and_report(args)
    if hasattr(estimator, "alpha_"):
        print(f"{_chosen_by_cv(estimator, args.cv)}, marked * below.\n")
    print(format_front(estimator, X_test, y_test))
    if args.plot is not None:
        plt = _pyplot("--plot")
        ax = plot_pareto(estimator, X=X, y=y, show_cart=not args.no_cart, X_test=X_test,
                         y_test=y_test)
        ax.figure.savefig(args.plot, dpi=args.dpi, bbox_inches="tight")
        plt.close(ax.figure)
        print(f"\nfront drawn in {args.plot}")
    return 0


def _load_model(path):
    if not Path(path).is_file():
        raise CommandError(f"no such file: {path}")
    return load(path)


def _show(args):
    from ._plot import plot_tree

    model = _load_model(args.model)
    if args.alpha is not None:
        if "alpha" not in model.get_params():
            raise CommandError(f"{type(model).__name__} has no alpha")
        model.set_params(alpha=args.alpha)
    print(f"# {model!r}\n")   # scikit-learn's repr: the non-default parameters
    if hasattr(model, "tree_"):
        print(export_text(model))
    else:
        print(f"{len(model.estimators_)} boosting rounds\n")
    if hasattr(model, "pareto_front_"):
        print("Pareto front:\n")
        print(format_front(model))
    if args.png is not None:
        if not hasattr(model, "tree_"):
            raise CommandError(f"{type(model).__name__} is not a single tree; nothing to draw")
        plt = _pyplot("--png")
        ax = plot_tree(model, max_depth=args.max_depth)
        ax.figure.savefig(args.png, dpi=args.dpi, bbox_inches="tight")
        plt.close(ax.figure)
        print(f"\ntree drawn in {args.png}")
    return 0


def _predict(args):
    pd = _pandas()

    model = _load_model(args.model)
    X, _, _ = _features_and_target(args.data, None, need_target=False)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        if not hasattr(X, "columns"):
            raise CommandError(f"{args.data}: the model was fitted on named columns "
                               f"{list(names)}; give a CSV or Parquet file")
        missing = [str(n) for n in names if n not in X.columns]
        if missing:
            raise CommandError(f"{args.data}: missing feature columns {missing}")
        X = X[list(names)]
    if hasattr(X, "columns") and not isinstance(model, _CATEGORICAL_MODELS):
        _check_numeric(X, args.data)
    if X.shape[1] != model.n_features_in_:
        raise CommandError(f"{args.data}: {X.shape[1]} features, the model expects "
                           f"{model.n_features_in_}")
    output = pd.DataFrame({"prediction": model.predict(X)})
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        for k, label in enumerate(model.classes_):
            output[f"proba_{label}"] = proba[:, k]
    if args.out is None:
        output.to_csv(sys.stdout, index=False)
    else:
        output.to_csv(args.out, index=False)
        print(f"{len(output)} predictions written to {args.out}")
    return 0


def _explore(args):
    from ._explorer import export_html

    model = _load_model(args.model)
    if not hasattr(model, "tree_"):
        raise CommandError(f"{type(model).__name__} is not a single tree; nothing to explore")
    categorical = isinstance(model, _CATEGORICAL_MODELS)
    data = {}
    for name, path in (("test", args.test), ("train", args.train)):
        if path is None:
            continue
        X, y, _ = _features_and_target(path, args.target, categorical=categorical)
        names = getattr(model, "feature_names_in_", None)
        if names is not None and hasattr(X, "columns"):
            missing = [str(n) for n in names if n not in X.columns]
            if missing:
                raise CommandError(f"{path}: missing feature columns {missing}")
            X = X[list(names)]
        data[name] = (X, y)
    X_test, y_test = data.get("test", (None, None))
    X, y = data.get("train", (None, None))
    export_html(model, args.out, X_test, y_test, X=X, y=y)
    print(f"explorer page written to {args.out}")
    return 0


def _add_fit_options(parser):
    parser.add_argument("data", nargs="?", help="training data: .csv, .parquet or .npz")
    parser.add_argument("--dataset", help="name of a bundled dataset instead of a file")
    parser.add_argument("--target", help="column to predict (CSV/Parquet)")
    parser.add_argument("--test", help="held-out data file with the same columns")
    parser.add_argument("--task", choices=["auto", "classification", "regression"],
                        default="auto",
                        help="auto: regression for a target with non-integer values, "
                             "classification for labels or few integers, else asks")
    parser.add_argument("--regression", action="store_true", help="the same as --task regression")
    parser.add_argument("--max-depth", type=int, default=None,
                        help="depth limit (default 3; none for --model branches)")
    parser.add_argument("--candidates", type=int, nargs="+",
                        help="candidate splits per depth (default: chosen with the splitter)")
    parser.add_argument("--splitter", nargs="+", default=["auto"],
                        choices=sorted(SPLITTERS | {"auto"}),
                        help="split generator, or one per depth")
    parser.add_argument("--alpha", type=float, default=0.0)
    parser.add_argument("--complexity", choices=["expected_tests", "n_splits"],
                        default="expected_tests")
    parser.add_argument("--front", choices=["convex", "pareto"], default="convex",
                        help="pareto: also the trees between the hull's, which no alpha selects")
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="report the fit's progress on stderr (a bar on a terminal with tqdm "
                             "installed)")


def _add_cv_option(parser):
    parser.add_argument("--cv", type=int, metavar="K",
                        help="choose alpha by K-fold cross-validation (DPDTreeClassifierCV or "
                             "DPDTreeRegressorCV) instead of --alpha")


def build_parser():
    """Return the argument parser of the ``dpdt`` command."""
    parser = argparse.ArgumentParser(prog="dpdt", description="Non-greedy decision trees (DPDT).")
    commands = parser.add_subparsers(dest="command", required=True)

    fit = commands.add_parser("fit", help="fit a tree, print it and its Pareto front")
    _add_fit_options(fit)
    fit.add_argument("--out", help="save the fitted model to this JSON file")
    fit.add_argument("--model", choices=["tree", "branches", "boosting"], default="tree",
                     help="tree: a DPDT tree (default); branches: BRANCHES' certified optimal "
                          "tree on categorical columns; boosting: gradient boosting of DPDT trees")
    fit.add_argument("--lam", type=float, default=0.01,
                     help="--model branches: the penalty per split")
    fit.add_argument("--time-limit", type=float, default=None,
                     help="--model branches: seconds before the best tree found is returned")
    fit.add_argument("--n-estimators", type=int, default=100,
                     help="--model boosting: the boosting rounds")
    _add_cv_option(fit)
    fit.set_defaults(handler=_fit)

    pareto = commands.add_parser("pareto", help="fit, print and draw the Pareto front")
    _add_fit_options(pareto)
    _add_cv_option(pareto)
    pareto.add_argument("--plot", help="draw the front (and CART's pruning path; with --cv the "
                                       "validation curve, with --test the test curve) in this "
                                       "PNG")
    pareto.add_argument("--no-cart", action="store_true", help="do not draw CART's path")
    pareto.add_argument("--dpi", type=int, default=120)
    pareto.set_defaults(handler=_pareto)

    show = commands.add_parser("show", help="print (or draw) a saved model")
    show.add_argument("model", help="a model saved by `dpdt fit --out` or estimator.save")
    show.add_argument("--alpha", type=float, help="show the tree of the front for this alpha")
    show.add_argument("--png", help="draw the tree in this PNG file")
    show.add_argument("--dpi", type=int, default=120)
    show.add_argument("--max-depth", type=int, metavar="N",
                      help="draw only the top N levels (deeper subtrees as '(...)')")
    show.set_defaults(handler=_show)

    explore = commands.add_parser("explore", help="write the explorer page of a saved model: "
                                  "its whole Pareto front and every tree, in one HTML file")
    explore.add_argument("model", help="a saved model (JSON)")
    explore.add_argument("--test", help="held-out data (.csv, .parquet, .npz): the test curve "
                                        "and samples to route through the trees")
    explore.add_argument("--train", help="the training data, for CART's pruning path")
    explore.add_argument("--target", help="the target column of --test and --train (CSV/Parquet)")
    explore.add_argument("--out", required=True, help="the HTML file to write")
    explore.set_defaults(handler=_explore)

    predict = commands.add_parser("predict", help="predict with a saved model")
    predict.add_argument("model", help="a saved model (JSON)")
    predict.add_argument("data", help="samples: .csv, .parquet or .npz")
    predict.add_argument("--out", help="write the predictions to this CSV (default: stdout)")
    predict.set_defaults(handler=_predict)
    return parser


# Exceptions whose message is the whole explanation.
_EXPLAINED = (ValueError, TypeError, ImportError, OSError)


def main(argv=None):
    """Run the ``dpdt`` command line.

    Every error, whatever the input, is one line on stderr and exit status 2.
    """
    args = build_parser().parse_args(argv)
    np.set_printoptions(precision=4)
    try:
        return args.handler(args)
    except BrokenPipeError:   # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: the shell's status for SIGINT, no traceback
        print(f"dpdt {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # Whatever the input files hold, the answer is one line and status 2, never a
        # traceback: the errors dpdt raises name the problem, any other is named by its type.
        message = str(exc) if isinstance(exc, _EXPLAINED) and str(exc) else (
            f"{type(exc).__name__}: {exc}")
        print(f"dpdt {args.command}: {' '.join(message.split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
