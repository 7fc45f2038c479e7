"""Real benchmark datasets bundled with dpdt.

Twelve UCI datasets with numerical features, in the exact train/test splits of the
Quant-BnB optimal-tree benchmark, so that train accuracies can be compared with published
figures. Eight are classification tasks, for which the proven optimal depth-3 train
accuracy is known; four are regression tasks. See ``data/README.md`` for attribution
(UCI Machine Learning Repository, CC BY 4.0).

Examples
--------
>>> from dpdt import datasets
>>> datasets.list_datasets("classification")[:3]
['bank', 'fault', 'occupancy']
>>> bank = datasets.load("bank")
>>> bank.X_train.shape, bank.optimal_depth3_accuracy
((1097, 4), 0.983)
>>> list(bank.feature_names)
['variance', 'skewness', 'curtosis', 'entropy']
"""

from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from .._optional import require

__all__ = ["list_datasets", "load"]

_TASKS = ("classification", "regression")

# Proven optimal depth-3 train accuracy on the bundled train split (Quant-BnB);
# None for regression tasks. The keys are the bundled dataset names.
_OPTIMAL_DEPTH3_ACCURACY = {
    "bank": 0.983,
    "fault": 0.682,
    "occupancy": 0.994,
    "page": 0.971,
    "raisin": 0.894,
    "rice": 0.938,
    "segment": 0.887,
    "wilt": 0.996,
    "carbon": None,
    "concrete": None,
    "fish": None,
    "qsar": None,
}

# The same optima exactly: training samples the optimal depth-3 tree misclassifies (unit weights),
# certified by dpdt's exhaustive branch and bound (benchmarks/table1.py) and rounding to the
# accuracies above. The gap to a rounded accuracy is off by up to 0.05 points.
_OPTIMAL_DEPTH3_ERRORS = {
    "bank": 19,
    "fault": 494,
    "occupancy": 47,
    "page": 125,
    "raisin": 76,
    "rice": 189,
    "segment": 208,
    "wilt": 18,
}

# The columns of X, in order, as the UCI repository names them (a column constant over the whole
# set, segment's region-pixel-count, is not bundled), and carbon's three targets.
_FEATURE_NAMES = {
    "bank": ["variance", "skewness", "curtosis", "entropy"],
    "fault": ["X_Minimum", "X_Maximum", "Y_Minimum", "Y_Maximum", "Pixels_Areas", "X_Perimeter",
              "Y_Perimeter", "Sum_of_Luminosity", "Minimum_of_Luminosity",
              "Maximum_of_Luminosity", "Length_of_Conveyer", "TypeOfSteel_A300",
              "TypeOfSteel_A400", "Steel_Plate_Thickness", "Edges_Index", "Empty_Index",
              "Square_Index", "Outside_X_Index", "Edges_X_Index", "Edges_Y_Index",
              "Outside_Global_Index", "LogOfAreas", "Log_X_Index", "Log_Y_Index",
              "Orientation_Index", "Luminosity_Index", "SigmoidOfAreas"],
    "occupancy": ["Temperature", "Humidity", "Light", "CO2", "HumidityRatio"],
    "page": ["height", "length", "area", "eccen", "p_black", "p_and", "mean_tr", "blackpix",
             "blackand", "wb_trans"],
    "raisin": ["Area", "MajorAxisLength", "MinorAxisLength", "Eccentricity", "ConvexArea",
               "Extent", "Perimeter"],
    "rice": ["Area", "Perimeter", "Major_Axis_Length", "Minor_Axis_Length", "Eccentricity",
             "Convex_Area", "Extent"],
    "segment": ["region-centroid-col", "region-centroid-row", "short-line-density-5",
                "short-line-density-2", "vedge-mean", "vedge-sd", "hedge-mean", "hedge-sd",
                "intensity-mean", "rawred-mean", "rawblue-mean", "rawgreen-mean", "exred-mean",
                "exblue-mean", "exgreen-mean", "value-mean", "saturation-mean", "hue-mean"],
    "wilt": ["GLCM_pan", "Mean_Green", "Mean_Red", "Mean_NIR", "SD_pan"],
    "carbon": ["Chiral indice n", "Chiral indice m", "Initial atomic coordinate u",
               "Initial atomic coordinate v", "Initial atomic coordinate w"],
    "concrete": ["Cement", "Blast Furnace Slag", "Fly Ash", "Water", "Superplasticizer",
                 "Coarse Aggregate", "Fine Aggregate", "Age"],
    "fish": ["CIC0", "SM1_Dz(Z)", "GATS1i", "NdsCH", "NdssC", "MLOGP"],
    "qsar": ["TPSA(Tot)", "SAacc", "H-050", "MLOGP", "RDCHI", "GATS1p", "nN", "C-040"],
}

_TARGET_NAMES = {
    "carbon": ["Calculated atomic coordinate u'", "Calculated atomic coordinate v'",
               "Calculated atomic coordinate w'"],
}

_TASK_OF = {
    name: ("regression" if acc is None else "classification")
    for name, acc in _OPTIMAL_DEPTH3_ACCURACY.items()
}


def _data_dir():
    return resources.files(__name__).joinpath("data")


def list_datasets(task=None):
    """List the names of the bundled datasets.

    Parameters
    ----------
    task : {"classification", "regression"} or None, default=None
        Keep only the datasets of this task. None lists all of them.

    Returns
    -------
    names : list of str
        Dataset names, sorted alphabetically; each is accepted by :func:`load`.

    Raises
    ------
    ValueError
        If `task` is not None, "classification" or "regression".

    Examples
    --------
    >>> from dpdt.datasets import list_datasets
    >>> list_datasets("regression")
    ['carbon', 'concrete', 'fish', 'qsar']
    """
    if task is not None and task not in _TASKS:
        raise ValueError(f"task must be None, 'classification' or 'regression'; got {task!r}.")
    return sorted(name for name, t in _TASK_OF.items() if task is None or t == task)


def load(name, *, as_frame=False):
    """Load one bundled dataset with its train/test split.

    Parameters
    ----------
    name : str
        Name of the dataset, one of :func:`list_datasets`.
    as_frame : bool, default=False
        Return the features as pandas DataFrames with named columns and the targets as Series
        named "target" (a DataFrame of named columns for carbon's three), so that an
        estimator fitted on them keeps the names in ``feature_names_in_``. Needs pandas.

    Returns
    -------
    data : sklearn.utils.Bunch
        Dictionary-like object with the fields:

        X_train : ndarray or DataFrame of shape (n_train, n_features)
            Training features, scaled to [0, 1].
        y_train : ndarray or Series of shape (n_train,), or (n_train, n_outputs)
            Training targets: integer class labels 0..K-1 for classification,
            floats for regression (``carbon`` has three outputs).
        X_test : ndarray or DataFrame of shape (n_test, n_features)
            Test features.
        y_test : ndarray or Series of shape (n_test,), or (n_test, n_outputs)
            Test targets.
        feature_names : ndarray of str of shape (n_features,)
            The name of each feature, as the UCI repository gives it.
        task : str
            "classification" or "regression".
        name : str
            The dataset name.
        optimal_depth3_accuracy : float or None
            Proven optimal train accuracy of a depth-3 tree on ``X_train, y_train``
            (Quant-BnB), rounded to three decimals; None for regression.
        optimal_depth3_errors : int or None
            The same optimum exactly: the number of training samples the optimal depth-3
            tree misclassifies; None for regression.

    Raises
    ------
    ValueError
        If `name` is not a bundled dataset.

    Examples
    --------
    >>> from dpdt.datasets import load
    >>> wilt = load("wilt")
    >>> wilt.task, wilt.X_train.shape
    ('classification', (4339, 5))
    >>> list(wilt.feature_names)
    ['GLCM_pan', 'Mean_Green', 'Mean_Red', 'Mean_NIR', 'SD_pan']
    """
    if not isinstance(name, str) or name not in _OPTIMAL_DEPTH3_ACCURACY:
        valid = ", ".join(list_datasets())
        raise ValueError(f"Unknown dataset {name!r}; valid names are: {valid}.")
    with _data_dir().joinpath(f"{name}.npz").open("rb") as fh:
        with np.load(fh, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in ("X_train", "y_train", "X_test", "y_test")}
            task = str(archive["task"])
    feature_names = np.array(_FEATURE_NAMES[name])
    if as_frame:
        pd = require("pandas", "datasets.load(as_frame=True)")
        for part in ("train", "test"):
            arrays[f"X_{part}"] = pd.DataFrame(arrays[f"X_{part}"], columns=feature_names)
            y = arrays[f"y_{part}"]
            arrays[f"y_{part}"] = (pd.Series(y, name="target") if y.ndim == 1
                                   else pd.DataFrame(y, columns=_TARGET_NAMES[name]))
    return Bunch(
        **arrays,
        feature_names=feature_names,
        task=task,
        name=name,
        optimal_depth3_accuracy=_OPTIMAL_DEPTH3_ACCURACY[name],
        optimal_depth3_errors=_OPTIMAL_DEPTH3_ERRORS.get(name),
    )
