"""Everything a fitted tree can become: rules, DOT, a scikit-learn tree, a JSON file, ONNX.

Run ``python examples/export_and_save.py [--out DIR]``; it writes ``tree.dot`` and
``model.json`` (and ``tree.onnx`` when skl2onnx is installed).
"""

import argparse
from pathlib import Path

import numpy as np

import dpdt
from dpdt import DPDTreeRegressor, datasets


def main(out="."):
    """Fit a regression tree and export it every way; return the directory written to."""
    out = Path(out)
    data = datasets.load("concrete")
    reg = DPDTreeRegressor(max_depth=3).fit(data.X_train, data.y_train)
    print(dpdt.export_text(reg))
    dpdt.export_graphviz(reg, out / "tree.dot")      # dot -Tpng tree.dot -o tree.png

    skl = dpdt.to_sklearn(reg)                        # a fitted DecisionTreeRegressor
    assert np.array_equal(skl.predict(data.X_test), reg.predict(data.X_test))

    reg.save(out / "model.json")                      # versioned JSON, the whole front
    again = dpdt.load(out / "model.json")
    assert np.array_equal(again.pareto_front_, reg.pareto_front_)
    r2 = again.score(data.X_test, data.y_test)
    print(f"{len(again.trees_)} trees saved and loaded; test R² {r2:.3f}")

    try:
        from skl2onnx import to_onnx
    except ImportError:
        return out
    onnx_model = to_onnx(skl, data.X_test[:1].astype(np.float32))
    (out / "tree.onnx").write_bytes(onnx_model.SerializeToString())
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the files")
    print("wrote to", main(parser.parse_args().out))
