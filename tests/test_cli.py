"""The README's main command: `dpdt fit --dataset bank` prints the tree and its Pareto front."""

import subprocess
import sys

from dpdt._cli import main


def test_fit_bundled_dataset_prints_tree_and_front(capsys):
    assert main(["fit", "--dataset", "bank"]) == 0
    out = capsys.readouterr().out
    assert "|--- x[" in out
    assert "Pareto front" in out
    assert "train accuracy" in out and "test accuracy" in out
    front_rows = [line for line in out.splitlines() if line.startswith("| ") and "inf" in line]
    assert front_rows, "the single-leaf row (alpha up to inf) is missing"


def test_unknown_dataset_is_a_clear_error():
    proc = subprocess.run([sys.executable, "-m", "dpdt._cli", "fit", "--dataset", "nope"],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert "unknown classification dataset 'nope'" in proc.stderr
