"""The memory a fit is estimated to need before it starts, against the peak it reaches.

Each configuration is fitted in a fresh process: the peak is the growth of its resident set
(``VmHWM`` after a reset, Linux) over the fit, with the training data already made. The estimate is
``stats_["estimated_bytes"]``, made before the search (``dpdt/_memory.py``); "counted" is what the
core counted as it went (the fixed part plus ``stats_["state_bytes"]``). The ratio is estimate over
peak: within [0.5, 2] is the target, above 1 the safe side. Run
``python benchmarks/memory.py [--quick]``.
"""

import argparse
import json
import subprocess
import sys

_CHILD = """
import json, sys
import numpy as np
from dpdt import DPDTreeClassifier
from dpdt._memory import fixed_fit_bytes

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

cfg = json.loads(sys.argv[1])
n, p, k = cfg.pop("n"), cfg.pop("p"), cfg.pop("classes")
rng = np.random.default_rng(0)
X = rng.random((n, p))
score = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(n)
y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
if "candidates" in cfg:
    cfg["candidates"] = tuple(cfg["candidates"])
DPDTreeClassifier(max_depth=2).fit(X[:50], y[:50])   # imports and first calls out of the measure
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
model = DPDTreeClassifier(**cfg).fit(X, y)
peak = status("VmHWM") - before
stats = model.stats_
print(json.dumps({"peak": peak, "estimate": stats["estimated_bytes"], "states": stats["states"],
                  "state_bytes": stats["state_bytes"], "seconds": stats["seconds"]}))
"""

# (n, p, classes, estimator parameters): depths, budgets, splitters and class counts where
# the states, the layout or the generator's buffers dominate in turn.
GRID = [
    (5000, 8, 2, dict(max_depth=3)),
    (5000, 8, 2, dict(max_depth=4, splitter="cart", candidates=(7, 7, 7))),
    (5000, 8, 2, dict(max_depth=5, splitter="cart", candidates=(8, 8, 8))),
    (5000, 8, 5, dict(max_depth=5, splitter="cart", candidates=(8, 8, 8))),
    (2000, 8, 2, dict(max_depth=6, splitter="cart", candidates=(6, 6, 6, 6))),
    (20000, 8, 2, dict(max_depth=4, splitter="cart", candidates=(16, 16, 16))),
    (1000, 8, 2, dict(max_depth=3, splitter="cart", candidates=(2**31 - 1,) * 3)),
    (300, 6, 2, dict(max_depth=3, splitter="exhaustive", candidates=(1,))),
    (2000, 8, 2, dict(max_depth=4, splitter="topb", candidates=(20, 20, 20))),
    (2000, 8, 2, dict(max_depth=4, splitter="quantile", candidates=(3, 3, 3))),
    (20000, 8, 2, dict(max_depth=5, splitter="cart", candidates=(8, 8, 8), max_bins=64)),
    (5000, 8, 3, dict(max_depth=4, splitter="cart", candidates=(7, 7, 7), front="pareto")),
    (100000, 12, 3, dict(max_depth=6, splitter="cart", candidates=(4, 4))),
]
QUICK = [0, 1, 6, 7, 10]


def measure(n, p, classes, params):
    """Return the child's figures for one configuration (a fresh process)."""
    cfg = dict(params, n=n, p=p, classes=classes)
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(cfg)], capture_output=True,
                         text=True, check=True, timeout=1800)
    return json.loads(out.stdout)


def describe(params):
    """Return the depth, candidates and splitter columns of a configuration."""
    candidates = params.get("candidates", "auto")
    if isinstance(candidates, tuple) and len(set(candidates)) == 1 and len(candidates) > 1:
        candidates = f"({candidates[0]},)*{len(candidates)}"
    extra = ", ".join(f"{k}={v}" for k, v in params.items()
                      if k not in ("max_depth", "candidates", "splitter"))
    splitter = params.get("splitter", "auto") + (f" ({extra})" if extra else "")
    return params["max_depth"], candidates, splitter


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="five configurations only")
    args = parser.parse_args()
    grid = [GRID[i] for i in QUICK] if args.quick else GRID
    print("| n | depth | candidates | splitter | classes | states | estimate MB | peak MB "
          "| estimate / peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for n, p, classes, params in grid:
        r = measure(n, p, classes, params)
        depth, candidates, splitter = describe(params)
        ratio = r["estimate"] / max(r["peak"], 1)
        ratios.append(ratio)
        print(f"| {n} | {depth} | {candidates} | {splitter} | {classes} | {r['states']} "
              f"| {r['estimate'] / 2**20:.1f} | {r['peak'] / 2**20:.1f} | {ratio:.2f} |",
              flush=True)
    print(f"\nestimate / peak from {min(ratios):.2f} to {max(ratios):.2f}")


if __name__ == "__main__":
    main()
