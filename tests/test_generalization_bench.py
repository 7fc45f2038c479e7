"""benchmarks/generalization.py: its verdicts count what they say, and a small run reports."""

import numpy as np
import pytest

import generalization as bench  # benchmarks/generalization.py (pyproject: pytest pythonpath)


def _row(dataset, dpdt, cart, depth=3):
    """A row of run(): two methods' (accuracy, expected tests, test predictions)."""
    return {"depth": depth, "dataset": dataset,
            **{method: dict(accuracy=a, tests=t, predictions=np.array(p), leaves=1, seconds=0.0)
               for method, (a, t, p) in (("D", dpdt), ("C", cart))}}


def test_compare_counts_fewer_tests_ties_and_losses(capsys):
    rows = [_row("fewer", (0.9, 1.5, [0]), (0.9, 2.0, [1])),
            _row("same_tree", (0.8, 1.0, [1, 0]), (0.8, 1.0, [1, 0])),
            _row("tie", (0.8, 1.0, [1, 0]), (0.8, 1.0, [0, 1])),
            _row("larger", (0.95, 3.0, [0]), (0.9, 2.0, [0])),
            _row("worse", (0.8, 1.0, [0]), (0.9, 2.0, [0]))]
    bench._compare(rows, "D", "C")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "- depth 3: D mean test accuracy 0.8500 > C 0.8600: FAIL (-0.0100)"
    assert out[1] == ("- depth 3: D at least as accurate with no more expected tests than C on "
                      "3/5 datasets (fewer: fewer; equal: same_tree (tie: same test "
                      "predictions), tie (tie)): PASS")
    assert out[2] == ("- depth 3: D at least as accurate with strictly fewer expected tests than "
                      "C on 1/5 datasets: FAIL (1/5)")


def test_nested_report_counts_the_target_per_depth_on_datasets_and_folds(capsys):
    names = ["a", "b"]
    folds = bench.OUTER_FOLDS
    scores = {key: {name: [] for name in names}
              for key in [(m, r) for m in bench.NESTED_METHODS for r in bench.RULES]}
    for name in names:
        for depth in (3, 4):
            for fold in range(folds):
                for key in scores:
                    method, rule = key
                    if method == "CART-CV":
                        value = (0.8, 2.0)
                    elif name == "a":
                        # As good with fewer tests on every fold.
                        value = (0.8, 1.0 + 0.1 * (rule == "1se"))
                    elif depth == 3:
                        # More accurate, larger on the first fold only: the mean is larger.
                        value = (0.9, 4.0 if fold == 0 else 2.0)
                    else:
                        # Less accurate on one fold: the mean is less accurate.
                        value = (0.5 if fold == 0 else 0.8, 1.0)
                    scores[key][name].append((depth, *value))
    bench.report_nested(scores, names)
    out = capsys.readouterr().out
    for method in ("DPDT-CV", "DPDT-CV depths 1..d"):
        for rule, cart in (("best", "best"), ("1se", "best"), ("1se", "1se")):
            head = f"{method} {rule} at least as accurate with no more expected tests than " \
                   f"CART-CV {cart} on "
            assert (f"depth 3: {head}1/2 datasets (means over the outer folds), on "
                    f"{2 * folds - 1}/{2 * folds} (dataset, outer fold) pairs") in out
            assert (f"depth 4: {head}1/2 datasets (means over the outer folds), on "
                    f"{2 * folds - 1}/{2 * folds} (dataset, outer fold) pairs") in out
    # The two DPDT variants score the same here: no gain, so the depth grid is not adopted.
    assert ("DPDT-CV best: depths 1..d - depth limit alone accuracy +0.0000 (standard error "
            "0.0000), expected tests +0.00; the protocol keeps the depth limit alone") in out


@pytest.mark.filterwarnings("ignore")
def test_small_run_reports_every_method_and_verdict(capsys):
    rows = bench.run(["bank"], [2], streed=False)
    methods = [*bench._methods(2, False), *bench.INFORMATIVE]
    bench.report(rows, methods)
    out = capsys.readouterr().out
    for method in methods:
        assert 0.5 < rows[0][method]["accuracy"] <= 1.0
        assert 0.0 <= rows[0][method]["tests"] <= 2.0
    assert "| 2 | bank |" in out and "| 2 | **mean** |" in out
    assert "depth 2: DPDT-CV best mean test accuracy" in out
    assert "time: STreeD not run" in out
