"""The example scripts run and produce their files, so that they cannot rot."""

import runpy
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# Every example and the files it must write.
OUTPUTS = {
    "pareto_front.py": ["pareto_front.png"],
    "plot_tree.py": ["tree.png"],
    "readme_tree.py": ["readme_tree.png"],
    "choose_alpha.py": ["choose_alpha.png"],
    "branches_vs_dpdt.py": ["branches_tree.png"],
    "export_and_save.py": ["tree.dot", "model.json", "tree.onnx"],
    "explorer_page.py": ["explorer.html"],
    "policy_budget.py": ["policy_budget.png"],
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(OUTPUTS)


@pytest.mark.parametrize("script", sorted(OUTPUTS))
def test_example_runs_and_writes_its_files(script, tmp_path, capsys):
    module = runpy.run_path(str(EXAMPLES / script), run_name="example")
    module["main"](tmp_path)
    assert capsys.readouterr().out.strip(), "an example explains what it shows"
    for name in OUTPUTS[script]:
        path = tmp_path / name
        assert path.is_file(), name
        if name.endswith(".png"):
            data = path.read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name
        else:
            assert path.stat().st_size > 100, name
