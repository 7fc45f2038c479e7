"""benchmarks/scaling.py: its data sets, the floor's counter and price, and a tiny grid."""

import json

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import scaling  # benchmarks/scaling.py (pyproject: pytest pythonpath)
from dpdt import DPDTreeClassifier


def test_kdd_like_is_deterministic_imbalanced_and_has_every_class():
    X, y = scaling.kdd_like(20000, n_features=40, seed=0)
    assert X.shape == (20000, 40) and y.shape == (20000,)
    assert X.dtype == np.float64 and X.flags.c_contiguous and np.issubdtype(y.dtype, np.integer)
    assert np.isfinite(X).all()
    counts = np.bincount(y, minlength=23)
    assert len(counts) == 23 and (counts > 0).all()
    assert counts.max() / len(y) > 0.40
    X2, y2 = scaling.kdd_like(20000, n_features=40, seed=0)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    X3, _ = scaling.kdd_like(20000, n_features=40, seed=1)
    assert not np.array_equal(X, X3)
    # Chunked generation: a smaller sample is the start of a larger one.
    X4, y4 = scaling.kdd_like(1000, n_features=40, seed=0)
    assert np.array_equal(X4, X[:1000]) and np.array_equal(y4, y[:1000])


def test_kdd_like_columns_repeat_values():
    X, _ = scaling.kdd_like(5000, n_features=12, seed=0)
    distinct = [len(np.unique(column)) for column in X.T]
    assert X.shape == (5000, 12)
    assert sum(d <= 70 for d in distinct) >= 4  # the categorical third, and the rates


def test_synthetic_sets_hold_out_a_fifth():
    data = scaling.load("classification", 400)
    assert data["X_train"].shape == (400, 20) and data["X_test"].shape == (100, 20)
    assert set(np.unique(data["y_train"])) == {0, 1, 2}
    again = scaling.load("classification", 400)
    assert np.array_equal(data["X_test"], again["X_test"])
    data = scaling.load("kdd", 400)
    assert data["X_train"].shape == (400, 40) and data["X_test"].shape == (100, 40)
    X, y = scaling.kdd_like(500, 40, 0)
    assert np.array_equal(data["X_test"], X[400:]) and np.array_equal(data["y_train"], y[:400])


def test_real_sets_load_with_their_splits():
    names = scaling.real_names()
    assert names[-2:] == ["digits", "photos"] and "bank" in names
    bank = scaling.load("bank")
    assert bank["X_train"].shape == (1097, 4) and bank["X_test"].shape == (275, 4)
    digits = scaling.load("digits")
    assert digits["X_train"].shape == (1438, 64) and digits["X_test"].shape == (359, 64)


def test_photos_are_every_pixel_of_both_sample_images():
    pytest.importorskip("PIL")
    data = scaling.load("photos")
    X = np.vstack([data["X_train"], data["X_test"]])
    y = np.concatenate([data["y_train"], data["y_test"]])
    assert X.shape == (2 * 427 * 640, 5) and len(data["y_test"]) == len(y) // 5
    assert np.array_equal(np.bincount(y), [427 * 640, 427 * 640])
    assert X[:, :3].min() >= 0 and X[:, :3].max() <= 255 and X[:, 3].max() == 426
    assert len(np.unique(X[:, 0])) > 200


def test_sample_reads_sums_the_samples_of_the_solved_states():
    data = scaling.load("classification", 400)
    X, y = data["X_train"], data["y_train"]
    n = len(y)
    assert DPDTreeClassifier(max_depth=1).fit(X, y).stats_["sample_reads"] == n
    for k in (1, 3, 5):
        # The root, then both sides of each of its k candidates: n samples per candidate.
        model = DPDTreeClassifier(max_depth=2, splitter="cart", candidates=(k,)).fit(X, y)
        assert model.stats_["cache_hits"] == 0 and model.stats_["states"] == 1 + 2 * k
        assert model.stats_["sample_reads"] == scaling.sample_reads(model) == n * (1 + k)
    deeper = DPDTreeClassifier(max_depth=4).fit(X, y).stats_
    assert n * deeper["states"] > deeper["sample_reads"] > n
    exhaustive = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False)
    stats = exhaustive.fit(X[:100], y[:100]).stats_
    assert stats["sample_reads"] == 100 * stats["states"] > 0
    # A scikit-learn tree: the samples of the nodes it split.
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    left = cart.tree_.children_left[0]
    assert scaling.sample_reads(cart) == n + cart.tree_.n_node_samples[left] + \
        cart.tree_.n_node_samples[cart.tree_.children_right[0]]
    assert scaling.sample_reads(object()) is None


def test_histogram_price_is_a_positive_time_per_element():
    seconds = scaling.histogram_seconds_per_element(1000)
    assert 0 < seconds < 1 and np.isfinite(seconds)


def test_measure_prints_the_data_then_one_line_per_fit(capsys):
    models = [("cart", "cart", {"random_state": 0}), ("default", "dpdt", {"n_jobs": 1}),
              ("bad", "dpdt", {"candidates": [0]})]
    spec = {"data": "kdd", "n": 300, "seed": 0, "depths": [2, 3], "models": models, "repeats": 2}
    scaling._measure(json.dumps(spec))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["n"] == 300 and lines[0]["features"] == 40 and lines[0]["element_seconds"] > 0
    assert [(r["depth"], r["model"]) for r in lines[1:]] == [
        (d, m) for d in (2, 3) for m in ("cart", "default", "bad")]
    for r in lines[1:]:
        if r["model"] == "bad":
            assert r["error"].startswith(("ValueError", "InvalidParameterError"))
            continue
        assert r["seconds"] > 0 and r["floor"] > 0 and r["peak_mb"] > 0
        assert 0 <= r["test_accuracy"] <= 1 and 0 <= r["train_accuracy"] <= 1
    default_3 = next(r for r in lines if r.get("model") == "default" and r["depth"] == 3)
    expected = DPDTreeClassifier(max_depth=3, n_jobs=1)
    data = scaling.load("kdd", 300)
    expected.fit(data["X_train"], data["y_train"])
    assert default_3["floor"] == pytest.approx(
        expected.stats_["sample_reads"] * 40 * lines[0]["element_seconds"])
    assert default_3["test_accuracy"] == expected.score(data["X_test"], data["y_test"])


def _row(data, n, depth, model, seconds, test=0.5, train=0.5, peak=100.0, floor=None):
    return {"data": data, "n": n, "depth": depth, "model": model, "features": 20,
            "seconds": seconds, "test_accuracy": test, "train_accuracy": train, "peak_mb": peak,
            "rss_before_mb": 50.0, "peak_is_lifetime": False, "floor": floor}


def test_summary_judges_every_cell():
    rows = [_row("classification", 100_000, 3, "cart", 1.0, test=0.60, train=0.60),
            _row("classification", 100_000, 3, "default", 2.0, test=0.65, train=0.70,
                 floor=0.5),
            _row("classification", 100_000, 3, "default-parallel", 1.0),
            _row("classification", 100_000, 5, "cart", 1.0, test=0.70, train=0.70),
            _row("classification", 100_000, 5, "default", 4.0, test=0.69, train=0.69, peak=200,
                 floor=0.5),
            _row("classification", 100_000, 5, "default-parallel", 3.0),
            _row("classification", 1000, 5, "cart", 1.0),
            _row("classification", 1000, 5, "default", 9.0),
            _row("classification", 1000, 5, "default-parallel", 9.0)]
    lines = scaling.summarise(rows)
    assert lines[0].endswith("FAIL (2 of 3 cells over, worst 9.0x at classification n=1000 "
                             "depth 5)")
    # 1000 rows are below 50 000: only the two large cells count, one of them too slow.
    assert lines[1].endswith("FAIL (1 of 2 cells below, lowest 1.33x at classification "
                             "n=100000 depth 5)")
    assert "mean +1.33 percentage points over 3 cells; higher in 1, equal in 1, lower in 1" \
        in lines[2]
    assert lines[3].endswith("FAIL (1 of 3 cells, e.g. classification n=100000 depth 5)")
    assert "(classification n=100000): FAIL (1 of 2 cells, worst 2.00x" in lines[4]
    assert lines[5] == "DPDT default's fit time over its floor: median 6.0x, from 4.0x to 8.0x"
    rows = [r for r in rows if r["depth"] == 3 and r["model"] != "default"]
    rows.append({**rows[0], "model": "default", "error": "MemoryError: too big"})
    lines = scaling.summarise(rows)
    assert lines[0].endswith("FAIL (fit failed at classification n=100000 depth 3)")
    assert lines[1].endswith("FAIL (fit failed at classification n=100000 depth 3)")
    assert len(lines) == 2
    lines = scaling.summarise([_row("bank", 1097, 5, "cart", 1.0)])
    assert "skipped" in lines[0] and "skipped" in lines[1] and len(lines) == 2


def test_tiny_grid_prints_a_table_per_data_set_and_the_verdicts(capsys):
    # Three data sets, each a fresh Python process (a few seconds each).
    argv = ["--sizes", "300", "--depths", "2", "3", "--real-sets", "bank",
            "--configs", '{"binned": {"max_bins": 16}}']
    assert scaling.main(argv) == 0
    out = capsys.readouterr().out
    assert "error" not in out
    for kind in ("classification", "kdd", "real"):
        assert f"### {kind}: " in out
    header = "| n | depth | model | fit (s) | / CART | floor (s) | fit / floor |"
    assert sum(line.startswith(header) for line in out.splitlines()) == 2
    assert "| data set | features | n | depth | model |" in out
    labels = ["CART", "DPDT default", "DPDT default, n_jobs=-1", "DPDT binned"]
    lightgbm = scaling._available("lightgbm")
    if lightgbm:
        labels.append("LightGBM, 1 tree")
    for label in labels:
        assert f"| 300 | 2 | {label} |" in out and f"| 300 | 3 | {label} |" in out
        assert f"| bank | 4 | 1097 | 5 | {label} |" in out
    table = [line.split(" | ") for line in out.splitlines() if line.startswith("| 300 | 3 |")]
    floors = {cells[2]: cells[5] for cells in table}
    assert float(floors["DPDT default"]) > 0 and float(floors["CART"]) > 0
    if lightgbm:
        assert floors["LightGBM, 1 tree"] == "-"
    assert "Histogram pass per element:" in out
    verdicts = [line for line in out.splitlines() if line.startswith("- ")]
    assert len(verdicts) == 6
    assert "from 50000 training rows: skipped" in verdicts[1]
    assert "(classification n=300, kdd n=300)" in verdicts[4]
    assert all(line.endswith("PASS") or ": FAIL (" in line for line in verdicts[:2] + verdicts[3:5]
               if "skipped" not in line)


def test_help_and_bad_arguments(capsys):
    with pytest.raises(SystemExit) as exit_info:
        scaling.main(["--help"])
    assert exit_info.value.code == 0
    assert "--configs" in capsys.readouterr().out
    for argv, message in [
            (["--configs", "{"], "is not JSON"),
            (["--configs", "[1]"], "must be a JSON object"),
            (["--configs", '{"x": {"no_such_parameter": 1}}'], "no_such_parameter"),
            (["--configs", '{"cart": {}}'], "built-in"),
            (["--configs", '{"x": {"max_depth": 3}}'], "sets max_depth"),
            (["--sizes", "10"], "--sizes must be >= 100"),
            (["--depths", "0"], "must be >= 1")]:
        with pytest.raises(SystemExit) as exit_info:
            scaling.main(argv)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
