"""benchmarks/scaling.py: its data generator and a tiny run of the whole report."""

import argparse

import numpy as np
import pytest

import scaling  # benchmarks/scaling.py (pyproject: pytest pythonpath)


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


def test_max_bins_reaches_the_estimator_only_when_it_can():
    args = argparse.Namespace(depth=3, n_jobs=1, max_bins=None)
    params = scaling._params(args, "dpdt", (3, 3))
    assert params["candidates"] == [3, 3]
    assert ("max_bins" in params) == scaling._accepts_max_bins()
    args.max_bins = 64
    assert scaling._params(args, "dpdt", (3,))["max_bins"] == 64
    assert "max_bins" not in scaling._params(args, "cart", None)


def test_tiny_run_prints_the_tables_and_the_verdicts(capsys):
    # Two models, not three: every measurement starts a Python process (about 2 s here).
    argv = ["--sizes", "2000", "4000", "--depth", "4", "--features", "12", "--max-bins", "none",
            "--models", "cart", "dpdt-3"]
    assert scaling.main(argv) == 0
    out = capsys.readouterr().out
    assert "| n | model | fit (s) | time / CART | peak RSS (MB) |" in out
    for label in ("CART", "DPDT-(3,)"):
        assert f"| 2000 | {label} |" in out and f"| 4000 | {label} |" in out
    assert "DPDT-(3, 3)" not in out
    assert "error" not in out
    assert "| DPDT-(3,) | 2000 | 4000 |" in out  # growth table
    assert "exponent b of t ~ n^b" in out
    verdicts = [line for line in out.splitlines() if line.startswith("- ")]
    assert len(verdicts) == 4
    assert all(line.endswith("PASS") or ": FAIL (" in line for line in verdicts)
    assert "at n=4000: DPDT-(3,) fit time <= 3x CART's" in out
    assert "from n=2000 to n=4000 <= 1.25x the n log n ratio" in out


def test_help_and_skipped_verdicts(capsys):
    with pytest.raises(SystemExit) as exit_info:
        scaling.main(["--help"])
    assert exit_info.value.code == 0
    assert "--max-bins" in capsys.readouterr().out
    lines = scaling.summarise([1000], ["dpdt-3"], {(1000, "dpdt-3"): {"seconds": 1.0}})
    assert "skipped" in lines[0] and "skipped" in lines[1]
