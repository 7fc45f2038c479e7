"""A missing optional dependency is an ImportError that names the extra to install."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris

from dpdt import DPDTreeClassifier, DPDTreePolicy, datasets, plot_cost_front, plot_pareto, plot_tree
from dpdt._cli import main
from dpdt._optional import EXTRAS, require


def hide(monkeypatch, *modules):
    """Make ``import module`` fail, as when the package is not installed."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.fixture(scope="module")
def tree():
    return DPDTreeClassifier(max_depth=2).fit(*load_iris(return_X_y=True))


def test_the_extras_are_those_of_pyproject():
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())[
        "project"]["optional-dependencies"]
    for package, extra in EXTRAS.items():
        # "dask[dataframe,distributed]" installs dask, dask.dataframe's needs and distributed.
        names = {name for requirement in extras[extra]
                 for name in re.findall(r"[A-Za-z_][\w-]*", requirement.split(">")[0])}
        assert package in names, (package, extra)


@pytest.mark.parametrize("package", sorted(EXTRAS))
def test_require_names_the_extra(monkeypatch, package):
    hide(monkeypatch, package)
    with pytest.raises(ImportError, match=rf'^this needs {package}: pip install '
                                          rf'"dpdt\[{EXTRAS[package]}\]"$'):
        require(package, "this")


@pytest.mark.parametrize("draw", ["plot_tree", "plot_pareto", "plot_cost_front"])
def test_plots_without_matplotlib(monkeypatch, tree, draw):
    if draw == "plot_cost_front":
        X = np.arange(20.0).reshape(-1, 1)
        tree = DPDTreePolicy(max_depth=1).fit(X, np.column_stack([X[:, 0] < 8, X[:, 0] >= 8]),
                                              action_costs=[0.0, 1.0])
    hide(monkeypatch, "matplotlib", "matplotlib.pyplot")
    with pytest.raises(ImportError, match=rf'^{draw} needs matplotlib: pip install "dpdt\[plot\]"'):
        {"plot_tree": plot_tree, "plot_pareto": plot_pareto,
         "plot_cost_front": plot_cost_front}[draw](tree)


def test_frames_without_pandas(monkeypatch):
    hide(monkeypatch, "pandas")
    with pytest.raises(ImportError, match=r'needs pandas: pip install "dpdt\[cli\]"'):
        datasets.load("bank", as_frame=True)
    assert datasets.load("bank").X_train.shape == (1097, 4)   # arrays need no pandas


@pytest.mark.parametrize(("args", "hidden", "extra"), [
    (["fit", "--dataset", "bank"], ["pandas"], "cli"),
    (["fit", "{csv}", "--target", "y"], ["pandas"], "cli"),
    (["fit", "{parquet}", "--target", "y"], ["pyarrow"], "cli"),
    (["show", "{model}", "--png", "{out}"], ["matplotlib", "matplotlib.pyplot"], "plot"),
    (["pareto", "--dataset", "bank", "--plot", "{out}"], ["matplotlib", "matplotlib.pyplot"],
     "plot"),
])
def test_command_line_without_an_extra(monkeypatch, capsys, tmp_path, tree, args, hidden, extra):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": np.arange(20.0), "y": np.arange(20) % 2})
    frame.to_csv(tmp_path / "d.csv", index=False)
    tree.save(tmp_path / "m.json")
    paths = {"csv": tmp_path / "d.csv", "parquet": tmp_path / "d.parquet",
             "model": tmp_path / "m.json", "out": tmp_path / "p.png"}
    (tmp_path / "d.parquet").write_bytes(b"PAR1")   # never read: pyarrow is missing
    hide(monkeypatch, *hidden)
    assert main([a.format(**paths) for a in args]) == 2
    err = capsys.readouterr().err
    assert f'needs {hidden[0]}: pip install "dpdt[{extra}]"' in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("hidden", ["distributed", "dask.dataframe"])
def test_dask_module_without_its_extra(hidden):
    code = (f"import sys; sys.modules[{hidden!r}] = None\n"
            "try:\n    import dpdt.dask\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f'dpdt.dask needs {hidden.split(".")[0]}: pip install "dpdt[dask]"'
