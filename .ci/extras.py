"""CI: every extra of pyproject.toml installs on its own and serves the feature it is for.

The wheel is built once (`pip wheel` reuses the build directory the `pip install` before it left),
then installed, alone and with each extra, into fresh virtual environments, in which a short
script uses what the extra is for. An extra that forgets a package its feature imports fails
here even when another extra (`test`, say) happens to bring it.

Usage: python .ci/extras.py [--reuse-build] [EXTRA ...]   ("core" is the wheel alone; default:
every extra, those of RESOLVED_ONLY resolved but not installed; an extra named is always installed
and used). --reuse-build, after `pip install .` in this checkout: the wheel must compile nothing.
The environments go to $DPDT_EXTRAS_PREFIX (default /tmp/dpdt-extras), never into this Python.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each environment must do, run by its own Python in an empty folder. Every check first
# makes sure that the installed wheel is the dpdt it imports.
PROLOGUE = """
import os, subprocess, sys
import numpy as np
import dpdt
assert dpdt.__file__.startswith(sys.prefix), dpdt.__file__

def dpdt_command(*args, expect=0):
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "dpdt"), *args],
                         capture_output=True, text=True)
    assert run.returncode == expect, (args, run.returncode, run.stdout, run.stderr)
    return run
"""

CHECKS = {
    # The wheel alone: the estimators, and each optional feature names the extra that brings it.
    "core": """
data = dpdt.datasets.load("bank")
clf = dpdt.DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
assert clf.score(data.X_test, data.y_test) > 0.8
for feature, extra in [("import dpdt.dask", "dask"), ("dpdt.plot_tree(clf)", "plot")]:
    try:
        exec(feature)
    except ImportError as error:
        assert f'dpdt[{extra}]' in str(error), error
    else:
        raise AssertionError(f"{feature} worked without the {extra} extra")
assert 'dpdt[cli]' in dpdt_command("fit", "--dataset", "bank", expect=2).stderr
""",
    "plot": """
import matplotlib
matplotlib.use("Agg")
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
clf = dpdt.DPDTreeClassifier(max_depth=2).fit(X, y)
dpdt.plot_tree(clf)
dpdt.plot_pareto(clf, X=X, y=y)
""",
    "cli": """
assert "states" in dpdt_command("fit", "--dataset", "bank").stdout   # README's first command
from sklearn.datasets import load_iris
frame = load_iris(as_frame=True).frame
frame.to_csv("iris.csv", index=False)
frame.to_parquet("iris.parquet")
for name in ("iris.csv", "iris.parquet"):
    dpdt_command("fit", name, "--target", "target", "--max-depth", "2", "--out", "model.json")
    predicted = dpdt_command("predict", "model.json", name).stdout
    assert len(predicted.splitlines()) == len(frame) + 1, predicted[:200]
""",
    "dask": """
from dpdt.dask import DaskDPDTreeClassifier
import dask.array as da
import dask.dataframe as dd
import distributed
import pandas as pd
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
local = dpdt.DPDTreeClassifier(max_depth=2, max_bins=16).fit(X, y)
cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                   dashboard_address=":0")
with cluster, distributed.Client(cluster) as client:
    for X_parts, y_parts in [(da.from_array(X, chunks=40), da.from_array(y, chunks=40)),
                             (dd.from_pandas(pd.DataFrame(X), npartitions=3),
                              dd.from_pandas(pd.Series(y), npartitions=3))]:
        clf = DaskDPDTreeClassifier(max_depth=2, max_bins=16, client=client).fit(X_parts, y_parts)
        assert (clf.to_local().predict(X) == local.predict(X)).all()
""",
    "progress": """
import tqdm
from dpdt._progress import _tqdm
assert _tqdm() is tqdm.tqdm
""",
    # The peers the benchmarks compare against.
    "bench": """
import lightgbm, pycontree, pydl85, pystreed, tqdm, xgboost
""",
    # The documentation site, built from this checkout's pages.
    "docs": f"""
subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--config-file",
                {str(ROOT / "mkdocs.yml")!r}, "--site-dir", os.path.abspath("site")], check=True)
assert os.path.isfile("site/api/index.html")
""",
}

# Extras checked elsewhere, and where.
ELSEWHERE = {
    "test": "installed by README's test command, which .ci/run runs on a fresh machine",
}

# Extras only resolved (pip install --dry-run) unless named on the command line. The benchmarks'
# peers install 1.4 GB (XGBoost brings NVIDIA's NCCL, pydl8.5 compiles from source and brings
# cvxpy) in about 3 minutes; resolving them takes under a minute.
RESOLVED_ONLY = {"bench"}


def _run(command, log, **kwargs):
    log.write(f"$ {' '.join(map(str, command))}\n")
    log.flush()
    subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=True, **kwargs)


def check(extra, wheel, prefix, resolve_only):
    """Install the wheel with `extra` into a fresh environment and run its check there.

    Return what was done ("installed and used", "resolved"), or None if it failed.
    """
    venv = prefix / extra
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    requirement = str(wheel) if extra == "core" else f"{wheel}[{extra}]"
    with open(prefix / f"{extra}.log", "w") as log, tempfile.TemporaryDirectory() as folder:
        try:
            _run([sys.executable, "-m", "venv", venv], log)
            pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet"]
            if resolve_only:
                _run([*pip, "--dry-run", requirement], log, env=env)
                return "resolved"
            _run([*pip, requirement], log, env=env)
            _run([venv / "bin" / "python", "-c", PROLOGUE + CHECKS[extra]], log, env=env,
                 cwd=folder)
            return "installed and used"
        except subprocess.CalledProcessError:
            return None


def _extras(wheel):
    """Return the extras the wheel declares (its METADATA's Provides-Extra)."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        lines = archive.read(metadata).decode().splitlines()
    return {line.split(":", 1)[1].strip() for line in lines if line.startswith("Provides-Extra:")}


def build_wheel(prefix, reuse_build):
    """Build the wheel into prefix/dist; with reuse_build, fail if that compiled anything."""
    start = time.perf_counter()
    with open(prefix / "wheel.log", "w") as log:
        try:
            _run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "-w",
                  prefix / "dist", ROOT], log)
        except subprocess.CalledProcessError:
            sys.exit(f"the wheel does not build:\n{(prefix / 'wheel.log').read_text()}")
    compiled = (prefix / "wheel.log").read_text().count("Building CXX object")
    (wheel,) = (prefix / "dist").glob("dpdt-*.whl")
    print(f"wheel built in {time.perf_counter() - start:.0f} s, {compiled} objects compiled: "
          f"{wheel.name}", flush=True)
    # Each `pip install .` builds in a new isolated environment; the build directory must still
    # serve the next one (README's second command recompiles nothing the first one built).
    if reuse_build and compiled:
        sys.exit(f"the wheel build recompiled {compiled} objects that `pip install` had just "
                 f"built: the build directory was not reused (see {prefix / 'wheel.log'})")
    return wheel


def main(argv):
    """Build the wheel, then check the extras named in argv (default: all) in parallel."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extras", nargs="*", metavar="EXTRA",
                        help=f"among {', '.join(CHECKS)}; default: all")
    parser.add_argument("--reuse-build", action="store_true",
                        help="this checkout was just built by pip install: the wheel must not "
                             "compile anything")
    args = parser.parse_args(argv)
    unknown = set(args.extras) - set(CHECKS)
    if unknown:
        parser.error(f"no check for {sorted(unknown)}")
    prefix = Path(os.environ.get("DPDT_EXTRAS_PREFIX", "/tmp/dpdt-extras"))
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    wheel = build_wheel(prefix, args.reuse_build)
    unchecked = _extras(wheel) - set(CHECKS) - set(ELSEWHERE)
    if unchecked:
        sys.exit(f"extras without a check in {__file__}: {sorted(unchecked)}")
    chosen = args.extras or list(CHECKS)

    def timed_check(extra):
        begin = time.perf_counter()
        done = check(extra, wheel, prefix, resolve_only=not args.extras and extra in RESOLVED_ONLY)
        return extra, done, time.perf_counter() - begin

    # Two at a time: installing is mostly waiting on the disk and the network.
    failed = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for extra, done, seconds in pool.map(timed_check, chosen):
            if done is None:
                failed.append(extra)
                print(f"{extra}: FAILED, its log follows", flush=True)
                print((prefix / f"{extra}.log").read_text(), flush=True)
            else:
                print(f"{extra}: {done} in {seconds:.0f} s", flush=True)
    for extra, where in ELSEWHERE.items():
        print(f"{extra}: {where}")
    if failed:
        sys.exit(f"extras that do not serve their feature on their own: {failed}")


if __name__ == "__main__":
    main(sys.argv[1:])
