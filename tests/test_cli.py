"""The `dpdt` command line: the README's command, fit → save → predict → show end to end, errors."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_iris

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    OneHotEncoded,
    datasets,
    load,
)
from dpdt._cli import main


def dpdt(*args, cwd=None):
    """Run the installed command line in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "dpdt._cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def iris_csv(tmp_path_factory):
    directory = tmp_path_factory.mktemp("data")
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=["sepal_length", "sepal_width", "petal_length",
                                     "petal_width"])
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[y]
    frame.to_csv(directory / "iris.csv", index=False)
    frame.drop(columns="species").iloc[::7].to_csv(directory / "new.csv", index=False)
    return directory


def test_fit_bundled_dataset_prints_tree_and_front(capsys):
    assert main(["fit", "--dataset", "bank"]) == 0
    out = capsys.readouterr().out
    assert "|--- curtosis <= " in out   # the bundled set's feature names
    assert "Pareto front" in out
    assert "train accuracy" in out and "test accuracy" in out
    assert "proven optimal depth-3 train accuracy 0.9827 (19 errors)" in out
    front_rows = [line for line in out.splitlines() if line.startswith("| ") and "inf" in line]
    assert front_rows, "the single-leaf row (alpha up to inf) is missing"


def test_unknown_dataset_is_a_clear_error(capsys):
    assert main(["fit", "--dataset", "nope"]) == 2
    assert "unknown classification dataset 'nope'" in capsys.readouterr().err


def test_fit_save_predict_show_end_to_end(iris_csv, capsys):
    fit = dpdt("fit", "iris.csv", "--target", "species", "--max-depth", "2", "--out",
               "model.json", cwd=iris_csv)
    assert fit.returncode == 0, fit.stderr
    assert "|--- petal_" in fit.stdout and "class: setosa" in fit.stdout
    assert "train accuracy" in fit.stdout and "saved to model.json" in fit.stdout

    model = load(iris_csv / "model.json")
    frame = pd.read_csv(iris_csv / "iris.csv")
    X, y = frame.drop(columns="species"), frame["species"]
    expected = DPDTreeClassifier(max_depth=2).fit(X, y)
    assert_array_equal(model.pareto_front_, expected.pareto_front_)

    predict = dpdt("predict", "model.json", "new.csv", "--out", "preds.csv", cwd=iris_csv)
    assert predict.returncode == 0, predict.stderr
    preds = pd.read_csv(iris_csv / "preds.csv")
    new = pd.read_csv(iris_csv / "new.csv")
    assert_array_equal(preds["prediction"], expected.predict(new))
    assert_array_equal(preds[["proba_setosa", "proba_versicolor", "proba_virginica"]],
                       expected.predict_proba(new))

    # The training file, target column included, works as well; to stdout.
    assert main(["predict", str(iris_csv / "model.json"), str(iris_csv / "iris.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("prediction,proba_setosa") and len(lines) == 151

    show = dpdt("show", "model.json", "--png", "tree.png", "--alpha", "0.5", cwd=iris_csv)
    assert show.returncode == 0, show.stderr
    assert "DPDTreeClassifier(alpha=0.5, max_depth=2)" in show.stdout
    assert "Pareto front" in show.stdout
    png = (iris_csv / "tree.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5_000


def test_show_draws_the_top_levels_only(iris_csv, monkeypatch, capsys):
    import dpdt._plot

    drawn = []

    def recording_plot_tree(model, **kwargs):
        ax = plot_tree(model, **kwargs)
        drawn.append([t.get_text() for t in ax.texts])
        return ax

    plot_tree = dpdt._plot.plot_tree
    monkeypatch.setattr(dpdt._plot, "plot_tree", recording_plot_tree)
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--max-depth", "3",
                 "--out", str(iris_csv / "deep.json")]) == 0
    for extra in ([], ["--max-depth", "1"]):
        assert main(["show", str(iris_csv / "deep.json"), "--png", str(iris_csv / "top.png"),
                     *extra]) == 0
    capsys.readouterr()
    whole, top = drawn
    # Every node two levels down stands for its subtree.
    tree = load(iris_csv / "deep.json").tree_
    below = [tree.children_left[0], tree.children_right[0]]
    second = [c for node in below if tree.children_left[node] >= 0
              for c in (tree.children_left[node], tree.children_right[node])]
    assert "(...)" not in whole and top.count("(...)") == len(second) > 0
    assert len(top) < len(whole)


def test_pareto_draws_the_front(iris_csv):
    proc = dpdt("pareto", "iris.csv", "--target", "species", "--plot", "front.png",
                cwd=iris_csv)
    assert proc.returncode == 0, proc.stderr
    assert "| alpha from |" in proc.stdout
    png = (iris_csv / "front.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_regression_from_npz_with_test_split(tmp_path, capsys):
    data = datasets.load("concrete")
    np.savez(tmp_path / "concrete.npz", X_train=data.X_train, y_train=data.y_train,
             X_test=data.X_test, y_test=data.y_test)
    assert main(["fit", str(tmp_path / "concrete.npz"), "--regression", "--out",
                 str(tmp_path / "reg.json")]) == 0
    out = capsys.readouterr().out
    assert "train MSE" in out and "test MSE" in out and "R²" in out
    reg = load(tmp_path / "reg.json")
    assert isinstance(reg, DPDTreeRegressor)
    expected = DPDTreeRegressor(max_depth=3).fit(data.X_train, data.y_train)
    assert_array_equal(reg.predict(data.X_test), expected.predict(data.X_test))

    np.savez(tmp_path / "new.npz", X=data.X_test)
    assert main(["predict", str(tmp_path / "reg.json"), str(tmp_path / "new.npz"), "--out",
                 str(tmp_path / "p.csv")]) == 0
    assert_array_equal(pd.read_csv(tmp_path / "p.csv")["prediction"],
                       expected.predict(data.X_test))


def test_parquet_gives_the_csv_model(iris_csv, tmp_path):
    frame = pd.read_csv(iris_csv / "iris.csv")
    frame.to_parquet(tmp_path / "iris.parquet")
    for source, out in ((iris_csv / "iris.csv", "a.json"), (tmp_path / "iris.parquet", "b.json")):
        assert main(["fit", str(source), "--target", "species", "--max-depth", "2", "--out",
                     str(tmp_path / out)]) == 0
    a, b = load(tmp_path / "a.json"), load(tmp_path / "b.json")
    X = frame.drop(columns="species")
    assert_array_equal(a.predict(X), b.predict(X))
    assert_array_equal(a.tree_.threshold, b.tree_.threshold)


def test_fit_with_held_out_file(iris_csv, capsys):
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--test",
                 str(iris_csv / "iris.csv"), "--max-depth", "1"]) == 0
    line = next(li for li in capsys.readouterr().out.splitlines() if li.startswith("train "))
    train, test = line.split(", ")
    assert train.split()[-1] == test.split()[-1]   # same data, same accuracy


@pytest.mark.parametrize("argv, message", [
    (["fit", "{d}/iris.csv", "--target", "colour"], "unknown column 'colour' for --target"),
    (["fit", "{d}/iris.csv"], "name the column to predict with --target"),
    (["fit", "{d}/iris.csv", "--target", "petal_width", "--dataset", "bank"], "exactly one"),
    (["fit", "{d}/iris.csv", "--target", "species", "--regression"],
     "--task regression needs a numeric target"),
    (["fit", "{d}/iris.csv", "--target", "species", "--cv", "3", "--alpha", "0.1"],
     "give --cv or --alpha, not both"),
    (["fit", "{d}/missing.csv", "--target", "y"], "no such file"),
    (["fit", "{d}/model.txt.json", "--target", "y"], "unknown file type '.json'"),
    (["show", "{d}/iris.csv"], "not a dpdt model file"),
    (["show", "{d}/absent.json"], "no such file"),
    (["predict", "{d}/model.json", "{d}/bad.csv"], "missing feature columns ['petal_width']"),
    (["predict", "{d}/model.json", "{d}/text.csv"], "column 'sepal_width' is not numeric"),
])
def test_bad_input_is_a_clear_error(iris_csv, capsys, argv, message):
    d = iris_csv
    frame = pd.read_csv(d / "iris.csv")
    (d / "model.txt.json").write_text("{}")
    if not (d / "model.json").exists():
        main(["fit", str(d / "iris.csv"), "--target", "species", "--max-depth", "1", "--out",
              str(d / "model.json")])
    frame.drop(columns="petal_width").to_csv(d / "bad.csv", index=False)
    frame.assign(sepal_width="wide").to_csv(d / "text.csv", index=False)
    frame.assign(sepal_width=np.where(np.arange(150) == 3, np.nan, 1.0)).to_csv(
        d / "nan.csv", index=False)
    capsys.readouterr()
    assert main([a.format(d=d) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_tampered_model_exit_code(iris_csv):
    path = iris_csv / "tampered.json"
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--max-depth", "1",
                 "--out", str(path)]) == 0
    path.write_text(path.read_text().replace('"max_depth":1', '"max_depth":2'))
    proc = dpdt("show", path)
    assert proc.returncode == 2
    assert "checksum mismatch" in proc.stderr and "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def model_json(iris_csv):
    path = iris_csv / "model.json"
    if not path.exists():
        assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--max-depth", "1",
                     "--out", str(path)]) == 0
    return path


def _unreadable_inputs(d, model_json):
    """Write files that no command can read; return {name: path}."""
    X, y = load_iris(return_X_y=True)
    np.savez(d / "good.npz", X=X, y=y)
    good = (d / "good.npz").read_bytes()
    np.save(d / "array.npy", X)
    model = model_json.read_text()
    files = {
        "corrupt.npz": b"PK\x03\x04" + bytes(range(256)) * 4,
        "truncated.npz": good[: len(good) // 2],
        "cut.npz": good[:-40],   # the directory at the end is cut
        "renamed.npz": (d / "array.npy").read_bytes(),
        "pickled.npz": None,   # written below, as good.npz above
        "good.npz": None,
        "deep.json": ("[" * 100_000 + "]" * 100_000).encode(),
        "truncated.json": model[: len(model) // 2].encode(),
        "flipped.json": model.replace('"format"', '"formet"').encode(),
        "binary.json": bytes(range(256)) * 8,
        "list.json": b"[1, 2, 3]",
        "unparsable.csv": b'a,b\n1,2,3,4\n"unterminated\n',
        "binary.csv": bytes(range(256)) * 8,
        "empty.csv": b"",
    }
    np.savez(d / "pickled.npz", X=np.array([[object()]], dtype=object), y=[0])
    for name, content in files.items():
        if content is not None:
            (d / name).write_bytes(content)
    return {name: d / name for name in files}


@pytest.mark.parametrize("command, message", [
    ("fit {corrupt.npz}", "not a readable .npz archive"),
    ("fit {truncated.npz}", "not a readable .npz archive"),
    ("fit {cut.npz}", "not a readable .npz archive"),
    ("fit {renamed.npz}", "not a readable .npz archive"),
    ("fit {pickled.npz}", "not a readable .npz archive"),
    ("predict {d}/model.json {corrupt.npz}", "not a readable .npz archive"),
    ("predict {d}/model.json {renamed.npz}", "not a readable .npz archive"),
    ("show {deep.json}", "nested 100000 levels deep"),
    ("show {truncated.json}", "invalid JSON"),
    ("show {flipped.json}", "not a dpdt model"),
    ("show {binary.json}", "not UTF-8"),
    ("show {list.json}", "not a dpdt model"),
    ("predict {deep.json} {d}/new.csv", "nested 100000 levels deep"),
    ("predict {d}/iris.csv {d}/new.csv", "not a dpdt model file"),
    ("predict {good.npz} {d}/new.csv", "not a dpdt model file"),
    ("show {d}/missing.json", "no such file"),
    ("fit {unparsable.csv} --target a", "not a readable table"),
    ("fit {binary.csv} --target a", "not a readable table"),
    ("fit {empty.csv} --target a", "not a readable table"),
    ("predict {d}/model.json {unparsable.csv}", "not a readable table"),
])
def test_unreadable_input_is_one_line_and_status_2(iris_csv, model_json, tmp_path, capsys,
                                                   command, message):
    files = _unreadable_inputs(tmp_path, model_json)
    for name, path in {**files, "d": iris_csv}.items():
        command = command.replace("{" + name + "}", str(path))
    argv = command.split()
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and err.startswith(f"dpdt {argv[0]}: "), err


def test_any_error_is_one_line(monkeypatch, capsys):
    """An exception dpdt did not anticipate is still one line, named by its type."""
    import dpdt._cli as cli

    def fail(args):
        raise RecursionError("maximum recursion depth exceeded\nwhile decoding")

    monkeypatch.setattr(cli, "_show", fail)
    assert main(["show", "model.json"]) == 2
    assert capsys.readouterr().err == (
        "dpdt show: RecursionError: maximum recursion depth exceeded while decoding\n")


def test_hostile_model_file_is_refused_by_the_command(iris_csv, model_json, tmp_path):
    """The issue's file: a string dtype of 200 million characters, checksum recomputed."""
    import json

    from dpdt._io import _digest

    document = json.loads(model_json.read_text())
    document["attributes"]["classes_"]["dtype"] = "<U200000000"
    document["sha256"] = _digest(document)
    (tmp_path / "hostile.json").write_text(json.dumps(document))
    proc = dpdt("predict", tmp_path / "hostile.json", iris_csv / "new.csv")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "dtype <U200000000 for strings of at most 10 characters" in proc.stderr


def test_ctrl_c_is_one_line_and_status_130(monkeypatch, capsys):
    """Ctrl-C during a command: the shell's status for SIGINT, without a traceback."""
    import dpdt._cli as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_show", interrupted)
    assert main(["show", "model.json"]) == 130
    assert capsys.readouterr().err == "dpdt show: interrupted\n"


def test_python_dash_m_dpdt_is_the_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "dpdt", "show", str(tmp_path / "missing.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("dpdt show: ") and proc.stderr.count("\n") == 1


def test_missing_feature_values_fit_and_predict_as_in_python(iris_csv, tmp_path, capsys):
    # NaN in a feature column is the trees' business (routed at each split), not a refusal.
    frame = pd.read_csv(iris_csv / "iris.csv")
    frame.loc[::9, "sepal_width"] = np.nan
    frame.to_csv(tmp_path / "nan.csv", index=False)
    model = tmp_path / "model.json"
    assert main(["fit", str(tmp_path / "nan.csv"), "--target", "species", "--out",
                 str(model)]) == 0
    python = DPDTreeClassifier().fit(frame.drop(columns="species"), frame["species"])
    out = tmp_path / "predictions.csv"
    frame.drop(columns="species").to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(model), str(tmp_path / "new.csv"), "--out", str(out)]) == 0
    assert_array_equal(pd.read_csv(out)["prediction"],
                       python.predict(frame.drop(columns="species")))


@pytest.mark.parametrize(("target", "task", "expected"), [
    (lambda y, rng: y * 1.5 + rng.normal(size=len(y)), "auto", "regression"),
    (lambda y, rng: y, "auto", "3 classes"),
    (lambda y, rng: rng.integers(0, 100, len(y)), "auto", "say --task"),
    (lambda y, rng: rng.integers(0, 100, len(y)), "regression", "regression"),
    (lambda y, rng: rng.integers(0, 100, len(y)), "classification", "classes"),
])
def test_the_task_follows_the_target_or_asks(tmp_path, capsys, target, task, expected):
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["t"] = target(y, np.random.default_rng(0))
    frame.to_csv(tmp_path / "data.csv", index=False)
    status = main(["fit", str(tmp_path / "data.csv"), "--target", "t", "--task", task,
                   "--max-depth", "2"])
    captured = capsys.readouterr()
    assert expected in (captured.out if status == 0 else captured.err)
    assert status == (2 if expected == "say --task" else 0)


def test_cv_chooses_the_alpha_python_chooses(iris_csv, capsys):
    frame = pd.read_csv(iris_csv / "iris.csv")
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--cv", "4"]) == 0
    out = capsys.readouterr().out
    cv = DPDTreeClassifierCV(max_depth=3, cv=4).fit(frame.drop(columns="species"),
                                                   frame["species"])
    assert f"Tree for alpha = {cv.alpha_:.6g}, chosen by 4-fold cross-validation" in out


def test_held_out_file_scores_every_tree_of_the_front(iris_csv, tmp_path, capsys):
    frame = pd.read_csv(iris_csv / "iris.csv")
    train, test = frame.iloc[::2], frame.iloc[1::2]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    assert main(["pareto", str(tmp_path / "train.csv"), "--target", "species", "--test",
                 str(tmp_path / "test.csv")]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert "test accuracy" in rows[0]
    clf = DPDTreeClassifier().fit(train.drop(columns="species"), train["species"])
    assert len(rows) - 1 == len(clf.pareto_front_)
    for line, row in zip(rows[1:], clf.pareto_front_, strict=True):
        low, high = row["alpha_min"], row["alpha_max"]
        clf.set_params(alpha=high / 2 if low == 0 else (2 * low if np.isinf(high)
                                                        else (low + high) / 2))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[3] == f"{clf.score(test.drop(columns='species'), test['species']):.4f}"


def _categorical_frame(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"city": rng.choice(["Nice", "Paris", "Lyon"], n),
                          "size": rng.choice(["S", "M", "L"], n)})
    frame["y"] = np.where((frame.city == "Nice") | (frame["size"] == "L"), "yes", "no")
    flip = rng.random(n) < 0.1
    frame.loc[flip, "y"] = np.where(frame.loc[flip, "y"] == "yes", "no", "yes")
    return frame


def test_branches_fits_and_predicts_categorical_columns(tmp_path, capsys):
    train, new = _categorical_frame(200, 0), _categorical_frame(50, 1)
    train.to_csv(tmp_path / "train.csv", index=False)
    new.drop(columns="y").to_csv(tmp_path / "new.csv", index=False)
    model = tmp_path / "branches.json"
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "y", "--model", "branches",
                 "--lam", "0.02", "--out", str(model)]) == 0
    assert "certified optimal" in capsys.readouterr().out
    assert main(["predict", str(model), str(tmp_path / "new.csv"), "--out",
                 str(tmp_path / "p.csv")]) == 0
    python = BranchesClassifier(lam=0.02).fit(train.drop(columns="y"), train["y"])
    assert_array_equal(pd.read_csv(tmp_path / "p.csv")["prediction"],
                       python.predict(new.drop(columns="y")))


def test_boosting_from_the_command_is_the_python_model(iris_csv, tmp_path):
    frame = pd.read_csv(iris_csv / "iris.csv")
    model = tmp_path / "boosting.json"
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--model",
                 "boosting", "--n-estimators", "5", "--max-depth", "2", "--out",
                 str(model)]) == 0
    python = DPDTGradientBoostingClassifier(n_estimators=5, max_depth=2).fit(
        frame.drop(columns="species"), frame["species"])
    assert_array_equal(load(model).predict_proba(frame.drop(columns="species")),
                       python.predict_proba(frame.drop(columns="species")))


def _table(out):
    """The markdown table of a command's output: its header and its rows, as lists of cells."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in out.splitlines() if line.startswith("| ")]
    return rows[0], rows[1:]


@pytest.fixture
def drawn(monkeypatch):
    """The axes each plot_pareto call of the command returns, to read the figure's lines."""
    import dpdt._plot

    axes, plot_pareto = [], dpdt._plot.plot_pareto

    def recording(*args, **kwargs):
        axes.append(plot_pareto(*args, **kwargs))
        return axes[-1]

    monkeypatch.setattr(dpdt._plot, "plot_pareto", recording)
    return axes


def _lines(ax):
    return {line.get_label(): line for line in ax.lines}


def test_pareto_cv_prints_validation_scores_and_marks_the_chosen_tree(iris_csv, tmp_path,
                                                                      capsys, drawn):
    frame = pd.read_csv(iris_csv / "iris.csv")
    X, y = frame.drop(columns="species"), frame["species"]
    png = tmp_path / "front.png"
    assert main(["pareto", str(iris_csv / "iris.csv"), "--target", "species", "--cv", "4",
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    cv = DPDTreeClassifierCV(max_depth=3, cv=4).fit(X, y)
    assert f"alpha = {cv.alpha_:.6g}, chosen by 4-fold cross-validation" in out
    header, rows = _table(out)
    assert header[:4] == ["alpha from", "alpha to", "train accuracy", "validation accuracy"]
    assert header[-1] == "chosen" and len(rows) == len(cv.pareto_front_)
    # Each tree's mean validation score is the curve's row for its alpha.
    curve = cv.validation_curve_[cv.validation_curve_["max_depth"] == 3]
    assert len(curve) == len(rows)
    for row in curve:
        k = cv.best_estimator_._front_index(row["alpha"])
        assert rows[k][3] == f"{row['mean_score']:.4f}"
    # One star, on the tree the CV estimator predicts with.
    starred = [k for k, cells in enumerate(rows) if cells[-1] == "*"]
    assert len(starred) == 1
    star = rows[starred[0]]
    assert star[2] == f"{cv.score(X, y):.4f}" and star[3] == f"{cv.best_score_:.4f}"
    assert (int(star[-3]), int(star[-2])) == (cv.get_n_leaves(), cv.get_depth())
    # The figure: the validation curve and the chosen alpha_ in the legend.
    (ax,) = drawn
    lines = _lines(ax)
    assert "validation (depth 3)" in lines
    assert f"chosen tree (alpha_ = {cv.alpha_:.3g}, depth 3, {cv.get_n_leaves()} leaves)" \
        in lines
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pareto_test_file_draws_the_test_curve(iris_csv, tmp_path, capsys, drawn):
    frame = pd.read_csv(iris_csv / "iris.csv")
    train, test = frame.iloc[::2], frame.iloc[1::2]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    png = tmp_path / "front.png"
    assert main(["pareto", str(tmp_path / "train.csv"), "--target", "species", "--test",
                 str(tmp_path / "test.csv"), "--plot", str(png)]) == 0
    header, rows = _table(capsys.readouterr().out)
    column = header.index("test accuracy")
    clf = DPDTreeClassifier().fit(train.drop(columns="species"), train["species"])
    # The test curve is the table's test column, point by point, in the order of complexity.
    (ax,) = drawn
    line = _lines(ax)["test (held out)"]
    order = np.argsort(clf.pareto_front_, order="complexity")
    assert_array_equal(line.get_xdata(), clf.pareto_front_["complexity"][order])
    assert [f"{v:.4f}" for v in line.get_ydata()] == [rows[k][column] for k in order]
    # ... and each point is the test accuracy of its tree, as Python gives it.
    for k, row in enumerate(clf.pareto_front_):
        low, high = row["alpha_min"], row["alpha_max"]
        clf.set_params(alpha=high / 2 if low == 0 else (2 * low if np.isinf(high)
                                                        else (low + high) / 2))
        assert rows[k][column] == \
            f"{clf.score(test.drop(columns='species'), test['species']):.4f}"
    assert ax.get_ylabel() == "accuracy (train, test)"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_pareto_cv_refuses_a_pareto_front(iris_csv, capsys):
    assert main(["pareto", str(iris_csv / "iris.csv"), "--target", "species", "--cv", "3",
                 "--front", "pareto"]) == 2
    assert "give --cv or --front, not both" in capsys.readouterr().err


# -- tables with string columns ------------------------------------------------------------------


def _penguins(n, seed, islands=("Biscoe", "Dream", "Torgersen")):
    """A table of string, float and integer columns; its string column `sex` has gaps."""
    rng = np.random.default_rng(seed)
    island = rng.choice(list(islands), n)
    bill = rng.normal(44, 5, n).round(1)
    frame = pd.DataFrame({"island": island, "bill_length_mm": bill,
                          "sex": rng.choice(["male", "female", None], n, p=[0.45, 0.45, 0.1]),
                          "year": rng.integers(2007, 2010, n)})
    frame["species"] = np.where(island == "Biscoe", "Gentoo",
                                np.where((bill > 45) | (frame["sex"] == "male"), "Chinstrap",
                                         "Adelie"))
    return frame


def _one_hot_oracle(frame, categories):
    """The one-hot table, written out by hand: a column per (column, category) in order."""
    columns = {}
    for name in frame.columns:
        if name not in categories:
            columns[name] = frame[name].to_numpy()
            continue
        values, seen = frame[name], categories[name]
        for category in sorted(c for c in seen if c is not None):
            columns[f"{name}_{category}"] = (values == category).to_numpy(dtype=float)
        if None in seen:
            columns[f"{name}_nan"] = values.isna().to_numpy(dtype=float)
    return pd.DataFrame(columns)


def test_a_table_with_string_columns_fits_saves_and_predicts_from_the_raw_table(tmp_path,
                                                                              capsys):
    train = _penguins(300, 0)
    # New rows: an island unseen in training, and gaps where training had none (island).
    new = _penguins(80, 1, islands=("Biscoe", "Dream", "Fair Isle")).drop(columns="species")
    new.loc[::7, "island"] = None
    train.to_csv(tmp_path / "train.csv", index=False)
    new.to_csv(tmp_path / "new.csv", index=False)
    model_file = tmp_path / "model.json"
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "species", "--max-depth", "3",
                 "--out", str(model_file)]) == 0
    out = capsys.readouterr().out
    assert "4 features (island, sex one-hot encoded: 8 columns)" in out
    assert "island_Biscoe <= 0.5" in out

    # The model is the tree of the table written out by hand, fitted in Python.
    categories = {"island": {"Biscoe", "Dream", "Torgersen"}, "sex": {"male", "female", None}}
    X = pd.read_csv(tmp_path / "train.csv").drop(columns="species")
    expected = DPDTreeClassifier(max_depth=3).fit(_one_hot_oracle(X, categories),
                                                  train["species"])
    saved = load(model_file)
    assert isinstance(saved, OneHotEncoded)
    assert_array_equal(saved.estimator_.pareto_front_, expected.pareto_front_)
    # Unseen island: every island indicator 0; a gap in a column without gaps in training: too.
    raw = pd.read_csv(tmp_path / "new.csv")
    assert_array_equal(saved.transform(raw), _one_hot_oracle(raw, categories))
    assert main(["predict", str(model_file), str(tmp_path / "new.csv"), "--out",
                 str(tmp_path / "p.csv")]) == 0
    predictions = pd.read_csv(tmp_path / "p.csv")
    assert_array_equal(predictions["prediction"],
                       expected.predict(_one_hot_oracle(raw, categories)))
    assert_array_equal(predictions.filter(like="proba_"),
                       expected.predict_proba(_one_hot_oracle(raw, categories)))

    # show names the encoding; explore takes the raw tables.
    capsys.readouterr()
    assert main(["show", str(model_file), "--alpha", "0.05"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# DPDTreeClassifier(alpha=0.05)\n")
    assert "one-hot encoded columns: island (3 categories), sex (2 categories, missing " \
        "values)" in out
    assert main(["explore", str(model_file), "--test", str(tmp_path / "train.csv"), "--target",
                 "species", "--out", str(tmp_path / "page.html")]) == 0
    assert (tmp_path / "page.html").stat().st_size > 10_000
    # A numeric column that comes as strings is refused, named.
    raw.assign(bill_length_mm="long").to_csv(tmp_path / "bad.csv", index=False)
    capsys.readouterr()
    assert main(["predict", str(model_file), str(tmp_path / "bad.csv")]) == 2
    assert "column 'bill_length_mm' is not numeric" in capsys.readouterr().err


@pytest.mark.parametrize("model, extra", [
    ("boosting", ["--n-estimators", "3"]), ("tree", ["--cv", "3", "--task", "regression"])])
def test_string_columns_with_the_other_models(tmp_path, capsys, model, extra):
    frame = _penguins(150, 2)
    frame["mass"] = frame["bill_length_mm"] * 90 + (frame["island"] == "Dream") * 300
    frame.drop(columns="species").to_csv(tmp_path / "train.csv", index=False)
    assert main(["fit", str(tmp_path / "train.csv"), "--target", "mass", "--model", model,
                 "--max-depth", "2", "--out", str(tmp_path / "m.json"), *extra]) == 0
    saved = load(tmp_path / "m.json")
    raw = frame.drop(columns=["species", "mass"])
    categories = {"island": set(frame["island"]), "sex": {"male", "female", None}}
    assert_array_equal(saved.predict(raw),
                       saved.estimator_.predict(_one_hot_oracle(raw, categories)))
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "train.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-151] == "prediction" and len(lines[-150:]) == 150


def test_branches_refuses_a_continuous_column_and_bins_it_with_max_bins(tmp_path, capsys):
    frame = _penguins(300, 3)
    frame.to_csv(tmp_path / "train.csv", index=False)
    argv = ["fit", str(tmp_path / "train.csv"), "--target", "species", "--model", "branches"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'bill_length_mm'" in err and "--max-bins 10" in err
    # The advice, taken: the model Python fits with max_bins=10.
    assert main([*argv, "--max-bins", "10", "--out", str(tmp_path / "b.json")]) == 0
    X = frame.drop(columns="species")
    python = BranchesClassifier(max_bins=10).fit(X, frame["species"])
    saved = load(tmp_path / "b.json")
    assert saved.max_bins == 10
    assert_array_equal(saved.predict(X), python.predict(X))
    assert saved.tree_.n_leaves == python.tree_.n_leaves


# -- options from the parameter records --------------------------------------------------------


def _subparsers():
    from dpdt._cli import build_parser

    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if a.dest == "command"]
    return subparsers.choices


def test_every_option_of_every_command_has_help():
    for command, parser in _subparsers().items():
        for action in parser._actions:
            assert action.help and action.help.strip(), (command, action.option_strings)


def test_model_options_state_the_defaults_of_the_records(capsys):
    from dpdt import _params

    fit = _subparsers()["fit"]
    helps = {action.dest: action.help for action in fit._actions}
    for records in (_params.CLASSIFIER, _params.BOOSTING, _params.BRANCHES):
        for record in records:
            if record.name in helps and record.name != "verbose":
                default = record.default
                shown = ("none" if default is None else " ".join(map(str, default))
                         if isinstance(default, tuple) else str(default))
                assert shown in helps[record.name], (record.name, shown)
    # The choices are the records' options, in the parser's error.
    with pytest.raises(SystemExit):
        main(["fit", "--dataset", "bank", "--splitter", "nope"])
    err = capsys.readouterr().err
    assert ", ".join(sorted(_params.SPLITTERS | {"auto"})) in err


@pytest.mark.parametrize("options, model, expected", [
    (["--time-limit", "30", "--max-bins", "10"], "branches",
     {"time_limit": 30.0, "max_bins": 10}),
    (["--max-bins", "16", "--n-jobs", "2", "--time-limit", "30"], "tree",
     {"max_bins": 16, "n_jobs": 2, "time_limit": 30.0}),
    (["--max-bins", "none"], "tree", {"max_bins": None}),
    (["--n-jobs", "2", "--max-bins", "32", "--n-estimators", "2", "--learning-rate", "0.5"],
     "boosting", {"n_jobs": 2, "max_bins": 32, "n_estimators": 2, "learning_rate": 0.5}),
    (["--cv", "3", "--time-limit", "30", "--max-bins", "8"], "tree",
     {"cv": 3, "time_limit": 30.0, "max_bins": 8}),
])
def test_options_reach_every_model_that_takes_them(iris_csv, tmp_path, options, model,
                                                   expected):
    out = tmp_path / "m.json"
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", "--max-depth", "2",
                 "--model", model, "--out", str(out), *options]) == 0
    params = load(out).get_params()
    assert {name: params[name] for name in expected} == expected


@pytest.mark.parametrize("options, message", [
    (["--model", "boosting", "--time-limit", "3"],
     "--time-limit is an option of --model tree and --model branches, not of --model boosting"),
    (["--lam", "0.1"], "--lam is an option of --model branches, not of --model tree"),
    (["--model", "branches", "--cv", "3"], "--cv chooses the alpha of a tree"),
    (["--cv", "3", "--complexity", "n_splits", "--alpha", "0.1"], "give --cv or --alpha"),
])
def test_an_option_the_model_does_not_take_is_refused(iris_csv, capsys, options, message):
    assert main(["fit", str(iris_csv / "iris.csv"), "--target", "species", *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# -- one-line errors, outputs -------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    [], ["fitt"], ["fit", "--bogus"], ["fit", "--max-depth", "x"], ["fit", "--max-bins", "1"],
    ["fit", "--splitter", "nope"], ["show"], ["predict", "model.json"], ["fit", "--cv", "x"],
    ["explore", "model.json"], ["pareto", "--dpi", "high"],
])
def test_argument_errors_are_one_line_with_a_hint(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("dpdt")
    assert "--help)" in captured.err and "usage" not in captured.err
    command = argv[0] if argv and argv[0] in ("fit", "pareto", "show", "explore") else None
    if command is not None:   # named by the command, whose help it points to
        assert captured.err.startswith(f"dpdt {command}: ")
        assert captured.err.endswith(f"(see dpdt {command} --help)\n")


def test_infinity_is_one_line_and_no_warning(tmp_path, model_json):
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=["sepal_length", "sepal_width", "petal_length",
                                     "petal_width"])
    frame["species"] = y
    cases = {}
    for name, column, value in (("x_inf", "sepal_width", np.inf), ("x_neg", "petal_length",
                                                                     -np.inf),
                                ("y_inf", "species", np.inf), ("y_neg", "species", -np.inf)):
        path = tmp_path / f"{name}.csv"
        frame.assign(**{column: frame[column].where(np.arange(150) != 4, value)}).to_csv(
            path, index=False)
        cases[name] = ["fit", path, "--target", "species"]
    cases["regression"] = ["fit", tmp_path / "y_inf.csv", "--target", "species",
                           "--task", "regression"]
    np.savez(tmp_path / "inf.npz", X=np.where(X == X[3, 1], np.inf, X), y=y)
    cases["npz"] = ["fit", tmp_path / "inf.npz"]
    cases["predict"] = ["predict", model_json, tmp_path / "x_inf.csv"]
    for name, argv in cases.items():
        proc = dpdt(*argv)
        assert proc.returncode == 2, (name, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "infinite values" in proc.stderr, name
        assert "Warning" not in proc.stderr


def test_dash_writes_the_output_to_stdout_and_the_report_to_stderr(iris_csv, tmp_path):
    fit = subprocess.run([sys.executable, "-m", "dpdt", "fit", "iris.csv", "--target", "species",
                          "--max-depth", "2", "--out", "-"], capture_output=True, cwd=iris_csv)
    assert fit.returncode == 0, fit.stderr
    assert not (iris_csv / "-").exists()
    assert b"Pareto front" in fit.stderr and b"Pareto front" not in fit.stdout
    (tmp_path / "stdout.json").write_bytes(fit.stdout)
    frame = pd.read_csv(iris_csv / "iris.csv")
    expected = DPDTreeClassifier(max_depth=2).fit(frame.drop(columns="species"),
                                                  frame["species"])
    assert_array_equal(load(tmp_path / "stdout.json").pareto_front_, expected.pareto_front_)

    predict = dpdt("predict", tmp_path / "stdout.json", iris_csv / "new.csv", "--out", "-")
    assert predict.returncode == 0 and predict.stdout.startswith("prediction,proba_setosa")
    assert len(predict.stdout.splitlines()) == 1 + len(pd.read_csv(iris_csv / "new.csv"))

    for argv, magic in ((["pareto", "iris.csv", "--target", "species", "--plot", "-"],
                         b"\x89PNG\r\n\x1a\n"),
                        (["show", tmp_path / "stdout.json", "--png", "-"], b"\x89PNG\r\n\x1a\n"),
                        (["explore", tmp_path / "stdout.json", "--out", "-"], b"<!DOCTYPE html")):
        proc = subprocess.run([sys.executable, "-m", "dpdt", *map(str, argv)],
                              capture_output=True, cwd=iris_csv)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout[:len(magic)].lower() == magic.lower(), argv
        assert not (iris_csv / "-").exists() and not (iris_csv / "-.png").exists()


def test_pictures_are_named_as_written_and_a_directory_is_refused(iris_csv, model_json,
                                                                  tmp_path, capsys):
    assert main(["pareto", str(iris_csv / "iris.csv"), "--target", "species", "--max-depth",
                 "1", "--plot", str(tmp_path / "front")]) == 0
    assert f"front drawn in {tmp_path / 'front.png'}\n" in capsys.readouterr().out
    assert (tmp_path / "front.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["show", str(model_json), "--png", str(tmp_path / "tree")]) == 0
    assert f"tree drawn in {tmp_path / 'tree.png'}\n" in capsys.readouterr().out
    for argv in (["pareto", str(iris_csv / "iris.csv"), "--target", "species", "--plot"],
                 ["show", str(model_json), "--png"],
                 ["fit", str(iris_csv / "iris.csv"), "--target", "species", "--out"],
                 ["explore", str(model_json), "--out"]):
        assert main([*argv, str(tmp_path)]) == 2
        captured = capsys.readouterr()
        assert captured.err == f"dpdt {argv[0]}: --{argv[-1][2:]} {tmp_path} is a directory: " \
                               "name the file to write\n"
        assert captured.out == ""   # refused before fitting
        assert main([*argv, str(tmp_path / "absent" / "file")]) == 2
        assert f"no directory {tmp_path / 'absent'} to write it in" in capsys.readouterr().err
    assert not (tmp_path.parent / f"{tmp_path.name}.png").exists()


def test_help_and_argument_errors_import_no_scientific_library():
    code = ("import sys\nfrom dpdt._cli import main\n"
            "for argv in (['--help'], ['fitt'], []):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'sklearn', 'matplotlib', 'scipy') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"


def test_ctrl_c_during_parallel_cross_validation_is_status_130():
    """SIGINT while `dpdt fit --cv 5 --n-jobs 2` fits: the shell's status, one line."""
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "dpdt", "fit", "--dataset", "segment", "--cv", "5", "--n-jobs",
         "2", "--max-depth", "5", "--candidates", "9", "9", "9", "9", "9", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()   # the first fits are done: the others are running
    assert "fits" in first and "6/6" not in first, first
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    # Progress lines may still come before the interrupt lands; then one line, no more.
    *progress, last = err.splitlines()
    assert last == "dpdt fit: interrupted" and err.endswith("\n"), err
    assert all(line.startswith("[dpdt] DPDTreeClassifierCV: ") for line in progress), err
    assert proc.returncode == 130


def test_a_warning_is_one_line():
    proc = dpdt("fit", "--dataset", "segment", "--max-depth", "6", "--candidates", "9", "9", "9",
                "9", "--time-limit", "0.2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("dpdt fit: warning: time_limit=0.2 s expired")
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
def test_front_table_says_what_a_row_is_and_explains_single_alphas(complexity):
    from sklearn.datasets import load_breast_cancer

    from dpdt._cli import format_front

    X, y = load_breast_cancer(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=5, complexity=complexity).fit(X[:400], y[:400])
    out = format_front(clf)
    caption = out.split("\n|", 1)[0]
    assert "One row per tree of the front" in caption
    assert ("expected tests per training sample" if complexity == "expected_tests"
            else "the number of splits") in caption
    header, rows = _table(out)
    front = clf.pareto_front_
    single = front["alpha_min"] == front["alpha_max"]
    # This fit has a tree that alpha = 0 alone selects (more complex, as accurate as the next).
    assert single.any() or complexity == "n_splits"
    for k, cells in enumerate(rows):
        assert cells[1].endswith(" only") == single[k]
        if single[k]:
            # Its alpha selects it, and its neighbours tie with it there.
            alpha = front["alpha_min"][k]
            assert clf.set_params(alpha=alpha).tree_ is clf.trees_[k]
            objective = front["train_loss"] + alpha * front["complexity"]
            neighbours = [j for j in (k - 1, k + 1) if 0 <= j < len(front)]
            assert any(objective[j] == pytest.approx(objective[k], abs=1e-12)
                       for j in neighbours)
    assert ("'only': selected at that alpha alone" in out) == bool(single.any())


@pytest.mark.parametrize("spoil, advice", [
    (lambda frame: frame.assign(bill_length_mm=frame["bill_length_mm"].astype(str).where(
        frame.index != 5, "4O.2")), "it holds numbers but for ['4O.2']: fix or empty"),
    (lambda frame: frame.assign(name=[f"bird{i}" for i in range(len(frame))]),
     "an identifier or free text? drop it from the table"),
])
def test_a_string_column_of_many_values_is_named_with_advice(tmp_path, spoil, advice):
    spoil(_penguins(300, 4)).to_csv(tmp_path / "train.csv", index=False)
    proc = dpdt("fit", tmp_path / "train.csv", "--target", "species", "--max-depth", "1")
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("dpdt fit: warning: column ") and advice in line
