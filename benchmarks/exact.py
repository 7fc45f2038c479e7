"""Exact solvers: dpdt's certified optimum against ConTree, STreeD and DL8.5, in the same run.

For every data set and depth, each solver fits the optimal classification tree of that depth
(the fewest training misclassifications, no regularisation, one thread) under the same time
limit per fit, and the table gives whether it certified its tree optimal within the limit, its
fit seconds, its peak memory and its training accuracy; dpdt's row adds the ratios of its time
and of its peak memory to the fastest anchor that certified (or, when none did, its memory to
the first anchor that ran). Every certified tree is an optimum of the same problem, so
certified training accuracies must agree: a mismatch is printed loudly and fails a verdict,
since it means a bug in a solver or in how it is called.

Solvers (the anchors are optional, ``pip install ".[bench]"``; a missing one is named and its
rows skipped, the rest still runs):

- dpdt: ``DPDTreeClassifier(max_depth=d, splitter="exhaustive", full_front=False, n_jobs=1,
  time_limit=...)``, certified when ``is_optimal_``; with ``--n-jobs N``, also on N threads
  (rows "dpdt n_jobs=N", their ratio to the same one-thread anchors). Not certified, its row
  gives what its ``lower_bound_`` proves: the best training accuracy any tree of that depth
  can reach, and the gap to its own tree in points (hundredths) of accuracy.
- ConTree (``pycontree``; Briţa, van der Linden and Demirović, AAAI 2025): continuous features,
  ``complexity_cost=0``, ``max_gap=0``; certified unless it warns that the fit exceeded its
  time limit.
- STreeD (``pystreed``; van der Linden et al., NeurIPS 2023), the successor of MurTree:
  ``cost_complexity=0`` (its default 0.01 penalises leaves); certified when
  ``fit_result.is_optimal()``.
- DL8.5 (``pydl8.5``; Aglin, Nijssen and Schaus, AAAI 2020): certified unless ``timeout_``; its
  time limit is whole seconds (rounded up).
- DPDT default: ``DPDTreeClassifier(max_depth=d, n_jobs=1)``, fitted only in the cells where
  some solver stopped at its limit, so that a stopped dpdt tree can be checked against the
  heuristic tree a user gets by default.

All four exact solvers count depth as scikit-learn does (a stump has depth 1): on
heart-cleveland at depths 1 to 3 each returned a tree of that depth and the same training
accuracy, and every run checks the agreement again.

Data: the bundled continuous sets (``dpdt.datasets.list_datasets("classification")``, their
training splits, depths 3 and 4), where dpdt and ConTree run; STreeD and DL8.5 take binary
features only (pystreed would binarise continuous features into a few quantile thresholds,
which is a different problem, and DL8.5 reads its features as 0/1 items), so they are skipped
there rather than binarised. The CP4IM binary sets of issue 35's table (``data/binary``, depths
4 and 5), their standard encoding for STreeD, MurTree and DL8.5, where dpdt, STreeD and DL8.5
run (a 0/1 column is a continuous feature too, but ConTree is not the standard anchor there and
is skipped). With ``--data [DIR]`` (by default ``shared/datasets/wide`` beside the checkout, as
``wide.py`` reads it), the classification sets of the wide corpus of at most ``WIDE_MAX_ROWS``
training rows, at depth 3, where dpdt and ConTree run as on the continuous sets. They are read
by ``wide.py``'s loader and fitted on their training split, as every other set here and as
``wide.py`` fits them (the test split stays unseen by every benchmark; an exact solver's
objective is the training loss). Features as given: the categorical codes are ordinal numbers.
ConTree rejects NaN, so a missing value is replaced, for every solver alike, by one less than
the least observed value of its feature: missing stays a value of its own that one threshold
can separate from the rest, and every solver fits the same matrix. With ``--heldout`` (and
the corpus of ``--data``), the run is instead a check on data the exact solver was never
measured or tuned on: the corpus's other sets of at most ``WIDE_MAX_ROWS`` training rows, made
classification problems, at depth 3. A regression set's label says whether its target is above
the training split's median (``NAME>median``); a causal set's label is its treatment, predicted
from its covariates (``NAME:treatment``; several arms are several classes).

Each fit runs in a forked child process, killed ``GRACE`` seconds after its own time limit or
as soon as its resident memory passes ``MEMORY_CAP_MB``, so that a solver that overruns,
crashes or swells costs one row, not the run (or the machine). Peak memory is the child's
high-water resident set (``VmHWM`` of ``/proc/<pid>/status``, read by the child when its fit
ends and sampled by the parent while it runs, so a killed child has one too) minus that of an
idle child forked at the same point, which holds the same modules and data: the fit's own
memory, the data's copy into the solver's layout included. Every solver is first fitted once,
untimed, in the parent process on a few rows (imports and first-call costs), before any child
is forked.

Run ``python benchmarks/exact.py [--time-limit S] [--datasets bank anneal ...] [--depths 3 4]
[--n-jobs 2] [--data [DIR]] [--heldout] [--json OUT]``.
Prints a markdown table and one line per target; timings are reported, never asserted (compare
ratios, which the machine's load affects alike, rather than seconds across runs).
"""

import argparse
import contextlib
import functools
import gc
import importlib.util
import io
import json
import math
import multiprocessing
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import dpdt
import wide
from _common import progress, verdict
from dpdt import DPDTreeClassifier
from table1 import binary_names, load_binary

# The CP4IM sets of issue 35's table.
BINARY_SETS = ("anneal", "heart-cleveland", "hypothyroid", "kr-vs-kp", "australian-credit",
               "diabetes")
DEPTHS = {"continuous": (3, 4), "binary": (4, 5), "wide": (3,)}
TIME_LIMIT = 60.0
# Seconds a child process gets beyond its own time limit before it is killed.
GRACE = 30.0
# Resident memory at which a child is killed: 30 times ConTree's largest peak seen here, and
# far below the machine's memory, which other jobs share.
MEMORY_CAP_MB = 6144
# Seconds between two reads of a running child's memory.
SAMPLE_SECONDS = 0.2
# The wide corpus's classification sets up to this many training rows.
WIDE_MAX_ROWS = 50_000


@dataclass(frozen=True)
class Solver:
    """One solver of the table.

    ``make(depth, time_limit)`` returns the unfitted estimator; ``certified(model, caught)``
    says whether the fitted ``model`` proved its tree optimal, ``caught`` being the warnings
    its fit raised. ``kinds`` are the data kinds it runs on; ``binary_input`` gives it ``X``
    as 0/1 integers instead of floats; ``report(model)``, when given, returns more of the fit
    to keep in its row.
    """

    name: str
    package: str
    module: str
    kinds: tuple
    make: Callable
    certified: Callable
    binary_input: bool = False
    report: Callable = None


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


def _plain(value):
    """Return ``value`` as JSON can hold it (numpy scalars as Python numbers)."""
    return value.item() if isinstance(value, np.generic) else value


def _dpdt_report(model):
    # The objective is the training error rate (alpha = 0): 1 - lower_bound_ bounds every
    # tree's training accuracy.
    return dict(lower_bound=float(model.lower_bound_),
                stats={key: _plain(value) for key, value in model.stats_.items()})


def dpdt_solver(n_jobs=1):
    """Return dpdt's solver on ``n_jobs`` threads (named ``dpdt`` on one)."""
    return Solver("dpdt" if n_jobs == 1 else f"dpdt n_jobs={n_jobs}", "dpdt", "dpdt",
                  ("continuous", "binary", "wide"), functools.partial(_make_dpdt, n_jobs=n_jobs),
                  lambda model, caught: bool(model.is_optimal_), report=_dpdt_report)


DPDT = dpdt_solver()
DEFAULT = Solver("DPDT default", "dpdt", "dpdt", ("continuous", "binary", "wide"),
                 lambda depth, time_limit: DPDTreeClassifier(max_depth=depth, n_jobs=1),
                 lambda model, caught: False)
ANCHORS = (
    Solver("ConTree", "pycontree", "pycontree", ("continuous", "wide"), _make_contree,
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


# The wide corpus's sets that add_wide read, by name.
_WIDE = {}


def without_nan(X):
    """Return ``X`` with each feature's NaN replaced by one less than its least observed value.

    ConTree rejects NaN; this keeps "missing" a value of its own, below every other, that one
    threshold separates (a feature missing everywhere becomes 0).
    """
    X = np.array(X, dtype=np.float64)
    missing = np.isnan(X)
    if missing.any():
        for j in np.flatnonzero(missing.any(axis=0)):
            seen = X[~missing[:, j], j]
            X[missing[:, j], j] = seen.min() - 1.0 if len(seen) else 0.0
    return X


def add_wide(data_dir, max_rows=None):
    """Read the wide corpus's classification sets of at most ``max_rows`` training rows
    (None: ``WIDE_MAX_ROWS``).

    Returns
    -------
    names : list of str
        The sets read, in the order of their names; :func:`load` then loads them.
    skipped : list of str
        The classification sets of more training rows.
    """
    sets, skipped = wide.load(data_dir, max_rows=WIDE_MAX_ROWS if max_rows is None else max_rows)
    skipped = [name for name in skipped if str(np.load(Path(data_dir) / f"{name}.npz")["task"])
               == "classification"]
    names = []
    for data in sets:
        if data.kind == "classification":
            _WIDE[data.name] = data
            names.append(data.name)
    return names, skipped


def add_heldout(data_dir, max_rows=None):
    """Read the wide corpus's regression and causal sets of at most ``max_rows`` training rows
    (None: ``WIDE_MAX_ROWS``) as the classification problems of ``--heldout`` (see the
    module's docstring).

    Returns
    -------
    names : list of str
        The problems read, in the order of their sets' names; :func:`load` then loads them.
    """
    max_rows = WIDE_MAX_ROWS if max_rows is None else max_rows
    names = []
    for path in sorted(Path(data_dir).glob("*.npz")):
        data = np.load(path, allow_pickle=False)
        task = str(data["task"])
        if task == "classification" or len(data["X_train"]) > max_rows:
            continue
        if task == "causal":
            name, y = f"{path.stem}:treatment", np.asarray(data["t_train"]).astype(np.int64)
        else:
            target = np.asarray(data["y_train"], dtype=np.float64)
            name = f"{path.stem}>median"
            y = (target > np.median(target)).astype(np.int64)
        _WIDE[name] = SimpleNamespace(X_train=data["X_train"], y_train=y)
        names.append(name)
    return names


def load(name):
    """Return ``(X, y, kind)``: a set's training split (a wide set's without NaN, see
    :func:`without_nan`), or a binary set."""
    if name in _WIDE:
        return without_nan(_WIDE[name].X_train), _WIDE[name].y_train, "wide"
    if name in continuous_names():
        data = dpdt.datasets.load(name)
        return data["X_train"], data["y_train"], "continuous"
    X, y = load_binary(name)
    return X, y, "binary"


def describe(X, y):
    """Return what sizes an exact search: rows, features, classes, distinct values per feature."""
    distinct = [len(np.unique(column)) for column in np.asarray(X).T]
    return dict(n=len(y), p=X.shape[1], classes=len(np.unique(y)),
                distinct_max=max(distinct), distinct_median=float(np.median(distinct)),
                thresholds=int(sum(d - 1 for d in distinct)))


def fit_solver(solver, X, y, depth, time_limit):
    """Fit one solver quietly and return what the table reports.

    Returns
    -------
    result : dict
        ``certified`` (bool), fit ``seconds``, training ``errors`` (misclassified samples) and
        ``accuracy``, and what ``solver.report`` adds.
    """
    X = X.astype(np.int32) if solver.binary_input else np.asarray(X, dtype=np.float64)
    model = solver.make(depth, time_limit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        errors = int(np.sum(np.asarray(model.predict(X)).ravel() != y))
    result = dict(certified=bool(solver.certified(model, caught)), seconds=seconds,
                  errors=errors, accuracy=1.0 - errors / len(y))
    if solver.report is not None:
        result.update(solver.report(model))
    return result


def _high_water_kb(pid="self"):
    """Return a process's peak resident memory (VmHWM, kB), or 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _child(work, pipe):
    # The anchors print from C++: silence this process's stdout and stderr.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        result = work()
    except Exception as error:  # reported in the table, never fatal to the run
        result = dict(error=f"{type(error).__name__}: {error}")
    result["peak_kb"] = _high_water_kb()
    pipe.send(result)


def isolated(work, timeout, grace=GRACE, memory_cap_mb=MEMORY_CAP_MB):
    """Run ``work()`` in a forked child, killed ``grace`` s after ``timeout`` or at the cap.

    Returns
    -------
    result : dict
        What ``work`` returned, or ``{"error": ...}`` when it raised, crashed or was killed;
        ``peak_kb`` too, the child's peak resident memory in kB.
    """
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, send))
    # The child's collector would walk every object it inherits, copying each page it touches
    # (tens of milliseconds and megabytes that a fit in a user's process does not pay): frozen,
    # it walks only the objects the fit makes.
    gc.freeze()
    try:
        child.start()
    finally:
        gc.unfreeze()
    send.close()
    result, peak, swollen = None, 0, False
    deadline = time.monotonic() + timeout + grace
    answered = False
    while not answered and time.monotonic() < deadline:
        answered = receive.poll(SAMPLE_SECONDS)
        peak = max(peak, _high_water_kb(child.pid))
        if peak > memory_cap_mb * 1024:
            swollen = True
            break
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
        result = dict(error=f"killed at {memory_cap_mb} MB of resident memory" if swollen
                      else f"killed after {timeout + grace:g} s" if killed
                      else f"crashed (exit status {child.exitcode})")
    result["peak_kb"] = max(peak, result.get("peak_kb", 0))
    return result


def fit_isolated(solver, X, y, depth, time_limit, grace=GRACE, baseline_kb=0):
    """Run :func:`fit_solver` in a forked child (see :func:`isolated`).

    Returns
    -------
    result : dict
        As :func:`fit_solver`, or ``{"error": ...}`` when the fit raised, crashed or was
        killed; and ``peak_mb``, the child's peak resident memory less ``baseline_kb``, in MB.
    """
    result = isolated(functools.partial(fit_solver, solver, X, y, depth, time_limit),
                      time_limit, grace)
    result["peak_mb"] = (result.pop("peak_kb") - baseline_kb) / 1024
    return result


def baseline_kb():
    """Return the peak resident memory (kB) of a child forked now that does nothing."""
    return isolated(dict, 0.0)["peak_kb"]


def warm_up(solvers):
    """Fit every solver once, untimed, on a few rows of a small set."""
    X, y, _ = load("bank")
    X = (X[:60] > 0.5).astype(np.float64)  # 0/1, so that every solver takes it
    for solver in solvers:
        with contextlib.redirect_stdout(io.StringIO()):
            fit_solver(solver, X, y[:60], 1, TIME_LIMIT)


def run(cells, solvers, time_limit, on_cell=None, default=DEFAULT):
    """Fit every solver that takes its data on every cell, one fit at a time.

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
    default : Solver or None, default=DEFAULT
        Fitted last in the cells where a solver did not certify (None: never).

    Returns
    -------
    rows : list of dict
        One per (cell, solver that takes the cell's data): ``data``, ``kind``, the keys of
        :func:`describe`, ``depth``, ``solver``, and the keys of :func:`fit_isolated`.
    """
    rows = []
    for name, depth in progress(cells, "exact"):
        X, y, kind = load(name)
        about = describe(X, y)
        idle = baseline_kb()
        cell = []
        for solver in solvers + [default]:
            if solver is None or kind not in solver.kinds:
                continue
            if solver is default and all(r.get("certified") for r in cell):
                continue
            result = fit_isolated(solver, X, y, depth, time_limit, baseline_kb=idle)
            cell.append(dict(data=name, kind=kind, **about, depth=depth, solver=solver.name,
                             time_limit=time_limit, baseline_mb=idle / 1024, **result))
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
    """Return True for a row of dpdt's exact solver (on any number of threads)."""
    return row["solver"].split()[0] == DPDT.name


def is_anchor(row):
    """Return True for a row of an anchor (neither dpdt's exact solver nor its default)."""
    return not is_ours(row) and row["solver"] != DEFAULT.name


def fastest_anchor(cell, name=DPDT.name):
    """Return the row of the cell's fastest certified anchor, or None."""
    anchors = [r for r in cell if is_anchor(r) and r.get("certified")]
    return min(anchors, key=lambda r: r["seconds"], default=None)


def reference_anchor(cell):
    """Return the anchor dpdt's memory is compared with: the fastest certified one, else the
    first that ran; or None."""
    ran = [r for r in cell if is_anchor(r) and "error" not in r]
    return fastest_anchor(cell) or (ran[0] if ran else None)


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


def memory_ratio(cell, name=DPDT.name, whole=False):
    """Return dpdt's peak memory over the reference anchor's (see :func:`reference_anchor`),
    and its text; ``(None, "-")`` without both.

    The fit's own memory (at least 1 MB each, against noise), or with ``whole`` the process's:
    the fit's own plus the idle child's, as the memory of a process that imported the solver,
    loaded the data and fitted is measured.
    """
    ours = next((r for r in cell if r["solver"] == name), None)
    anchor = reference_anchor(cell)
    if ours is None or anchor is None or ours.get("peak_mb") is None:
        return None, "-"
    if whole:
        value = ((ours["peak_mb"] + ours.get("baseline_mb", 0.0))
                 / (anchor["peak_mb"] + anchor.get("baseline_mb", 0.0)))
        return value, f"{value:.2f}x ({anchor['solver']})"
    value = ours["peak_mb"] / max(anchor["peak_mb"], 1.0)
    return value, f"{value:.1f}x ({anchor['solver']})"


def bound_text(row):
    """Return what a stopped dpdt fit proved: the best training accuracy any tree can reach."""
    bound = row.get("lower_bound")
    if row.get("certified") or bound is None:
        return ""
    if not math.isfinite(bound):
        return "no bound (NaN)"
    best = 1.0 - bound
    return f"<= {best:.4f} (gap {100 * (best - row['accuracy']):.2f} pts)"


HEADER = ("| data | depth | rows x features | solver | certified | seconds | peak MB "
          "| train accuracy | best accuracy proven possible | dpdt / anchor: time | memory |")


def cell_lines(cell, time_limit, name=DPDT.name):
    """Return the table rows of one cell, and a loud line when certified accuracies differ."""
    lines = []
    for r in cell:
        size = f"{r['n']} x {r['p']}" if "p" in r else str(r.get("n", "-"))
        head = f"| {r['data']} | {r['depth']} | {size} | {r['solver']} "
        peak = f"{r['peak_mb']:.0f}" if r.get("peak_mb") is not None else "-"
        if "error" in r:
            lines.append(head + f"| failed: {r['error']} | - | {peak} | - | - | - | - |")
            continue
        ours = is_ours(r)
        certified = ("yes" if r["certified"] else "no") if r["solver"] != DEFAULT.name \
            else "heuristic"
        lines.append(head + f"| {certified} | {r['seconds']:.3f} | {peak} "
                     f"| {r['accuracy']:.4f} | {bound_text(r)} "
                     f"| {ratio(cell, time_limit, r['solver'])[1] if ours else ''} "
                     f"| {memory_ratio(cell, r['solver'])[1] if ours else ''} |")
    bad = mismatch(cell)
    if bad:
        lines.append(f"\n**MISMATCH on {cell[0]['data']} depth {cell[0]['depth']}: certified "
                     f"training accuracies differ ({bad}); a solver or its call is wrong.**\n")
    return lines


def stopped_shortfalls(cell, name=DPDT.name):
    """Return what a dpdt fit stopped by its limit lacks, as text, or "" when it lacks nothing.

    Stopped, its tree must be at least as accurate as DPDT's default tree and as every anchor's
    tree stopped at the same limit, not claim optimality, and carry a finite lower bound that
    proves something (above 0 when its tree errs).
    """
    ours = next((r for r in cell if r["solver"] == name), None)
    if ours is None or ours.get("certified"):
        return ""
    if "error" in ours:
        return ours["error"]
    lacks = []
    bound = ours.get("lower_bound")
    if bound is None or not math.isfinite(bound):
        lacks.append("no finite lower bound")
    elif bound <= 0 < 1.0 - ours["accuracy"]:
        lacks.append("lower bound 0, nothing proven")
    elif 1.0 - bound < ours["accuracy"] - 1e-12:
        lacks.append(f"bound {1 - bound:.4f} below its own tree")
    for r in cell:
        if (r["solver"] == DEFAULT.name or (is_anchor(r) and not r.get("certified"))) \
                and "error" not in r and r["accuracy"] > ours["accuracy"] + 1e-12:
            lacks.append(f"{r['accuracy']:.4f} by {r['solver']} against {ours['accuracy']:.4f}")
    return "; ".join(lacks)


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
        if value is not None and value > 1:
            slow.append(f"{data} depth {depth} {text}")
    lines.append(f"{name} certified no slower than the fastest certified anchor in each of "
                 "those it certified: " + verdict(not slow, slow))
    heavy, process = [], []
    for (data, depth), cell in cells.items():
        value, text = memory_ratio(cell, name)
        ours = next((r for r in cell if r["solver"] == name), None)
        if value is not None and value > 2:
            heavy.append(f"{data} depth {depth} {ours['peak_mb']:.0f} MB, {text}")
        value, text = memory_ratio(cell, name, whole=True)
        if value is not None and value > 2:
            process.append(f"{data} depth {depth} {text}")
    lines.append(f"{name}'s peak memory, the fit's own, within 2x of the anchor's in every "
                 "cell: " + verdict(not heavy, heavy))
    lines.append(f"{name}'s process's peak memory (the fit's own and an idle child's, as a user "
                 "measures a process) within 2x of the anchor's in every cell: "
                 + verdict(not process, process))
    stopped = {key: cell for key, cell in cells.items()
               if any(r["solver"] == name and not r.get("certified") for r in cell)}
    short = [f"{data} depth {depth}: {stopped_shortfalls(cell, name)}"
             for (data, depth), cell in stopped.items() if stopped_shortfalls(cell, name)]
    lines.append(f"{name} stopped by its limit ({len(stopped)} cells) returns a tree at least as "
                 "accurate as DPDT's default and as each anchor stopped at the same limit, with a "
                 "finite lower bound above 0: " + verdict(not short, short))
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
    parser.add_argument("--datasets", nargs="+", default=default, metavar="NAME",
                        help=f"data sets (default: {', '.join(default)}; also: the other "
                             f"binary sets of data/binary, and with --data the wide sets, "
                             f"which --data adds all of unless some are named here)")
    parser.add_argument("--data", type=Path, nargs="?", const=wide.DEFAULT_DATA, metavar="DIR",
                        help=f"add the wide corpus's classification sets of at most "
                             f"{WIDE_MAX_ROWS} training rows, at depth 3 (DIR: default "
                             f"shared/datasets/wide beside the checkout)")
    parser.add_argument("--heldout", action="store_true",
                        help="run only the held-out check instead: the corpus's regression sets "
                             "(target above its median) and causal sets (the treatment) of at "
                             f"most {WIDE_MAX_ROWS} training rows as classification problems, at "
                             "depth 3 (the corpus of --data, by default as there)")
    parser.add_argument("--depths", nargs="+", type=int, metavar="D",
                        help="depths for every data set (default: 3 4 on continuous sets, "
                             "4 5 on binary ones, 3 on wide ones)")
    parser.add_argument("--n-jobs", type=int, metavar="N",
                        help="also time dpdt on N threads, in rows of their own (the anchors "
                             "run on one)")
    parser.add_argument("--json", type=Path, metavar="OUT",
                        help="save the rows (with dpdt's stats_) as JSON after every cell")
    parser.add_argument("--load", type=Path, metavar="IN",
                        help="print the table and verdicts of rows saved by --json (of a whole "
                             "or an interrupted run) instead of fitting")
    args = parser.parse_args(argv)
    if args.load:
        rows = json.loads(args.load.read_text(encoding="utf-8"))
        return print_saved(rows, rows[0].get("time_limit", args.time_limit) if rows
                           else args.time_limit)
    if args.time_limit <= 0:
        parser.error("--time-limit must be positive")
    if args.depths is not None and min(args.depths) < 1:
        parser.error("--depths must be >= 1")
    if args.n_jobs is not None and args.n_jobs < 2:
        parser.error("--n-jobs must be >= 2 (one thread is always timed)")
    wide_names, too_large = [], []
    if args.heldout:
        args.data = args.data or wide.DEFAULT_DATA
    if args.data is not None:
        if not args.data.is_dir():
            parser.error(f"no corpus folder {args.data}")
        if args.heldout:
            wide_names = add_heldout(args.data)
            if args.datasets == default:
                args.datasets = wide_names
        else:
            wide_names, too_large = add_wide(args.data)
    unknown = [n for n in args.datasets if n not in names and n not in wide_names]
    if unknown:
        parser.error(f"argument --datasets: invalid choice: {', '.join(unknown)} (choose from "
                     f"{', '.join(names + wide_names)})")
    # Wide sets named in --datasets are the only ones run; else --data adds them all.
    named = [n for n in args.datasets if n in wide_names]
    datasets = list(dict.fromkeys(args.datasets + ([] if named else wide_names)))
    wide_names = named or wide_names

    anchors = [a for a in ANCHORS if available(a)]
    missing = [a for a in ANCHORS if not available(a)]
    threaded = [dpdt_solver(args.n_jobs)] if args.n_jobs else []
    solvers = [*anchors, DPDT, *threaded]
    kinds = {name: "wide" if name in wide_names else "continuous" if name in continuous
             else "binary" for name in datasets}
    cells = [(name, depth) for name in datasets
             for depth in (args.depths or DEPTHS[kinds[name]])]
    versions = ", ".join(f"{s.name} {_version(s.package)}" for s in solvers)
    print(f"One thread each (unless named), time limit {args.time_limit:g} s per fit; {versions}. "
          "Objective: training misclassifications, no regularisation. Peak MB: the fit's child "
          "process's peak resident memory less an idle child's.")
    if args.heldout:
        print(f"Held-out check ({args.data.name}): {len(wide_names)} problems the exact solver was "
              "never measured on, its regression sets (label: target above the training median) "
              "and causal sets (label: the treatment), their training splits, NaN replaced by "
              "one less than the feature's least value for every solver.")
    elif wide_names:
        print(f"Wide corpus ({args.data.name}): the {len(wide_names)} classification sets of at "
              f"most {WIDE_MAX_ROWS} training rows, their training splits, NaN replaced by one "
              "less than the feature's least value for every solver"
              + (f"; not run (more rows): {', '.join(too_large)}." if too_large else "."))
    if missing:
        print("Missing anchors, their rows skipped: "
              + ", ".join(f"{a.name} (pip install {a.package})" for a in missing) + ".")
    print()
    print(HEADER)
    print("|---" * (HEADER.count("|") - 1) + "|")
    warm_up([*solvers, DEFAULT])
    rows = []

    def on_cell(cell):
        rows.extend(cell)
        print("\n".join(cell_lines(cell, args.time_limit)), flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    run(cells, solvers, args.time_limit, on_cell=on_cell)
    print()
    for line in summarise(rows, args.time_limit):
        print(f"- {line}")
    for solver in threaded:
        print(f"- {summarise(rows, args.time_limit, solver.name)[2]}")
    if missing:
        print(f"- anchors not run: {', '.join(a.name for a in missing)}")
    return 0


def print_saved(rows, time_limit):
    """Print the table and verdicts of saved rows, as the run that made them printed them."""
    print(HEADER)
    print("|---" * (HEADER.count("|") - 1) + "|")
    cells = {}
    for r in rows:
        cells.setdefault((r["data"], r["depth"]), []).append(r)
    for cell in cells.values():
        print("\n".join(cell_lines(cell, time_limit)))
    print()
    for line in summarise(rows, time_limit):
        print(f"- {line}")
    return 0


def _version(package):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return getattr(dpdt, "__version__", "?") if package == "dpdt" else "?"


if __name__ == "__main__":
    raise SystemExit(main())
