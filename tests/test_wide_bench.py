"""benchmarks/wide.py: it reads the corpus's format, measures what it says, summarises honestly."""

import json

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import wide as bench  # benchmarks/wide.py (pyproject: pytest pythonpath)


def _write(folder, name, task, n, rng, nan=False, outcome=None):
    """A set in the corpus's format: a learnable target, a 75/25 split."""
    X = rng.normal(size=(n, 3))
    signal = X[:, 0] + 0.5 * (X[:, 1] > 0)
    extra = {}
    if task == "classification" or outcome == "binary":
        y = (signal + 0.3 * rng.normal(size=n) > 0.25).astype(np.int64)
    else:
        y = signal + 0.3 * rng.normal(size=n)
    if task == "causal":
        t = rng.integers(0, 2, size=n)
        y = y + (t if outcome != "binary" else 0)
        if outcome == "binary":
            y = y.astype(np.float64)  # as the corpus stores causal outcomes
            extra["outcome_names"] = np.array(["no", "yes"])
        extra.update(t_train=t[: 3 * n // 4], t_test=t[3 * n // 4:],
                     treatment_names=np.array(["control", "treated"]))
    if nan:
        X[rng.random(X.shape) < 0.05] = np.nan
    cut = 3 * n // 4
    np.savez(folder / f"{name}.npz", X_train=X[:cut], y_train=y[:cut], X_test=X[cut:],
             y_test=y[cut:], feature_names=np.array(["a", "b", "c"]),
             categorical=np.zeros(3, dtype=bool), task=np.array(task), **extra)


@pytest.fixture
def corpus(tmp_path):
    rng = np.random.default_rng(0)
    _write(tmp_path, "clf_nan", "classification", 160, rng, nan=True)
    _write(tmp_path, "reg", "regression", 160, rng)
    _write(tmp_path, "causal_bin", "causal", 160, rng, outcome="binary")
    _write(tmp_path, "causal_big", "causal", 400, rng)
    return tmp_path


def test_load_reads_kinds_causal_treatment_and_row_limit(corpus):
    sets, skipped = bench.load(corpus, max_rows=200)
    by = {d.name: d for d in sets}
    assert skipped == ["causal_big"] and set(by) == {"clf_nan", "reg", "causal_bin"}
    assert by["clf_nan"].score == bench.ACCURACY and by["clf_nan"].has_nan
    assert by["reg"].score == bench.R2 and not by["reg"].has_nan
    causal = by["causal_bin"]
    raw = np.load(corpus / "causal_bin.npz")
    # Binary outcome: classification on the covariates plus the treatment as the last column.
    assert causal.score == bench.ACCURACY and causal.y_train.dtype == np.int64
    np.testing.assert_array_equal(causal.X_train[:, -1], raw["t_train"])
    np.testing.assert_array_equal(causal.X_test[:, :-1], raw["X_test"])
    assert bench.Dataset(corpus / "causal_big.npz").score == bench.R2


@pytest.mark.filterwarnings("ignore")
def test_run_measures_against_a_direct_fit_and_marks_what_cannot_run(corpus):
    sets, _ = bench.load(corpus)
    rows = bench.run(sets, [2], cv_max_rows=200)
    assert len(rows) == len(sets) * len(bench.METHODS)
    for data in sets:
        at = {r["method"]: r for r in rows if r["set"] == data.name}
        cart = (DecisionTreeClassifier if data.score == bench.ACCURACY
                else DecisionTreeRegressor)(max_depth=2, random_state=0).fit(data.X_train,
                                                                             data.y_train)
        assert at["CART"]["test"] == pytest.approx(cart.score(data.X_test, data.y_test))
        assert at["CART"]["train"] == pytest.approx(cart.score(data.X_train, data.y_train))
        assert at["CART"]["leaves"] == cart.get_n_leaves() and at["CART"]["ratio"] == 1.0
        for row in at.values():
            if row["note"] is None:
                assert 1 <= row["leaves"] and row["seconds"] > 0
                assert row["ratio"] == pytest.approx(row["seconds"] / at["CART"]["seconds"])
            else:
                assert row["test"] is row["train"] is row["ratio"] is None
        # A depth-2 DPDT tree is at least as good as CART's on the train split (it searches
        # a superset of CART's greedy choice when the data has no missing values).
        if not data.has_nan:
            assert at["default"]["train"] >= at["CART"]["train"] - 1e-12
        if data.n_train > 200:
            assert at["DPDT-CV"]["note"] == at["CART-CV"]["note"] == (
                "more than --cv-max-rows 200 training rows")
        else:
            assert at["DPDT-CV"]["note"] is None and at["CART-CV"]["note"] is None
    lickety = next(r for r in rows if r["set"] == "clf_nan" and r["method"] == "LicketySPLIT")
    assert lickety["note"] is not None  # NaN (or the package missing): n/a with a reason


def _row(name, method, test, train, seconds, metric=bench.ACCURACY, depth=3):
    return dict(set=name, kind="classification", score=metric, n_train=100, depth=depth,
                method=method, test=test, train=train, leaves=4, seconds=seconds,
                ratio=seconds / 1.0, note=None)


def test_summary_counts_differences_wins_and_ratios():
    rows = []
    for name, (d, c, dcv, ccv, ratio) in {"a": (0.90, 0.80, 0.85, 0.80, 2.0),
                                          "b": (0.70, 0.75, 0.70, 0.72, 10.0),
                                          "c": (0.60, 0.60, 0.60, 0.60, 4.0)}.items():
        rows += [_row(name, "default", d, d + 0.1, ratio), _row(name, "CART", c, c + 0.05, 1.0),
                 _row(name, "DPDT-CV", dcv, dcv, 1.0), _row(name, "CART-CV", ccv, ccv, 1.0)]
    lines = bench.summary(rows, 3, bench.ACCURACY)
    assert lines[0] == ("- depth 3, accuracy (3 sets): default - CART train mean +6.67 points, "
                        "worst +0.00 (b); below CART on 0/3 sets")
    assert lines[1] == ("- depth 3, accuracy (3 sets): default - CART test mean +1.67 points, "
                        "worst -5.00 (b); below CART on 1/3 sets (b)")
    assert lines[2] == ("- depth 3, accuracy (3 sets): default / CART fit time median 4.0x, "
                        "worst 10.0x (b)")
    assert lines[3] == ("- depth 3, accuracy (3 sets): DPDT-CV - CART-CV test mean +1.00 points "
                        "over 3 sets, wins 1 / losses 1")
    assert bench.summary(rows, 3, bench.R2) == []


@pytest.mark.filterwarnings("ignore")
def test_selection_study_chooses_on_the_train_split_only(corpus):
    sets, _ = bench.load(corpus, names=["reg", "causal_bin"])
    rows = bench.selection_study(sets, [2], outer_folds=3)
    names = [bench._rule_name(rule) for rule in bench.RULES]
    for row, data in zip(rows, sets, strict=True):
        best = max(row["inner"].values())
        # The first rule (in RULES' order) of best outer-validation mean, whatever the test says.
        assert row["chosen"] == next(n for n in names if row["inner"][n] == best)
        assert row["chosen_test"] == row["test"][row["chosen"]]
        # The reference rule's test score is that of DPDT-CV, with that rule's parameters,
        # fitted on the whole train split.
        selection, complexity, leaf, shuffle = bench.RULES[0]
        kind = StratifiedKFold if data.score == bench.ACCURACY else KFold
        folds = kind(5, shuffle=True, random_state=0) if shuffle else kind(5)
        model = (bench.DPDTreeClassifierCV if data.score == bench.ACCURACY
                 else bench.DPDTreeRegressorCV)(max_depths=[2], cv=folds, n_jobs=1,
                                                selection=selection, complexity=complexity,
                                                min_samples_leaf=leaf)
        model.fit(data.X_train, data.y_train)
        assert row["test"][names[0]] == pytest.approx(model.score(data.X_test, data.y_test))


@pytest.mark.filterwarnings("ignore")
def test_main_prints_tables_and_saves_rows(corpus, tmp_path, capsys):
    out = tmp_path / "rows.json"
    bench.main(["--data", str(corpus), "--depths", "2", "--sets", "reg", "causal_bin",
                "--methods", "default", "CART", "--json", str(out)])
    text = capsys.readouterr().out
    assert "| depth 2 | score | default | CART |" in text and "| reg | R² |" in text
    assert "default - CART test mean" in text and "DPDT-CV - CART-CV" not in text
    rows = json.loads(out.read_text())
    assert {(r["set"], r["method"]) for r in rows} == {
        (s, m) for s in ("reg", "causal_bin") for m in ("default", "CART")}
    # The saved rows print the same tables again, without fitting.
    bench.main(["--load", str(out)])
    assert capsys.readouterr().out == text
    with pytest.raises(SystemExit):
        bench.main(["--data", str(tmp_path / "nowhere")])
