"""dpdt: non-greedy decision trees by dynamic programming."""

from . import datasets
from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
from ._branches import BranchesClassifier, MultiwayGreedyClassifier
from ._classes import DPDTreeClassifier, DPDTreeRegressor
from ._cv import DPDTreeClassifierCV, DPDTreeRegressorCV
from ._explorer import export_html
from ._export import export_graphviz, export_text
from ._io import load
from ._multiway_tree import MultiwayTree
from ._plot import plot_pareto, plot_tree
from ._sklearn import to_sklearn
from ._tree import Tree
from ._version import __version__ as __version__

__all__ = [
    "BranchesClassifier",
    "MultiwayGreedyClassifier",
    "MultiwayTree",
    "DPDTGradientBoostingClassifier",
    "DPDTGradientBoostingRegressor",
    "DPDTreeClassifierCV", "DPDTreeRegressorCV",
    "DPDTreeClassifier", "DPDTreeRegressor", "Tree", "datasets", "export_text",
    "export_graphviz", "export_html", "to_sklearn", "load",
    "plot_tree", "plot_pareto"]
