"""dpdt: non-greedy decision trees by dynamic programming."""

import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__

if TYPE_CHECKING:   # for tools that read the source; at run time, see __getattr__
    from . import datasets
    from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
    from ._branches import BranchesClassifier, MultiwayGreedyClassifier
    from ._classes import DPDTreeClassifier, DPDTreeRegressor
    from ._cv import DPDTreeClassifierCV, DPDTreePolicyCV, DPDTreeRegressorCV
    from ._explorer import export_html
    from ._export import export_graphviz, export_text
    from ._io import load
    from ._multiway_tree import MultiwayTree
    from ._onehot import OneHotEncoded
    from ._plot import plot_cost_front, plot_pareto, plot_tree
    from ._policy import DPDTreePolicy
    from ._rewards import doubly_robust_rewards
    from ._sklearn import to_sklearn
    from ._tree import Tree

__all__ = [
    "BranchesClassifier",
    "MultiwayGreedyClassifier",
    "MultiwayTree",
    "DPDTGradientBoostingClassifier",
    "DPDTGradientBoostingRegressor",
    "DPDTreeClassifierCV", "DPDTreeRegressorCV", "DPDTreePolicyCV",
    "DPDTreeClassifier", "DPDTreeRegressor", "DPDTreePolicy", "Tree", "datasets", "export_text",
    "export_graphviz", "export_html", "to_sklearn", "load", "OneHotEncoded",
    "plot_tree", "plot_pareto", "plot_cost_front", "doubly_robust_rewards"]


def _import_public_api():
    """Import the public names into the package.

    On first use rather than with the package: scikit-learn, which the estimators import, takes
    a second to import, and the ``dpdt`` command's help and errors need none of it. Every
    estimator class registers with the model files' schema as it is imported, so all are
    imported together, before :func:`load` can read a file.
    """
    global BranchesClassifier, MultiwayGreedyClassifier, MultiwayTree, Tree, OneHotEncoded
    global DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
    global DPDTreeClassifier, DPDTreeRegressor, DPDTreeClassifierCV, DPDTreeRegressorCV
    global export_text, export_graphviz, export_html, to_sklearn, load, plot_tree, plot_pareto
    global plot_cost_front
    global DPDTreePolicy, DPDTreePolicyCV, doubly_robust_rewards
    from ._boosting import DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor
    from ._branches import BranchesClassifier, MultiwayGreedyClassifier
    from ._classes import DPDTreeClassifier, DPDTreeRegressor
    from ._cv import DPDTreeClassifierCV, DPDTreePolicyCV, DPDTreeRegressorCV
    from ._explorer import export_html
    from ._export import export_graphviz, export_text
    from ._io import load
    from ._multiway_tree import MultiwayTree
    from ._onehot import OneHotEncoded
    from ._plot import plot_cost_front, plot_pareto, plot_tree
    from ._policy import DPDTreePolicy
    from ._rewards import doubly_robust_rewards
    from ._sklearn import to_sklearn
    from ._tree import Tree


def __getattr__(name):
    if name == "datasets":
        # Imported as a submodule; ``from . import datasets`` would ask this function again.
        return importlib.import_module(f"{__name__}.datasets")
    if name in __all__:
        _import_public_api()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
