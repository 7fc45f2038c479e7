"""dpdt: non-greedy decision trees by dynamic programming."""

from . import datasets
from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
from ._branches import BranchesClassifier, MultiwayGreedyClassifier, MultiwayTree
from ._classes import DPDTreeClassifier, DPDTreeRegressor
from ._export import export_text
from ._tree import Tree

__all__ = [
    "BranchesClassifier",
    "MultiwayGreedyClassifier",
    "MultiwayTree",
    "DPDTGradientBoostingClassifier",
    "DPDTGradientBoostingRegressor",
    "DPDTreeClassifier", "DPDTreeRegressor", "Tree", "datasets", "export_text"]
__version__ = "0.1.0"
