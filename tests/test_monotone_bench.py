"""benchmarks/monotone.py: its splits, its paired statistics, and a run on a tiny corpus."""

import io
import statistics

import numpy as np
import pytest

import monotone as bench  # benchmarks/monotone.py (pyproject: pytest pythonpath)
import report


def _write(folder, name, task, n, rng):
    """A set in the corpus's format, increasing in its first feature, a 75/25 split."""
    X = rng.normal(size=(n, 3))
    X[rng.random(X.shape) < 0.03] = np.nan
    signal = np.nan_to_num(X[:, 0]) + 0.3 * rng.normal(size=n)
    y = (signal > 0).astype(np.int64) if task == "classification" else signal
    cut = 3 * n // 4
    np.savez(folder / f"{name}.npz", X_train=X[:cut], y_train=y[:cut], X_test=X[cut:],
             y_test=y[cut:], feature_names=np.array(["up", "free", "down"]),
             categorical=np.zeros(3, dtype=bool), task=np.array(task))


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    _write(tmp_path, "clf", "classification", 240, rng)
    _write(tmp_path, "reg", "regression", 240, rng)
    declared = {"up": (+1, "rises"), "down": (-1, "falls")}
    monkeypatch.setattr(bench, "CONSTRAINTS", {"clf": declared, "reg": declared})
    monkeypatch.setattr(bench, "CREDIT_AND_HEALTH", ("clf",))
    return tmp_path


def test_splits_pool_the_rows_stratify_and_fill_with_train_medians(corpus):
    (data,), _ = bench.load(corpus, ["clf"])
    pooled = np.concatenate([data.y_train, data.y_test])
    seen = []
    for seed, X, y, X_test, y_test in bench.splits(data, 3):
        assert len(y) + len(y_test) == len(pooled) and len(y_test) == len(pooled) // 4
        # Stratified: each split's class shares are the pool's, to one row.
        assert abs(y_test.sum() - pooled.mean() * len(y_test)) <= 1
        assert not np.isnan(X).any() and not np.isnan(X_test).any()
        seen.append(y_test.copy())
        assert seed == len(seen) - 1
    assert not np.array_equal(seen[0], seen[1])
    # A pool cut to max_rows: the same rows for every seed.
    cut = [np.sort(np.concatenate([y, t])) for _, _, y, _, t in bench.splits(data, 2, 100)]
    assert len(cut[0]) == 100 and np.array_equal(cut[0], cut[1])


def test_summary_is_the_mean_over_sets_with_the_standard_error_over_splits():
    diffs = {"a": {0: 1.0, 1: 3.0}, "b": {0: -1.0, 1: -1.2}, "c": {0: 0.0, 1: 0.0}}
    s = bench.summarise(diffs)
    assert s["mean"] == pytest.approx((2.0 - 1.1 + 0.0) / 3)
    by_split = [(1.0 - 1.0 + 0.0) / 3, (3.0 - 1.2 + 0.0) / 3]
    assert s["se"] == pytest.approx(statistics.stdev(by_split) / 2 ** 0.5)
    assert (s["wins"], s["losses"]) == (1, 1)
    # a: mean 2 with SE 1 is not clear; b: mean -1.1 with SE 0.1 is.
    assert (s["clear_wins"], s["clear_losses"]) == (0, 1)
    assert bench.summarise(diffs, ("a",))["sets"] == ["a"]
    assert bench.summarise(diffs, ("z",)) is None


def test_run_and_report(corpus):
    sets, _ = bench.load(corpus)
    names = {d.name: ["up", "free", "down"] for d in sets}
    methods = ("dpdt", "dpdt-CV", "CART", "CART-CV", "dpdt free", "CART free")
    rows = bench.run(sets, [2], names, seeds=2, methods=methods, log=lambda line: None)
    assert len(rows) == 2 * 2 * len(methods)
    for row in rows:
        # Every constrained model moves the right way; the guarantee on the train split.
        if row["method"] not in bench.FREE:
            assert row["violations"] == 0, row
    by = {(r["set"], r["seed"], r["method"]): r for r in rows}
    for (name, seed, method), row in by.items():
        if method == "dpdt":
            assert row["train"] >= by[name, seed, "CART"]["train"] - 1e-12
    out = io.StringIO()
    bench.report(rows, [2], out=out)
    text = out.getvalue()
    assert text.count("| depth 2 |") == 1 and "| clf |" in text and "| reg |" in text
    assert "dpdt-CV − CART-CV, test: credit and health sets" in text
    assert "fits where dpdt is below CART: 0 of 4" in text
    assert "constrained models that moved the wrong way: none" in text


def test_report_passes_the_corpus_to_the_sections_that_read_it(tmp_path):
    sections = report.with_data(report.PAGE, tmp_path)
    for before, after in zip(report.PAGE, sections, strict=True):
        added = after.args[len(before.args):]
        assert added == (("--data", str(tmp_path)) if before.script in report.CORPUS_SCRIPTS
                         else ())
    assert report.with_data(report.PAGE, None) == report.PAGE
