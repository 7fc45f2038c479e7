"""Train score of every estimator when y or the sample weights are multiplied by a constant.

    python benchmarks/scale_invariance.py

Prints a markdown table: one row per estimator, one column per factor, each cell the training
score (R² or accuracy) or the exception the fit raised. A scale-invariant library prints the
same score across a row (bar "1e307/row", whose sum overflows float64: a ValueError naming it).
Regressors scale y; classifiers, having labels, scale the weights (so do the "w" columns).
"""

import warnings
from functools import partial

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes

import dpdt

FACTORS = [("1", "y", 1.0), ("y×1e-7", "y", 1e-7), ("y×3.7", "y", 3.7),
           ("y×2^-400", "y", 2.0**-400), ("y×1e80", "y", 1e80),
           ("w×1e-80", "w", 1e-80), ("w×1e80", "w", 1e80), ("w=1e307/row", "w", None)]

BOOST = dict(n_estimators=30, random_state=0)
ESTIMATORS = [
    ("DPDTreeClassifier", "c", partial(dpdt.DPDTreeClassifier, max_depth=3)),
    ("DPDTreeClassifierCV", "c", partial(dpdt.DPDTreeClassifierCV, max_depth=3, cv=3)),
    ("DPDTGradientBoostingClassifier", "c",
     partial(dpdt.DPDTGradientBoostingClassifier, **BOOST)),
    ("DPDTGradientBoostingClassifier λ=0", "c",
     partial(dpdt.DPDTGradientBoostingClassifier, **BOOST, reg_lambda=0.0)),
    ("BranchesClassifier", "c", partial(dpdt.BranchesClassifier, lam=0.01, max_depth=2,
                                        max_bins=3)),
    ("DPDTreeRegressor", "r", partial(dpdt.DPDTreeRegressor, max_depth=3)),
    ("DPDTreeRegressorCV", "r", partial(dpdt.DPDTreeRegressorCV, max_depth=3, cv=3)),
    *[(f"DPDTGradientBoostingRegressor {loss}", "r",
       partial(dpdt.DPDTGradientBoostingRegressor, **BOOST, loss=loss))
      for loss in ("squared_error", "absolute_error", "huber")],
    ("DPDTGradientBoostingRegressor λ=0", "r",
     partial(dpdt.DPDTGradientBoostingRegressor, **BOOST, reg_lambda=0.0)),
    ("DPDTGradientBoostingRegressor exact", "r",
     partial(dpdt.DPDTGradientBoostingRegressor, **BOOST, max_bins=None)),
]


def cell(make, X, y, on, factor):
    weight = np.ones(len(y))
    if on == "w":
        weight = np.full(len(y), 1e307) if factor is None else weight * factor
    elif on == "y":
        y = y * factor
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f"{make().fit(X, y, sample_weight=weight).score(X, y):.3f}"
    except Exception as error:   # the table reports what each fit does, errors included
        return type(error).__name__


def main():
    """Print the table."""
    Xc, yc = load_breast_cancer(return_X_y=True)
    Xc = Xc[:300, :10]
    yc = yc[:300]
    Xr, yr = load_diabetes(return_X_y=True)
    data = {"c": (Xc, yc), "r": (Xr, yr)}
    print("| estimator | " + " | ".join(name for name, _, _ in FACTORS) + " |")
    print("|---" * (len(FACTORS) + 1) + "|")
    for name, kind, make in ESTIMATORS:
        X, y = data[kind]
        cells = ["—" if kind == "c" and on == "y" and factor != 1.0 else
                 cell(make, X, y, "w" if kind == "c" and factor == 1.0 else on, factor)
                 for _, on, factor in FACTORS]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
