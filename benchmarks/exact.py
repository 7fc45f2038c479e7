"""Exact solvers: dpdt's certified optimum against ConTree, STreeD and DL8.5, in the same run.

For every data set and depth, each solver fits the optimal classification tree of that depth
(the fewest training misclassifications, no regularisation, one thread) under the same time
limit per fit, and the table gives whether it certified its tree optimal within the limit, its
fit seconds and its training accuracy; dpdt's row adds the ratio of its time to the fastest
anchor that certified (issue 35's goal is a ratio below 1 everywhere). Every certified tree is
an optimum of the same problem, so certified training accuracies must agree: a mismatch is
printed loudly and fails a verdict, since it means a bug in a solver or in how it is called.

Solvers (the anchors are optional, ``pip install ".[bench]"``; a missing one is named and its
rows skipped, the rest still runs):

- dpdt: ``DPDTreeClassifier(max_depth=d, splitter="exhaustive", full_front=False, n_jobs=1,
  time_limit=...)``, certified when ``is_optimal_``; with ``--n-jobs N``, also on N threads
  (rows "dpdt n_jobs=N", their ratio to the same one-thread anchors).
- ConTree (``pycontree``; Briţa, van der Linden and Demirović, AAAI 2025): continuous features,
  ``complexity_cost=0``, ``max_gap=0``; certified unless it warns that the fit exceeded its
  time limit.
- STreeD (``pystreed``; van der Linden et al., NeurIPS 2023), the successor of MurTree:
  ``cost_complexity=0`` (its default 0.01 penalises leaves); certified when
  ``fit_result.is_optimal()``.
- DL8.5 (``pydl8.5``; Aglin, Nijssen and Schaus, AAAI 2020): certified unless ``timeout_``; its
  time limit is whole seconds (rounded up).

All four count depth as scikit-learn does (a stump has depth 1): on heart-cleveland at depths 1
to 3 each returned a tree of that depth and the same training accuracy, and every run checks the
agreement again.

Data: the bundled continuous sets (``dpdt.datasets.list_datasets("classification")``, depths 3
and 4), where dpdt and ConTree run; STreeD and DL8.5 take binary features only (pystreed would
binarise continuous features into a few quantile thresholds, which is a different problem, and
DL8.5 reads its features as 0/1 items), so they are skipped there rather than binarised. And the
CP4IM binary sets of issue 35's table (``data/binary``, depths 4 and 5), their standard encoding
for STreeD, MurTree and DL8.5, where dpdt, STreeD and DL8.5 run (a 0/1 column is a continuous
feature too, but ConTree is not the standard anchor there and is skipped).

Each anchor fits in a forked child process, killed ``GRACE`` seconds after its own time limit,
so that a solver that overruns or crashes costs one row, not the run. dpdt fits in this process.
Every solver is first fitted once, untimed, on a few rows (imports and first-call costs).

Run ``python benchmarks/exact.py [--time-limit S] [--datasets bank anneal ...] [--depths 3 4]
[--n-jobs 2]``.
Prints a markdown table and one line per target; timings are reported, never asserted.
"""

import argparse
import contextlib
import functools
import importlib.util
import io
import math
import multiprocessing
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import dpdt
from _common import progress, verdict
from dpdt import DPDTreeClassifier
from table1 import binary_names, load_binary

# The CP4IM sets of issue 35's table.
BINARY_SETS = ("anneal", "heart-cleveland", "hypothyroid", "kr-vs-kp", "australian-credit",
               "diabetes")
DEPTHS = {"continuous": (3, 4), "binary": (4, 5)}
TIME_LIMIT = 60.0
# Seconds an anchor's child process gets beyond its own time limit before it is killed.
GRACE = 30.0


@dataclass(frozen=True)
class Solver:
    """One exact solver of the table.

    ``make(depth, time_limit)`` returns the unfitted estimator; ``certified(model, caught)``
    says whether the fitted ``model`` proved its tree optimal, ``caught`` being the warnings
    its fit raised. ``kinds`` are the data kinds it runs on; ``binary_input`` gives it ``X``
    as 0/1 integers instead of floats; ``isolate`` fits it in a child process.
    """

    name: str
    package: str
    module: str
    kinds: tuple
    make: Callable
    certified: Callable
    binary_input: bool = False
    isolate: bool = True


def _make_dpdt(depth, time_limit, n_jobs=1):
    return DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False,
                             time_limit=time_limit, n_jobs=n_jobs)


def _make_contree(depth, time_limit):
    from pycontree import ConTree

    return ConTree(max_depth=depth, complexity_cost=0.0, max_gap=0, time_limit=time_limit)


def _make_streed(depth, time_limit):
    from pystreed import STreeDClassifier

    return STreeDClassifier(max_depth=depth, cost_complexity=0.0, time_limit=time_limit)


def _make_dl85(depth, time_limit):
    from pydl85 import DL85Classifier

    # A time limit of 0 means none.
    return DL85Classifier(max_depth=depth, time_limit=max(1, math.ceil(time_limit)))


def _contree_certified(model, caught):
    return not any("exceeds time limit" in str(w.message) for w in caught)


def dpdt_solver(n_jobs=1):
    """Return dpdt's solver on ``n_jobs`` threads (named ``dpdt`` on one)."""
    return Solver("dpdt" if n_jobs == 1 else f"dpdt n_jobs={n_jobs}", "dpdt", "dpdt",
                  ("continuous", "binary"), functools.partial(_make_dpdt, n_jobs=n_jobs),
                  lambda model, caught: bool(model.is_optimal_), isolate=False)


DPDT = dpdt_solver()
ANCHORS = (
    Solver("ConTree", "pycontree", "pycontree", ("continuous",), _make_contree,
           _contree_certified),
    Solver("STreeD", "pystreed", "pystreed", ("binary",), _make_streed,
           lambda model, caught: bool(model.fit_result.is_optimal()), binary_input=True),
    Solver("DL8.5", "pydl8.5", "pydl85", ("binary",), _make_dl85,
           lambda model, caught: model.tree_ is not None and not model.timeout_,
           binary_input=True),
)


def available(solver):
    """Return True when the solver's package can be imported."""
    return importlib.util.find_spec(solver.module) is not None


def continuous_names():
    """Return the names of the bundled continuous classification sets."""
    return list(dpdt.datasets.list_datasets("classification"))


def load(name):
    """Return ``(X, y, kind)``: a bundled continuous set's training split, or a binary set."""
    if name in continuous_names():
        data = dpdt.datasets.load(name)
        return data["X_train"], data["y_train"], "continuous"
    X, y = load_binary(name)
    return X, y, "binary"


def fit_solver(solver, X, y, depth, time_limit):
    """Fit one solver quietly and return what the table reports.

    Returns
    -------
    result : dict
        ``certified`` (bool), fit ``seconds``, training ``errors`` (misclassified samples) and
        ``accuracy``.
    """
    X = X.astype(np.int32) if solver.binary_input else np.asarray(X, dtype=np.float64)
    model = solver.make(depth, time_limit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        errors = int(np.sum(np.asarray(model.predict(X)).ravel() != y))
    return dict(certified=bool(solver.certified(model, caught)), seconds=seconds, errors=errors,
                accuracy=1.0 - errors / len(y))


def _child(solver, X, y, depth, time_limit, pipe):
    # The anchors print from C++: silence this process's stdout and stderr.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        result = fit_solver(solver, X, y, depth, time_limit)
    except Exception as error:  # reported in the table, never fatal to the run
        result = dict(error=f"{type(error).__name__}: {error}")
    pipe.send(result)


def fit_isolated(solver, X, y, depth, time_limit, grace=GRACE):
    """Run :func:`fit_solver` in a forked child, killed ``grace`` s after the time limit.

    Returns
    -------
    result : dict
        As :func:`fit_solver`, or ``{"error": ...}`` when the fit raised, crashed or was
        killed.
    """
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(solver, X, y, depth, time_limit, send))
    child.start()
    send.close()
    result = None
    answered = receive.poll(time_limit + grace)
    if answered:
        with contextlib.suppress(EOFError):  # the child died without a word
            result = receive.recv()
    # A child that answered, or closed its end by dying, is exiting: it gets the grace to be done
    # (it can still be alive a moment after its pipe closed).
    child.join(grace if answered else 0)
    killed = child.is_alive()
    if killed:
        child.kill()
        child.join()
    if result is None:
        result = dict(error=f"killed after {time_limit + grace:g} s" if killed
                      else f"crashed (exit status {child.exitcode})")
    return result


def warm_up(solvers):
    """Fit every solver once, untimed, on a few rows of a small set."""
    X, y, _ = load("bank")
    X = (X[:60] > 0.5).astype(np.float64)  # 0/1, so that every solver takes it
    for solver in solvers:
        with contextlib.redirect_stdout(io.StringIO()):
            fit_solver(solver, X, y[:60], 1, TIME_LIMIT)


def run(cells, solvers, time_limit, on_cell=None):
    """Fit every solver that takes its data on every cell.

    Parameters
    ----------
    cells : list of (str, int)
        ``(data set, depth)`` pairs.
    solvers : list of Solver
        Anchors first, dpdt last: each cell's rows come in this order.
    time_limit : float
        Seconds per fit.
    on_cell : callable or None, default=None
        Called with each cell's rows as soon as the cell is done.

    Returns
    -------
    rows : list of dict
        One per (cell, solver that takes the cell's data): ``data``, ``kind``, ``n``,
        ``depth``, ``solver``, and the keys of :func:`fit_solver` or ``error``.
    """
    rows = []
    for name, depth in progress(cells, "exact"):
        X, y, kind = load(name)
        cell = []
        for solver in solvers:
            if kind not in solver.kinds:
                continue
            if solver.isolate:
                result = fit_isolated(solver, X, y, depth, time_limit)
            else:
                try:
                    result = fit_solver(solver, X, y, depth, time_limit)
                except Exception as error:  # a row of the table, like an anchor's failure
                    result = dict(error=f"{type(error).__name__}: {error}")
            cell.append(dict(data=name, kind=kind, n=len(y), depth=depth, solver=solver.name,
                             **result))
        rows += cell
        if on_cell is not None:
            on_cell(cell)
    return rows


def mismatch(cell):
    """Return the cell's certified solvers with their error counts when they disagree, else ""."""
    certified = [r for r in cell if r.get("certified")]
    if len({r["errors"] for r in certified}) <= 1:
        return ""
    return ", ".join(f"{r['solver']} {r['errors']} errors ({r['accuracy']:.4f})"
                     for r in certified)


def is_ours(row):
    """Return True for a row of dpdt (on any number of threads)."""
    return row["solver"].split()[0] == DPDT.name


def fastest_anchor(cell, name=DPDT.name):
    """Return the row of the cell's fastest certified anchor, or None."""
    anchors = [r for r in cell if not is_ours(r) and r.get("certified")]
    return min(anchors, key=lambda r: r["seconds"], default=None)


def ratio(cell, time_limit, name=DPDT.name):
    """Return dpdt's time over the fastest certified anchor's, and the text the table prints.

    Returns
    -------
    value : float or None
        None when dpdt did not run or certify, or no anchor certified.
    text : str
        ``"3.5x (ConTree)"``, or why there is no ratio.
    """
    ours = next((r for r in cell if r["solver"] == name), None)
    fastest = fastest_anchor(cell, name)
    if ours is None:
        return None, "-"
    if not ours.get("certified"):
        return None, f"not certified in {time_limit:g} s"
    if fastest is None:
        return None, "no certified anchor"
    value = ours["seconds"] / fastest["seconds"]
    return value, f"{value:.1f}x ({fastest['solver']})"


HEADER = ("| data | depth | solver | certified | seconds | train accuracy "
          "| dpdt / fastest certified anchor |")


def cell_lines(cell, time_limit, name=DPDT.name):
    """Return the table rows of one cell, and a loud line when certified accuracies differ."""
    lines = []
    for r in cell:
        if "error" in r:
            lines.append(f"| {r['data']} | {r['depth']} | {r['solver']} | failed: {r['error']} "
                         f"| - | - | - |")
            continue
        lines.append(f"| {r['data']} | {r['depth']} | {r['solver']} "
                     f"| {'yes' if r['certified'] else 'no'} | {r['seconds']:.3f} "
                     f"| {r['accuracy']:.4f} "
                     f"| {ratio(cell, time_limit, r['solver'])[1] if is_ours(r) else ''} |")
    bad = mismatch(cell)
    if bad:
        lines.append(f"\n**MISMATCH on {cell[0]['data']} depth {cell[0]['depth']}: certified "
                     f"training accuracies differ ({bad}); a solver or its call is wrong.**\n")
    return lines


def summarise(rows, time_limit, name=DPDT.name):
    """Return one line per target, each ending in PASS or FAIL with the offenders."""
    cells = {}
    for r in rows:
        cells.setdefault((r["data"], r["depth"]), []).append(r)
    lines = []
    bad = [f"{data} depth {depth}: {mismatch(cell)}" for (data, depth), cell in cells.items()
           if mismatch(cell)]
    lines.append("certified solvers agree on the training accuracy in every cell: "
                 + verdict(not bad, bad))
    anchored = {key: cell for key, cell in cells.items() if fastest_anchor(cell, name)}
    bad = [f"{data} depth {depth}" for (data, depth), cell in anchored.items()
           if not any(r["solver"] == name and r.get("certified") for r in cell)]
    lines.append(f"{name} certifies every cell an anchor certifies ({len(anchored)} cells): "
                 + verdict(not bad, bad))
    slow = []
    for (data, depth), cell in anchored.items():
        value, text = ratio(cell, time_limit, name)
        if value is None or value >= 1:
            slow.append(f"{data} depth {depth} {text}")
    lines.append(f"{name} faster than the fastest certified anchor in each of those cells: "
                 + verdict(not slow, slow))
    return lines


def main(argv=None):
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        Command-line arguments; None reads ``sys.argv``.

    Returns
    -------
    status : int
        Always 0: targets are reported, not enforced.
    """
    continuous = continuous_names()
    names = continuous + [n for n in binary_names() if n not in continuous]
    default = continuous + list(BINARY_SETS)
    parser = argparse.ArgumentParser(
        prog="exact", description="dpdt's exact solver against ConTree, STreeD and DL8.5.")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                        help=f"seconds per fit, every solver alike (default: {TIME_LIMIT:g})")
    parser.add_argument("--datasets", nargs="+", choices=names, default=default,
                        metavar="NAME",
                        help=f"data sets (default: {', '.join(default)}; also: the other "
                             f"binary sets of data/binary)")
    parser.add_argument("--depths", nargs="+", type=int, metavar="D",
                        help="depths for every data set (default: 3 4 on continuous sets, "
                             "4 5 on binary ones)")
    parser.add_argument("--n-jobs", type=int, metavar="N",
                        help="also time dpdt on N threads, in rows of their own (the anchors "
                             "run on one)")
    args = parser.parse_args(argv)
    if args.time_limit <= 0:
        parser.error("--time-limit must be positive")
    if args.depths is not None and min(args.depths) < 1:
        parser.error("--depths must be >= 1")
    if args.n_jobs is not None and args.n_jobs < 2:
        parser.error("--n-jobs must be >= 2 (one thread is always timed)")

    anchors = [a for a in ANCHORS if available(a)]
    missing = [a for a in ANCHORS if not available(a)]
    threaded = [dpdt_solver(args.n_jobs)] if args.n_jobs else []
    solvers = [*anchors, DPDT, *threaded]
    kinds = {name: "continuous" if name in continuous else "binary" for name in args.datasets}
    cells = [(name, depth) for name in args.datasets
             for depth in (args.depths or DEPTHS[kinds[name]])]
    versions = ", ".join(f"{s.name} {_version(s.package)}" for s in solvers)
    print(f"One thread each (unless named), time limit {args.time_limit:g} s per fit; {versions}. "
          "Objective: training misclassifications, no regularisation.")
    if missing:
        print("Missing anchors, their rows skipped: "
              + ", ".join(f"{a.name} (pip install {a.package})" for a in missing) + ".")
    print()
    print(HEADER)
    print("|---" * (HEADER.count("|") - 1) + "|")
    warm_up(solvers)
    rows = run(cells, solvers, args.time_limit,
               on_cell=lambda cell: print("\n".join(cell_lines(cell, args.time_limit)),
                                          flush=True))
    print()
    for line in summarise(rows, args.time_limit):
        print(f"- {line}")
    for solver in threaded:
        print(f"- {summarise(rows, args.time_limit, solver.name)[2]}")
    if missing:
        print(f"- anchors not run: {', '.join(a.name for a in missing)}")
    return 0


def _version(package):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return getattr(dpdt, "__version__", "?") if package == "dpdt" else "?"


if __name__ == "__main__":
    raise SystemExit(main())
