"""The ``dpdt`` command line: fit, pareto, policy, show, predict, explore.

Only the standard library is imported with this module: the estimators, numpy, pandas,
scikit-learn and matplotlib are imported by the commands that use them, so that ``dpdt
--help`` and the errors of a mistyped command answer at once.
"""

import argparse
import contextlib
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

from ._optional import require

# `-` for a file to write: standard output.
STDOUT = "-"


class CommandError(ValueError):
    """A problem with the command's input, reported as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, as every error of the command."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {' '.join(message.split())} (see {self.prog} --help)\n")


def format_front(estimator, X_test=None, y_test=None):
    """Return the Pareto front of a fitted estimator as a markdown table under its caption.

    One row per tree of the front, simplest last. With held-out data, each tree's test
    accuracy (or MSE) too. A cross-validated estimator's table has each tree's mean validation
    score and marks (``*``) the tree it chose. The caption says what a row and the complexity
    are; notes under the table explain the rows of a single alpha and those of none.
    """
    import numpy as np

    from ._front import held_out_figures

    model = getattr(estimator, "best_estimator_", estimator)   # a CV estimator's refit
    front = model.pareto_front_
    classifier = hasattr(estimator, "classes_")
    # A policy's loss is its regret: the mean reward of each sample's best action, less its own.
    loss = "accuracy" if classifier else "regret" if hasattr(model, "actions_") else "MSE"
    columns = ["alpha from", "alpha to", f"train {loss}"]
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
        columns.append(f"test {loss}")
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
             "with it.", complexity]
    if loss == "regret":
        lines.append("regret: the mean, over the samples, of the reward of their best action "
                     "less that of the tree's action (the tree's value is their best actions' "
                     "mean reward less its regret).")
    lines += ["", "| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
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
    import numpy as np

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
    import numpy as np

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


# What a model takes in its feature columns: numbers only (a model fitted on numbers),
# numbers and categories to one-hot encode (the DPDT models at fit), or any column as it is
# (the multiway trees, which take categories).
NUMERIC, ENCODED, AS_IS = "numeric", "encoded", "as is"


def _check_features(frame, path, columns):
    """Refuse the feature columns a model cannot take, naming them.

    Missing values (NaN) are the models' business; infinity is no value of a feature.
    """
    import numpy as np

    from ._onehot import is_categorical

    for name in frame.columns:
        values = frame[name]
        if values.dtype.kind in "biuf":
            if values.dtype.kind == "f" and np.isinf(values.to_numpy()).any():
                raise CommandError(f"{path}: column {name!r} has infinite values; features are "
                                   "finite numbers, or missing (an empty cell, NaN)")
        elif columns == NUMERIC:
            raise CommandError(f"{path}: column {name!r} is not numeric (dtype {values.dtype}); "
                               "the model was fitted on numbers")
        elif columns == ENCODED and not is_categorical(values):
            raise CommandError(f"{path}: column {name!r} holds neither numbers nor categories "
                               f"(dtype {values.dtype})")


def _check_target(y, path, target):
    import numpy as np

    if y.dtype.kind == "f" and np.isinf(y).any():
        raise CommandError(f"{path}: the target {target!r} has infinite values")


def _features_and_target(path, target, *, need_target=True, columns=ENCODED):
    """Return (X, y, extra) from a data file; ``extra`` holds an .npz file's test split.

    ``columns`` says which feature columns to accept (see NUMERIC); without a target, the
    caller picks the model's columns of a table and checks them.
    """
    import numpy as np

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
                if X.dtype.kind == "f" and np.isinf(X).any():
                    raise CommandError(f"{path}: {x_key} has infinite values; features are "
                                       "finite numbers, or missing (NaN)")
                y = table.get(y_key)
                if y is None and need_target:
                    raise CommandError(f"{path}: the archive has {x_key} but no {y_key}")
                if y is not None:
                    _check_target(np.asarray(y), path, y_key)
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
    _check_target(y, path, target)
    X = table.drop(columns=[target])
    if X.shape[1] == 0:
        raise CommandError(f"{path}: no feature columns besides the target {target!r}")
    _check_features(X, path, columns)
    return X, y, None


def _training_data(args):
    """Return (name, X_train, y_train, X_test, y_test, regression) for fit and pareto."""
    from . import datasets

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
    columns = AS_IS if getattr(args, "model", "tree") == "branches" else ENCODED
    X, y, test = _features_and_target(args.data, args.target, columns=columns)
    if args.test is not None:
        X_test, y_test, _ = _features_and_target(args.test, args.target, columns=columns)
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
    import numpy as np

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


# ---------------------------------------------------------------------------------------------
# The models and their options


# The models' parameters that `dpdt fit` and `dpdt pareto` take as options (with `-v` for
# verbose); a model takes those of its parameters given, and refuses the others.
MODEL_OPTIONS = ("max_depth", "candidates", "splitter", "alpha", "complexity", "front",
                 "max_bins", "time_limit", "n_jobs", "lam", "n_estimators", "learning_rate",
                 "max_cost")
# What --model chooses; "cv" is the tree whose alpha --cv chooses.
MODELS = ("tree", "branches", "boosting")


def _records(model):
    """Return the parameter records of a model: (the classifier's, the regressor's)."""
    from . import _params

    return {"tree": (_params.CLASSIFIER, _params.REGRESSOR),
            "cv": (_params.CLASSIFIER_CV, _params.REGRESSOR_CV),
            "branches": (_params.BRANCHES, ()),
            "boosting": (_params.BOOSTING, _params.BOOSTING_REGRESSOR),
            "policy": (_params.POLICY, ())}[model]


def _classes(model):
    """Return the estimator classes of a model: (classifier, regressor or None)."""
    if model == "tree":
        from ._classes import DPDTreeClassifier, DPDTreeRegressor

        return DPDTreeClassifier, DPDTreeRegressor
    if model == "cv":
        from ._cv import DPDTreeClassifierCV, DPDTreeRegressorCV

        return DPDTreeClassifierCV, DPDTreeRegressorCV
    if model == "branches":
        from ._branches import BranchesClassifier

        return BranchesClassifier, None
    if model == "policy":
        from ._policy import DPDTreePolicy

        return DPDTreePolicy, None
    from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor

    return DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor


def _flag(name):
    return "--" + name.replace("_", "-")


def _takers(name, models):
    """Return the models (of ``models``) that have the parameter ``name``, with its record."""
    takers = {}
    for model in models:
        record = next((p for p in _records(model)[0] if p.name == name), None)
        if record is not None:
            takers[model] = record
    return takers


def _shown(value):
    """Return a default as an option's value reads: none, auto, 3 3 3."""
    if value is None:
        return "none"
    if isinstance(value, tuple | list):
        return " ".join(map(str, value))
    return str(value)


def _first_sentence(doc):
    """Return the first sentence of a record's documentation, without its reST markup."""
    import re

    text = " ".join(doc.split())
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    sentence = re.match(r"(.+?\.)(\s|$)", text)
    return (sentence.group(1) if sentence else text).replace("%", "%%")


def _describe(constraints):
    """Return the values that ``constraints`` (scikit-learn's) allow, as an option takes them."""
    from numbers import Integral

    from sklearn.utils._param_validation import StrOptions, make_constraint

    words = sorted({o for c in constraints if isinstance(c, StrOptions) for o in c.options})
    parts = [f"one of {', '.join(words)}"] if words else []
    parts += ["an int" if c is Integral else "none" if c is None else str(make_constraint(c))
              for c in constraints if not isinstance(c, StrOptions)]
    return " or ".join(parts)


def _value_type(constraints):
    """Return the argparse type of an option: the values one of ``constraints`` allows.

    The constraints are scikit-learn's, from the parameter records: the estimator checks the
    value again for its own parameter.
    """
    from sklearn.utils._param_validation import StrOptions, make_constraint

    checks = [make_constraint(c) for c in constraints]
    words = [str(option) for c in constraints if isinstance(c, StrOptions)
             for option in sorted(c.options)]

    def convert(text):
        readings = [text] if text in words else []
        if text.lower() == "none":
            readings.append(None)
        for kind in (int, float):
            try:
                readings.append(kind(text))
            except ValueError:
                pass
        for value in readings:
            if any(check.is_satisfied_by(value) for check in checks):
                return value
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: expected {_describe(constraints)}")

    convert.__name__ = "value"
    return convert


def _add_model_options(parser, models):
    """Add the options of MODEL_OPTIONS that some of ``models`` take, from their records.

    The help is the first sentence of the record's documentation and each model's default; an
    option not given is left to the model's default (and its value to the model's check).
    """
    from sklearn.utils._param_validation import StrOptions, make_constraint

    for name in MODEL_OPTIONS:
        takers = _takers(name, models)
        if not takers:
            continue
        records = list(takers.values())
        constraints, seen = [], set()
        for record in records:
            for constraint in record.constraint:
                if constraint in (tuple, list):
                    continue
                # The models' constraints, once each (they repeat the trees' records).
                described = str(make_constraint(constraint))
                if described not in seen:
                    seen.add(described)
                    constraints.append(constraint)
        sequence = any(c in (tuple, list) for r in records for c in r.constraint)
        words = sorted({o for c in constraints if isinstance(c, StrOptions) for o in c.options})
        defaults = {model: _shown(record.default) for model, record in takers.items()
                    if model != "cv"}
        if len(set(defaults.values())) == 1:
            default = f"default: {next(iter(defaults.values()))}"
        else:
            default = "default: " + ", ".join(f"{value} ({model})"
                                                 for model, value in defaults.items())
        who = "" if set(takers) >= set(models) - {"cv"} else \
            " Only " + " and ".join(f"--model {m}" for m in takers if m != "cv") + "."
        choices = not sequence and all(isinstance(c, StrOptions) for c in constraints)
        each = " (one, or one per depth)" if sequence else ""
        values = "" if choices else f" Values{each}: {_describe(constraints)}."
        parser.add_argument(
            _flag(name), type=_value_type(constraints), nargs="+" if sequence else None,
            default=argparse.SUPPRESS,
            metavar="{" + ",".join(words) + "}" if choices else name.upper(),
            help=f"{_first_sentence(records[0].doc)}{who}{values} ({default})")


def _given(args):
    """Return the model parameters given on the command line, as the estimators take them."""
    given = {}
    for name in MODEL_OPTIONS:
        if not hasattr(args, name):
            continue
        value = getattr(args, name)
        if isinstance(value, list):   # nargs="+": one value, or one per depth
            if name == "candidates":
                value = value[0] if value == ["auto"] else tuple(value)
            else:
                value = value[0] if len(value) == 1 else tuple(value)
        given[name] = value
    return given


def _estimator(args, regression, X):
    """Return the estimator the options ask for, one-hot encoding a table's categories."""
    model = getattr(args, "model", "tree")   # pareto fits trees only
    kind = model
    if getattr(args, "cv", None) is not None:
        if model != "tree":
            raise CommandError(f"--cv chooses the alpha of a tree, not of --model {model}")
        kind = "cv"
    classifier, regressor = _classes(kind)
    if regression and regressor is None:
        raise CommandError(f"--model {model} is a classifier: its target is classes")
    records = _records(kind)[1 if regression else 0]
    names = {record.name for record in records}
    params = _given(args)
    for name in params:
        if name in names:
            continue
        if kind == "cv":
            raise CommandError(f"--cv chooses alpha among the trees of the convex front: give "
                               f"--cv or {_flag(name)}, not both")
        takers = " and ".join(f"--model {m}" for m in _takers(name, MODELS))
        raise CommandError(f"{_flag(name)} is an option of {takers}, not of --model {model}")
    if args.verbose:
        params["verbose"] = args.verbose
    if kind == "cv":
        params["cv"] = args.cv
    estimator = (regressor if regression else classifier)(**params)
    if model != "branches" and hasattr(X, "columns"):
        from ._onehot import OneHotEncoded, is_categorical

        if any(is_categorical(X[name]) for name in X.columns):
            return OneHotEncoded(estimator)
    return estimator


def _fit_model(estimator, X, y, **fit_params):
    """Fit; a numeric column that BRANCHES would split a value at a time is refused."""
    from ._branches import ManyValuesWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", ManyValuesWarning)
        try:
            estimator.fit(X, y, **fit_params)
        except ManyValuesWarning as warning:
            many = warning.features
            shown = ", ".join(f"{name!r} ({n} values)" for name, n in many[:5])
            more = f" and {len(many) - 5} more" if len(many) > 5 else ""
            raise CommandError(
                f"numeric column{'s' if len(many) > 1 else ''} {shown}{more} look"
                f"{'' if len(many) > 1 else 's'} continuous: BRANCHES would make a child per "
                "value; bin with --max-bins 10 (quantile bins), or fit --model tree (thresholds)"
            ) from None


def _warn_many_categories(X):
    """Warn about columns of strings that have as many values as a measurement would.

    Such a column (more than 32 distinct values and more than one per ten rows, the rule
    BRANCHES applies to numbers) becomes that many indicator columns: numbers with a few cells
    that are not (then named), or an identifier.
    """
    from ._branches import MANY_VALUES
    from ._onehot import is_categorical

    for name in X.columns:
        column = X[name]
        if not is_categorical(column):
            continue
        values = column.dropna().astype(str).unique()
        if len(values) <= max(MANY_VALUES, len(X) / 10):
            continue
        words = [value for value in values if not _is_number(value)]
        why = (f"it holds numbers but for {words[:3]}: fix or empty those cells"
               if len(words) <= len(values) / 10
               else "an identifier or free text? drop it from the table")
        warnings.warn(f"column {name!r} has {len(values)} distinct values among {len(X)} rows, "
                      f"one indicator column each; {why}", UserWarning, stacklevel=2)


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _metrics(estimator, X, y):
    """Return the metrics line of a fitted estimator on (X, y)."""
    if hasattr(estimator, "classes_"):
        return f"accuracy {estimator.score(X, y):.4f}"
    from sklearn.metrics import mean_squared_error, r2_score

    predicted = estimator.predict(X)
    return f"MSE {mean_squared_error(y, predicted):.6g}, R² {r2_score(y, predicted):.4f}"


def _fit_and_report(args):
    """Fit; return (the estimator to save, the model to report, X, y, X_test, y_test).

    A model fitted on one-hot encoded categories is reported on the encoded tables.
    """
    name, X, y, X_test, y_test, regression = _training_data(args)
    estimator = _estimator(args, regression, X)
    model, X, X_test, features, seconds = _fit_table(estimator, X, y, X_test)
    what = ("regression" if regression
            else f"{len(estimator.classes_)} classes")
    print(f"# {name}: {X.shape[0]} samples, {features}, {what}; fitted in {seconds:.3f} s\n")
    return estimator, model, X, y, X_test, y_test


def _fit_table(estimator, X, y, X_test, **fit_params):
    """Fit ``estimator`` on (X, y); return (model, X, X_test, features, seconds).

    A model fitted on one-hot encoded categories is reported on the encoded tables: ``model``
    is the model inside, ``X`` and ``X_test`` the encoded tables, and ``features`` (a phrase
    for the report's first line) says which columns were encoded.
    """
    from ._onehot import OneHotEncoded

    if isinstance(estimator, OneHotEncoded):
        _warn_many_categories(X)   # before the fit, which many indicators slow down
    start = time.perf_counter()
    _fit_model(estimator, X, y, **fit_params)
    seconds = time.perf_counter() - start
    model = estimator
    features = f"{X.shape[1]} features"
    encoding = getattr(estimator, "encoding_", None)
    if encoding is not None:
        model = estimator.estimator_
        encoded = [str(c) for c, cats in zip(encoding.columns_, encoding.categories_,
                                             strict=True) if cats is not None]
        features += (f" ({', '.join(encoded)} one-hot encoded: {model.n_features_in_} "
                     "columns)")
        X = estimator.transform(X)
        X_test = None if X_test is None else estimator.transform(X_test)
    return model, X, X_test, features, seconds


def _chosen_by_cv(estimator, folds):
    """Return the sentence that says which tree cross-validation chose."""
    return (f"Tree for alpha = {estimator.alpha_:.6g}, chosen by {folds}-fold "
            f"cross-validation (mean score {estimator.best_score_:.4f})")


def _fit(args):
    from . import datasets
    from ._export import export_text

    estimator, model, X, y, X_test, y_test = _fit_and_report(args)
    if args.model != "tree":
        return _fit_other(args, estimator, model, X, y, X_test, y_test)
    if hasattr(model, "alpha_"):
        print(f"{_chosen_by_cv(model, args.cv)}:\n")
    else:
        print(f"Tree for alpha = {model.alpha:g}:\n")
    print(export_text(model))
    _print_metrics(model, X, y, X_test, y_test)
    if args.dataset is not None and model.max_depth == 3:
        errors = datasets.load(args.dataset).optimal_depth3_errors
        if errors is not None:
            print(f"proven optimal depth-3 train accuracy {1.0 - errors / len(y):.4f} "
                  f"({errors} errors)")
    print("\nPareto front (one fit, every alpha):\n")
    print(format_front(model, X_test, y_test))
    stats = getattr(model, "best_estimator_", model).stats_
    print(f"\n{stats['states']} states, {stats['candidates']} candidate splits, "
          f"{stats['cache_hits']} cache hits")
    return _save(args, estimator)


def _fit_other(args, estimator, model, X, y, X_test, y_test):
    """Report a BRANCHES tree or a boosting model: its rules or rounds, and its metrics."""
    from ._export import export_text

    if hasattr(model, "estimators_"):
        print(f"{len(model.estimators_)} boosting rounds of depth-{model.max_depth} "
              "DPDT trees\n")
    else:
        status = "certified optimal" if model.is_optimal_ else (
            f"best found in time, objective at most {model.upper_bound_:.6g}")
        print(f"BRANCHES tree for lam = {model.lam:g} ({status}):\n")
        print(export_text(model))
    _print_metrics(model, X, y, X_test, y_test)
    return _save(args, estimator)


def _print_metrics(estimator, X, y, X_test, y_test):
    line = f"train {_metrics(estimator, X, y)}"
    if X_test is not None:
        line += f", test {_metrics(estimator, X_test, y_test)}"
    print(line)


# ---------------------------------------------------------------------------------------------
# Policy trees


def _check_rewards_form(args):
    """Refuse a command that names both forms of the rewards, or neither, or half of one."""
    causal = [flag for flag in ("treatment", "outcome") if getattr(args, flag) is not None]
    if args.rewards is not None and causal:
        raise CommandError(f"give --rewards (a column per action) or --treatment and --outcome "
                           f"(doubly robust rewards), not both: --rewards and --{causal[0]} "
                           "were given")
    if args.rewards is None and not causal:
        raise CommandError("name the rewards: --rewards A,B,... (the reward of each action, a "
                           "column each) or --treatment T --outcome Y (the action each sample "
                           "received, and its outcome)")
    if len(causal) == 1:
        other = "outcome" if causal[0] == "treatment" else "treatment"
        raise CommandError(f"--{causal[0]} needs --{other}: the doubly robust rewards are made "
                           "from the action each sample received and its outcome")


def _column_names(text, flag):
    """Return the names of a comma-separated list of columns, refusing empty and repeated ones."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise CommandError(f"{flag} {text!r}: an empty column name (separate names by commas)")
    repeated = [name for k, name in enumerate(names) if name in names[:k]]
    if repeated:
        raise CommandError(f"{flag} names the column {repeated[0]!r} twice")
    return names


def _columns(table, names, path, flag):
    """Return the columns ``names`` of a table, naming those it does not have."""
    missing = [name for name in names if name not in table.columns]
    if missing:
        listed = ", ".join(map(repr, missing))
        raise CommandError(f"{path}: no column{'s' if len(missing) > 1 else ''} {listed} for "
                           f"{flag} (columns: {', '.join(map(str, table.columns))})")
    return table[names]


def _check_numbers(frame, path, what):
    """Refuse the columns of ``frame`` that are not all finite numbers, naming them."""
    import numpy as np

    for name in frame.columns:
        values = frame[name]
        if values.dtype.kind not in "biuf":
            text = values.dropna().astype(str)
            words = [value for value in text if not _is_number(value)]
            example = f", e.g. {words[0]!r}" if words else ""
            raise CommandError(f"{path}: the {what} column {name!r} is not numeric (dtype "
                               f"{values.dtype}{example})")
        if values.isna().any():
            raise CommandError(f"{path}: the {what} column {name!r} has missing values")
        if values.dtype.kind == "f" and np.isinf(values.to_numpy()).any():
            raise CommandError(f"{path}: the {what} column {name!r} has infinite values")


def _policy_data(args, path, features=None, actions=None):
    """Return (X, rewards, costs) of a data file for ``dpdt policy``: a column per action.

    The rewards are the columns ``--rewards`` names, or the doubly robust scores of the
    ``--treatment`` and ``--outcome`` columns, cross-fitted on this file's rows alone (for a
    held-out file too: its rewards use no model fitted on the training rows). ``features``
    and ``actions`` are the training file's, for a held-out file. ``costs`` are those of
    ``--costs``, a column per action (None without it, and for a held-out file, whose value
    needs none).
    """
    table = _read_table(path)
    if isinstance(table, dict):
        raise CommandError(f"{path}: dpdt policy reads named columns (--rewards, --treatment, "
                           "--outcome); give a CSV or Parquet file")
    if len(table) == 0:   # pandas reads the columns of a header alone as text
        raise CommandError(f"{path}: no rows, only the columns "
                           f"{', '.join(map(str, table.columns))}")
    if args.rewards is not None:
        names = _column_names(args.rewards, "--rewards")
        if len(names) < 2:
            raise CommandError(f"--rewards names one column ({names[0]!r}): a policy chooses "
                               "among at least two actions, the reward of each in a column")
        rewards = _columns(table, names, path, "--rewards")
        _check_numbers(rewards, path, "reward")
        used = {name: "--rewards" for name in names}
    else:
        if args.treatment == args.outcome:
            raise CommandError(f"--treatment and --outcome name the same column "
                               f"{args.treatment!r}")
        treatment = _columns(table, [args.treatment], path, "--treatment")[args.treatment]
        outcome = _columns(table, [args.outcome], path, "--outcome")
        _check_numbers(outcome, path, "outcome")
        if treatment.isna().any():
            raise CommandError(f"{path}: the treatment column {args.treatment!r} has missing "
                               "values")
        used = {args.treatment: "--treatment", args.outcome: "--outcome"}
    costs = None
    if args.costs is not None and features is None:
        costs = _cost_items(args.costs, table, path, used)
    if features is None and args.features is not None:
        features = _column_names(args.features, "--features")
        taken = [name for name in features if name in used]
        if taken:
            raise CommandError(f"--features and {used[taken[0]]} both name {taken[0]!r}: a "
                               "column is a feature or what the actions are judged by, not both")
    if features is None:
        features = [name for name in table.columns if name not in used]
        if not features:
            raise CommandError(f"{path}: no feature columns besides those of "
                               f"{' and '.join(sorted(set(used.values())))}")
    X = _columns(table, list(features), path, "--features" if args.features else "the features")
    _check_features(X, path, ENCODED)
    if args.rewards is not None:
        rewards = rewards.astype("float64")
    else:
        rewards = _doubly_robust(args, path, X, treatment, outcome[args.outcome], actions)
    return X, rewards, None if costs is None else _cost_table(costs, table, rewards.columns)


def _cost_items(text, table, path, used):
    """Return the items of ``--costs``: a number (every sample's cost) or a column, each checked.

    The columns join ``used``: they are no features.
    """
    import numpy as np

    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise CommandError(f"--costs {text!r}: an empty cost (separate the costs of the "
                           "actions by commas)")
    parsed = []
    for item in items:
        if _is_number(item):
            cost = float(item)
            if not np.isfinite(cost) or cost < 0:
                raise CommandError(f"--costs {text!r}: the cost {item} is not a finite number "
                                   ">= 0")
            parsed.append(cost)
            continue
        if item in used:
            raise CommandError(f"--costs and {used[item]} both name {item!r}: a column is a "
                               "cost or what the actions are judged by, not both")
        column = _columns(table, [item], path, "--costs")
        _check_numbers(column, path, "cost")
        negative = column[item].to_numpy() < 0
        if negative.any():
            raise CommandError(f"{path}: the cost column {item!r} has negative values (e.g. "
                               f"{float(column[item].to_numpy()[negative][0]):.6g}): costs are "
                               ">= 0")
        used[item] = "--costs"
        parsed.append(item)
    return parsed


def _cost_table(items, table, actions):
    """Return the costs of ``items`` (:func:`_cost_items`) as a column per action."""
    import pandas as pd

    if len(items) != len(actions):
        raise CommandError(f"--costs gives {len(items)} cost{'s' if len(items) > 1 else ''} "
                           f"for {len(actions)} actions ({', '.join(map(str, actions))}): "
                           "one per action, in that order")
    return pd.DataFrame({action: (table[item].astype("float64").to_numpy()
                                  if isinstance(item, str) else float(item))
                         for action, item in zip(actions, items, strict=True)},
                        index=table.index)


def _doubly_robust(args, path, X, treatment, outcome, actions):
    """Return the doubly robust rewards of a file's rows, a column per action."""
    import numpy as np

    from ._onehot import OneHotColumns, is_categorical
    from ._rewards import doubly_robust_rewards

    if actions is None:
        actions = np.unique(treatment.to_numpy())
        if len(actions) < 2:
            raise CommandError(f"{path}: the treatment column {args.treatment!r} holds one "
                               f"action only ({actions.tolist()[0]!r}): a policy chooses among "
                               "at least two")
    if any(is_categorical(X[name]) for name in X.columns):
        X = OneHotColumns().fit(X).transform(X)   # the outcome and propensity models' input
    try:
        return doubly_robust_rewards(X, treatment.to_numpy(), outcome.to_numpy(),
                                     actions=actions, cv=args.folds, random_state=0)
    except ValueError as error:
        raise CommandError(f"{path}: {error}") from None


def _policy(args):
    import numpy as np

    from ._export import export_text

    _check_rewards_form(args)
    X, rewards, costs = _policy_data(args, args.data)
    X_test = rewards_test = None
    if args.test is not None:
        X_test, rewards_test, _ = _policy_data(args, args.test, features=list(X.columns),
                                               actions=rewards.columns.to_numpy())
    estimator = _estimator(args, False, X)
    if _given(args).get("max_cost") is not None and costs is None:
        raise CommandError("--max-cost is a budget on the costs of the actions: give them "
                           "with --costs")
    fit_params = {} if costs is None else {"action_costs": costs}
    model, X, X_test, features, seconds = _fit_table(estimator, X, rewards, X_test,
                                                     **fit_params)
    actions = ", ".join(map(str, model.actions_))
    source = ("" if args.rewards is not None else
              f", doubly robust rewards of {args.treatment!r} and {args.outcome!r} "
              f"({args.folds}-fold cross-fitted)")
    print(f"# {Path(args.data).name}: {X.shape[0]} samples, {features}, {model.n_actions_} "
          f"actions ({actions}){source}; fitted in {seconds:.3f} s\n")
    status = (", certified optimal" if model.is_optimal_ else "")
    budget = ("" if model.max_cost is None else
              f" within max_cost = {model.max_cost:g} (total cost "
              f"{model.cost_front_['cost'][model._cost_row()]:.6g})")
    print(f"Policy for alpha = {model.alpha:g}{budget}{status}:\n")
    print(export_text(model))
    line = f"policy value (mean reward of its actions): train {model.score(X, rewards):.6g}"
    if X_test is not None:
        line += f", test {model.score(X_test, rewards_test):.6g}"
    print(line)
    means = rewards.to_numpy().mean(axis=0)
    print("one action for all: " + ", ".join(f"{action} {mean:.6g}" for action, mean in
                                              zip(model.actions_, means, strict=True))
          + f" (train); each sample's best action: {np.mean(rewards.max(axis=1)):.6g}")
    print("\nPareto front (one fit, every alpha):\n")
    print(format_front(model, X_test, rewards_test))
    if costs is not None:
        print("\nBudget front (policy value against total cost; a budget between two rows "
              "gets the cheaper one):\n")
        print(_format_cost_front(model, X_test, rewards_test))
    stats = model.stats_
    print(f"\n{stats['states']} states, {stats['candidates']} candidate splits, "
          f"{stats['cache_hits']} cache hits")
    if args.explore is not None:
        _write_page(args, model, X_test, rewards_test, X, rewards)
    return _save(args, estimator)


def _format_cost_front(model, X_test, rewards_test):
    """Return a policy's ``cost_front_`` as a markdown table, dearest first."""
    from ._plot import cost_front_data

    data = cost_front_data(model, X_test=X_test, rewards_test=rewards_test)
    front, test = data["front"][::-1], data["test"]
    columns = ["total cost", "train value"] + (["test value"] if test is not None else []) + [
        "price from", "price to", "leaves", "depth"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    for k, row in enumerate(front):
        cells = [f"{row['cost']:.6g}", f"{row['value']:.6g}"]
        if test is not None:
            cells.append(f"{test[::-1][k]:.6g}")
        cells += [f"{row['price_min']:.6g}", f"{row['price_max']:.6g}", str(row["n_leaves"]),
                  str(row["depth"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _write_page(args, model, X_test, y_test, X, y):
    """Write the explorer page where --explore says (- for stdout)."""
    from ._explorer import export_html

    if args.explore == STDOUT:
        args.stdout.write(export_html(model, None, X_test, y_test, X=X, y=y))
        return
    path = _file_to_write(args.explore, "--explore")
    export_html(model, path, X_test, y_test, X=X, y=y)
    print(f"\nexplorer page written to {path}")


# ---------------------------------------------------------------------------------------------
# Writing files


def _file_to_write(path, flag, suffix=None):
    """Return the file an option names to write; without a suffix, ``suffix`` is added."""
    path = Path(path)
    if path.is_dir():
        raise CommandError(f"{flag} {path} is a directory: name the file to write")
    if not path.parent.is_dir():
        raise CommandError(f"{flag} {path}: no directory {path.parent} to write it in")
    if suffix is not None and not path.suffix:
        path = path.with_name(path.name + suffix)
    return path


def _save(args, estimator):
    """Save the model where --out says, if it says; return the command's status."""
    if args.out == STDOUT:
        # Through a file: what save writes, and checks, is what stdout gets.
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "model.json"
            estimator.save(path)
            args.stdout.write(path.read_text(encoding="utf-8"))
    elif args.out is not None:
        path = _file_to_write(args.out, "--out")
        estimator.save(path)
        print(f"\nsaved to {path}")
    return 0


def _draw(figure, args, flag, what):
    """Write a figure to the file ``flag`` names (a PNG without a suffix), or to stdout."""
    plt = _pyplot(flag)
    target, dpi = getattr(args, flag.lstrip("-")), args.dpi
    try:
        if target == STDOUT:
            args.stdout.flush()
            figure.savefig(args.stdout.buffer, format="png", dpi=dpi, bbox_inches="tight")
        else:
            path = _file_to_write(target, flag, ".png")
            figure.savefig(path, dpi=dpi, bbox_inches="tight")
            print(f"\n{what} drawn in {path}")
    finally:
        plt.close(figure)


def _pyplot(option):
    require("matplotlib", option).use("Agg")   # files only: no display needed
    return require("matplotlib.pyplot", option)


def _pareto(args):
    from ._plot import plot_pareto

    estimator, model, X, y, X_test, y_test = _fit_and_report(args)
    if hasattr(model, "alpha_"):
        print(f"{_chosen_by_cv(model, args.cv)}, marked * below.\n")
    print(format_front(model, X_test, y_test))
    if args.plot is not None:
        ax = plot_pareto(model, X=X, y=y, show_cart=not args.no_cart, X_test=X_test,
                         y_test=y_test)
        _draw(ax.figure, args, "--plot", "front")
    return 0


def _load_model(path):
    from . import load

    if not Path(path).is_file():
        raise CommandError(f"no such file: {path}")
    return load(path)


def _encoded_columns(model):
    """Return the line naming a model's one-hot encoded columns, or None."""
    encoding = getattr(model, "encoding_", None)
    if encoding is None:
        return None
    parts = [f"{column} ({len(categories)} categories"
             + (", missing values" if missing else "") + ")"
             for column, categories, missing in zip(encoding.columns_, encoding.categories_,
                                                    encoding.missing_, strict=True)
             if categories is not None]
    return "one-hot encoded columns: " + ", ".join(parts)


def _show(args):
    from ._export import export_text
    from ._plot import plot_tree

    estimator = _load_model(args.model)
    model = getattr(estimator, "estimator_", estimator)   # fitted on one-hot encoded columns
    if args.alpha is not None:
        if "alpha" not in model.get_params():
            raise CommandError(f"{type(model).__name__} has no alpha")
        model.set_params(alpha=args.alpha)
    print(f"# {model!r}\n")   # scikit-learn's repr: the non-default parameters
    encoded = _encoded_columns(estimator)
    if encoded is not None:
        print(f"Fitted on {encoded}\n")
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
        ax = plot_tree(model, max_depth=args.max_depth)
        _draw(ax.figure, args, "--png", "tree")
    return 0


def _model_columns(model, X, path):
    """Return the columns of table ``X`` that ``model`` was fitted on, checked for it."""
    from ._branches import _MultiwayClassifier
    from ._onehot import OneHotEncoded

    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        if not hasattr(X, "columns"):
            raise CommandError(f"{path}: the model was fitted on named columns "
                               f"{list(names)}; give a CSV or Parquet file")
        missing = [str(n) for n in names if n not in X.columns]
        if missing:
            raise CommandError(f"{path}: missing feature columns {missing}")
        X = X[list(names)]
    if hasattr(X, "columns"):
        columns = (AS_IS if isinstance(model, _MultiwayClassifier)
                   else ENCODED if isinstance(model, OneHotEncoded) else NUMERIC)
        _check_features(X, path, columns)
    if X.shape[1] != model.n_features_in_:
        raise CommandError(f"{path}: {X.shape[1]} features, the model expects "
                           f"{model.n_features_in_}")
    return X


def _predict(args):
    pd = _pandas()

    model = _load_model(args.model)
    X, _, _ = _features_and_target(args.data, None, need_target=False)
    X = _model_columns(model, X, args.data)
    output = pd.DataFrame({"prediction": model.predict(X)})
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        for k, label in enumerate(model.classes_):
            output[f"proba_{label}"] = proba[:, k]
    if args.out in (None, STDOUT):
        output.to_csv(args.stdout, index=False)
    else:
        path = _file_to_write(args.out, "--out")
        output.to_csv(path, index=False)
        print(f"{len(output)} predictions written to {path}")
    return 0


def _explore(args):
    from ._branches import _MultiwayClassifier
    from ._explorer import export_html

    estimator = _load_model(args.model)
    model = getattr(estimator, "estimator_", estimator)   # fitted on one-hot encoded columns
    if not hasattr(model, "tree_"):
        raise CommandError(f"{type(model).__name__} is not a single tree; nothing to explore")
    columns = AS_IS if isinstance(model, _MultiwayClassifier) else ENCODED
    data = {}
    for name, path in (("test", args.test), ("train", args.train)):
        if path is None:
            continue
        X, y, _ = _features_and_target(path, args.target, columns=columns)
        X = _model_columns(estimator, X, path)
        if model is not estimator:
            X = estimator.transform(X)
        data[name] = (X, y)
    X_test, y_test = data.get("test", (None, None))
    X, y = data.get("train", (None, None))
    if args.out == STDOUT:
        args.stdout.write(export_html(model, None, X_test, y_test, X=X, y=y))
        return 0
    path = _file_to_write(args.out, "--out")
    export_html(model, path, X_test, y_test, X=X, y=y)
    print(f"explorer page written to {path}")
    return 0


# ---------------------------------------------------------------------------------------------
# The parser


def _add_data_options(parser):
    parser.add_argument("data", nargs="?", help="training data: .csv, .parquet or .npz")
    parser.add_argument("--dataset", help="name of a bundled dataset instead of a file")
    parser.add_argument("--target", help="column to predict (CSV/Parquet)")
    parser.add_argument("--test", help="held-out data file with the same columns")
    parser.add_argument("--task", choices=["auto", "classification", "regression"],
                        default="auto",
                        help="auto: regression for a target with non-integer values, "
                             "classification for labels or few integers, else asks")
    parser.add_argument("--regression", action="store_true", help="the same as --task regression")


def _add_fit_options(parser, models):
    _add_data_options(parser)
    _add_model_options(parser, models)
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="report the fit's progress on stderr (a bar on a terminal with tqdm "
                             "installed)")
    parser.add_argument("--cv", type=int, metavar="K",
                        help="choose alpha by K-fold cross-validation (DPDTreeClassifierCV or "
                             "DPDTreeRegressorCV) instead of --alpha")


def _fit_parser(fit):
    _add_fit_options(fit, ("tree", "cv", "branches", "boosting"))
    fit.add_argument("--out", help="save the fitted model to this JSON file (- for stdout, "
                                   "the report then goes to stderr)")
    fit.add_argument("--model", choices=MODELS, default="tree",
                     help="tree: a DPDT tree (default); branches: BRANCHES' certified optimal "
                          "tree on categorical columns; boosting: gradient boosting of DPDT trees")


def _pareto_parser(pareto):
    _add_fit_options(pareto, ("tree", "cv"))
    pareto.add_argument("--plot", help="draw the front (and CART's pruning path; with --cv the "
                                       "validation curve, with --test the test curve) in this "
                                       "file (PNG without a suffix; - for stdout)")
    pareto.add_argument("--no-cart", action="store_true", help="do not draw CART's path")
    pareto.add_argument("--dpi", type=int, default=120,
                        help="resolution of the picture, in dots per inch (default: 120)")


def _policy_parser(policy):
    policy.set_defaults(model="policy")
    policy.add_argument("data", help="training data: .csv or .parquet, one row per sample")
    policy.add_argument("--rewards", metavar="A,B,...",
                        help="the columns of the rewards, one per action (higher is better); "
                             "each column names its action")
    policy.add_argument("--treatment", metavar="COLUMN",
                        help="the action each sample received; with --outcome, the rewards are "
                             "doubly robust scores (dpdt.doubly_robust_rewards), instead of "
                             "--rewards")
    policy.add_argument("--outcome", metavar="COLUMN",
                        help="the outcome observed after the sample's treatment (higher is "
                             "better)")
    policy.add_argument("--costs", metavar="A,B,...",
                        help="the cost of each action, in the order of the actions (the "
                             "--rewards columns, or the sorted values of --treatment): a "
                             "number (every sample's) or a column (each sample's); the fit "
                             "then finds the budget front of value against total cost")
    policy.add_argument("--folds", type=int, default=5, metavar="K",
                        help="cross-fitting folds of the doubly robust rewards (default: 5)")
    policy.add_argument("--features", metavar="X,Y,...",
                        help="the feature columns (default: every column but the rewards', "
                             "or the treatment and outcome)")
    policy.add_argument("--test", help="held-out data with the same columns: the policy's test "
                                       "value (with --treatment, rewards cross-fitted on it "
                                       "alone)")
    _add_model_options(policy, ("policy",))
    policy.add_argument("-v", "--verbose", action="count", default=0,
                        help="report the fit's progress on stderr")
    policy.add_argument("--out", help="save the fitted policy to this JSON file (- for stdout, "
                                      "the report then goes to stderr)")
    policy.add_argument("--explore", metavar="PAGE",
                        help="write the explorer page of the policy's front to this HTML file "
                             "(- for stdout)")


def _show_parser(show):
    show.add_argument("model", help="a model saved by `dpdt fit --out` or estimator.save")
    show.add_argument("--alpha", type=float, help="show the tree of the front for this alpha")
    show.add_argument("--png", help="draw the tree in this file (PNG without a suffix; - for "
                                    "stdout)")
    show.add_argument("--dpi", type=int, default=120,
                      help="resolution of the picture, in dots per inch (default: 120)")
    show.add_argument("--max-depth", type=int, metavar="N",
                      help="draw only the top N levels (deeper subtrees as '(...)')")


def _explore_parser(explore):
    explore.add_argument("model", help="a saved model (JSON)")
    explore.add_argument("--test", help="held-out data (.csv, .parquet, .npz): the test curve "
                                        "and samples to route through the trees")
    explore.add_argument("--train", help="the training data, for CART's pruning path")
    explore.add_argument("--target", help="the target column of --test and --train (CSV/Parquet)")
    explore.add_argument("--out", required=True, help="the HTML file to write (- for stdout)")


def _predict_parser(predict):
    predict.add_argument("model", help="a saved model (JSON)")
    predict.add_argument("data", help="samples: .csv, .parquet or .npz")
    predict.add_argument("--out", help="write the predictions to this CSV (default, or -: "
                                       "stdout)")


# name: (summary, options); each runs the function named after it, `_fit` for fit.
COMMANDS = {
    "fit": ("fit a model, print it and its Pareto front", _fit_parser),
    "pareto": ("fit, print and draw the Pareto front", _pareto_parser),
    "policy": ("fit a policy tree: which action for which sample, from the rewards of each "
               "action or from a treatment and its outcome", _policy_parser),
    "show": ("print (or draw) a saved model", _show_parser),
    "explore": ("write the explorer page of a saved model: its whole Pareto front and every "
                "tree, in one HTML file", _explore_parser),
    "predict": ("predict with a saved model", _predict_parser),
}


def build_parser(command=None):
    """Return the argument parser of the ``dpdt`` command.

    With ``command`` (a name, or "" for none), only that subcommand gets its options: the
    others' need the parameter records, whose import takes a second.
    """
    parser = _Parser(prog="dpdt", description="Non-greedy decision trees (DPDT).")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (summary, add_options) in COMMANDS.items():
        sub = commands.add_parser(name, help=summary, description=summary)
        if command in (None, name):
            add_options(sub)
    return parser


# The options that name a file to write, which `-` sends to stdout.
OUTPUTS = ("out", "plot", "png", "explore")

# Exceptions whose message is the whole explanation.
_EXPLAINED = (ValueError, TypeError, ImportError, OSError)


def _one_line(prefix):
    """Return a ``warnings.showwarning`` that writes a warning as one line on stderr."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"{prefix}: warning: {' '.join(str(message).split())}", file=sys.stderr)

    return show


def main(argv=None):
    """Run the ``dpdt`` command line.

    Every error, whatever the input, is one line on stderr and exit status 2; so is every
    warning, without the status.
    """
    argv = sys.argv[1:] if argv is None else [str(arg) for arg in argv]
    command = next((arg for arg in argv if not arg.startswith("-")), "")
    try:
        # Only the command run needs its options (and so the parameter records).
        args, unknown = build_parser(command if command in COMMANDS else "").parse_known_args(
            argv)
        if unknown:   # named by the command they were given to, not by `dpdt`
            _Parser(prog=f"dpdt {args.command}").error(
                f"unrecognized arguments: {' '.join(unknown)}")
    except KeyboardInterrupt:
        print("dpdt: interrupted", file=sys.stderr)
        return 130
    prefix = f"dpdt {args.command}"
    # An output to stdout keeps stdout for itself: the report goes to stderr.
    args.stdout = sys.stdout
    to_stdout = [flag for flag in OUTPUTS if getattr(args, flag, None) == STDOUT]
    report = sys.stderr if to_stdout and args.command != "predict" else sys.stdout
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(report):
            warnings.showwarning = _one_line(prefix)
            import numpy as np

            if len(to_stdout) > 1:
                raise CommandError(f"{' and '.join('--' + f for f in to_stdout)} both write to "
                                   "stdout: send one of them to a file")
            for flag in OUTPUTS:   # a file that cannot be written: say so first
                if getattr(args, flag, None) not in (None, STDOUT):
                    _file_to_write(getattr(args, flag), f"--{flag}")
            with np.printoptions(precision=4):
                return globals()[f"_{args.command}"](args)
    except BrokenPipeError:   # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: the shell's status for SIGINT, no traceback
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # Whatever the input files hold, the answer is one line and status 2, never a
        # traceback: the errors dpdt raises name the problem, any other is named by its type.
        message = str(exc) if isinstance(exc, _EXPLAINED) and str(exc) else (
            f"{type(exc).__name__}: {exc}")
        print(f"{prefix}: {' '.join(message.split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
