"""DPDT trees on a Dask cluster: data-parallel estimators, and one fit split at the root.

``pip install "dpdt[dask]"`` installs what this module needs (``dask[dataframe,distributed]``).

:class:`DaskDPDTreeClassifier`, :class:`DaskDPDTreeRegressor` and :class:`DaskDPDTreePolicy`
fit on dask arrays or dataframes where their partitions live: the workers bin their partitions
and answer the driver's search with histograms, summed on the cluster; X is never gathered
(``_dask_estimators``). Their tree is exactly the local binned fit's on the concatenated data.

:func:`fit` is for data that fit in one process but a search too slow for it: it splits a fit
at the root. The driver expands the root (its candidate splits) and counts the
root's subproblems: two per candidate split, one per side. The training data are scattered once
to every worker; each worker task expands the root itself, identically, solves a chunk of the
root's subproblems and sends their solutions back as bytes. The driver then combines every
solution by the root's Bellman backup, exactly as a local fit does: the fitted estimator holds
the same Pareto front and the same trees as ``estimator.fit(X, y, sample_weight)``.

Model selection (``GridSearchCV``, ``cross_val_score``, ...) needs nothing from this module: the
estimators work unchanged with joblib's Dask backend, ``with joblib.parallel_backend("dask"):``.
"""

import time
import uuid
from numbers import Integral

import numpy as np

from ._optional import require

# Before the modules that import them bare: a missing one names the extra to install.
distributed = require("distributed", "dpdt.dask")
require("dask.dataframe", "dpdt.dask")

from ._classes import _BaseDPDTree  # noqa: E402
from ._dask_estimators import (  # noqa: E402
    DaskDPDTreeClassifier,
    DaskDPDTreePolicy,
    DaskDPDTreeRegressor,
)
from ._objectives import OBJECTIVES  # noqa: E402
from ._runner import RUNNER, run  # noqa: E402

__all__ = ["DaskDPDTreeClassifier", "DaskDPDTreePolicy", "DaskDPDTreeRegressor", "fit"]



def _splittable(name, args):
    """Whether the core call ``name(*args)`` is a fit that can be split at the root."""
    return name == "fit" and OBJECTIVES[args[0]].splits_at_root


# The search statistics that add up over the processes of a distributed fit.
_ADDITIVE_STATS = ("states", "candidates", "exact_scans", "sample_reads", "cache_hits",
                   "shared_states", "state_bytes")

# Default number of chunks (worker tasks) per worker thread. The subproblems' costs differ a lot
# (a side with more samples costs more), so more than one chunk per thread lets the scheduler
# balance the load; but every chunk expands the root again and solves again the states it shares
# with other chunks, so there should not be many more.
_CHUNKS_PER_THREAD = 2


def _solve_tasks(name, args, params, arguments, root_tasks):
    """Solve ``root_tasks`` of a fit on a worker; return their solutions (bytes) and the stats.

    The core function is looked up by ``name`` in the worker's own ``dpdt._core``.
    """
    result = run(name, args, params, dict(arguments, root_tasks=list(root_tasks)))
    return result["solutions"], result["stats"]


def _chunks(n_tasks, n_chunks):
    """Split the task ids 0..n_tasks-1 into ``n_chunks`` contiguous runs of near-equal size."""
    return [[int(t) for t in run] for run in np.array_split(np.arange(n_tasks), n_chunks)]


class _DaskRunner:
    """Runs the core's fits on a Dask client, splitting them at the root (see :func:`fit`)."""

    def __init__(self, client, chunks):
        self.client = client
        self.chunks = chunks

    def __call__(self, name, args, params, arguments):
        if not _splittable(name, args):
            return run(name, args, params, arguments)
        if params.get("time_limit", 0.0) > 0:
            raise ValueError("a fit with a time_limit cannot be split over a cluster")
        start = time.perf_counter()
        progress = arguments.get("progress")
        n_tasks = run(name, args, params, dict(arguments, count_root_tasks=True))["root_tasks"]
        if n_tasks == 0:  # the root is a leaf: nothing to distribute
            return run(name, args, params, arguments)

        # What the workers get: the arguments without the callback, and every array (the data,
        # the binned codes, the feature costs) scattered once to every worker.
        client = self.client
        remote_args = list(args)
        remote_params = dict(params)
        remote = {key: value for key, value in arguments.items() if key != "progress"}
        places = [(remote_args, k) for k, arg in enumerate(args) if isinstance(arg, np.ndarray)]
        places += [(where, key) for where in (remote_params, remote)
                   for key, value in where.items() if isinstance(value, np.ndarray)]
        scattered = client.scatter([where[key] for where, key in places], broadcast=True,
                                   hash=False)
        for (where, key), future in zip(places, scattered, strict=True):
            where[key] = future

        if self.chunks is None:
            n_threads = sum(client.nthreads().values())
            n_chunks = _CHUNKS_PER_THREAD * max(1, n_threads)
        else:
            n_chunks = self.chunks
        chunks = _chunks(n_tasks, min(n_chunks, n_tasks))
        fit_id = uuid.uuid4().hex
        futures = [client.submit(_solve_tasks, name, remote_args, remote_params, remote, chunk,
                                 key=f"dpdt-{name}-{fit_id}-{k}")
                   for k, chunk in enumerate(chunks)]
        task_of = {future.key: chunk for future, chunk in zip(futures, chunks, strict=True)}

        solutions = [None] * n_tasks
        worker_stats = []
        last_report, every = start, arguments.get("progress_seconds", 1.0)
        try:
            for future, (chunk_solutions, stats) in distributed.as_completed(
                    futures, with_results=True):
                for task, solution in zip(task_of[future.key], chunk_solutions, strict=True):
                    solutions[task] = solution
                worker_stats.append(stats)
                now = time.perf_counter()
                if progress is not None and now - last_report >= every:
                    last_report = now
                    done = sum(solution is not None for solution in solutions)
                    progress(sum(s["states"] for s in worker_stats), done, n_tasks, now - start)
        except BaseException:
            # A worker's exception (raised here as it was there) or an interrupt: drop the rest.
            # A chunk already running finishes on its worker; its result is discarded.
            client.cancel(futures)
            raise
        finally:
            del scattered, remote_args, remote_params, remote

        result = run(name, args, params, dict(arguments, root_solutions=solutions))
        stats = result["stats"]
        for key in _ADDITIVE_STATS:
            stats[key] += sum(s[key] for s in worker_stats)
        stats["seconds"] = time.perf_counter() - start
        return result


def fit(estimator, X, y, sample_weight=None, *, client, chunks=None):
    """Fit a DPDT tree on a Dask cluster; the result is exactly the tree of a local fit.

    The root's subproblems (two per candidate split of the root: its left and its right side)
    are solved by the cluster's workers and combined on the driver by the same Bellman backup as
    a local fit, so the fitted estimator (``pareto_front_``, ``trees_``, ``tree_``) is exactly
    ``estimator.fit(X, y, sample_weight)``. The driver validates the data and expands the root;
    the arrays the core needs are scattered once to every worker; each worker task expands the
    root again (cheap) and solves a chunk of the root's subproblems, with ``estimator.n_jobs``
    threads; only the chunks' solutions travel back.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor or DPDTreePolicy
        The estimator to fit, in place. Its ``time_limit`` must be None (a search stopped by
        the clock depends on the machine that runs it) and its ``full_front`` True. Boosting
        and the cross-validated estimators are not split: fit them locally, or run their folds
        through joblib's Dask backend.
    X : array-like of shape (n_samples, n_features)
        Training samples, as for ``estimator.fit``.
    y : array-like of shape (n_samples,), (n_samples, n_outputs) or (n_samples, n_actions)
        Targets (a policy's rewards), as for ``estimator.fit``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights; None means uniform.
    client : distributed.Client
        A synchronous client of the cluster that solves the subproblems. Every worker needs
        ``dpdt`` installed (the same version as the driver).
    chunks : int, default=None
        Number of worker tasks the root's subproblems are split into (at most one per
        subproblem). Fewer chunks repeat less work (every chunk expands the root, and a state
        shared by subproblems of different chunks is solved in each); more chunks balance the
        load better. None: two per worker thread of the cluster, at the time of the fit.

    Returns
    -------
    estimator : DPDTreeClassifier, DPDTreeRegressor or DPDTreePolicy
        The fitted estimator. Its ``stats_`` count the work of every process (the states,
        candidates, exact scans and cache hits of the driver and of every worker task, so at
        least those of a local fit), and ``stats_["seconds"]`` is the wall-clock time of the
        whole distributed fit.

    Raises
    ------
    TypeError
        If the estimator is not a :class:`~dpdt.DPDTreeClassifier`, a
        :class:`~dpdt.DPDTreeRegressor` or a :class:`~dpdt.DPDTreePolicy`.
    ValueError
        If the estimator has a ``time_limit`` or ``full_front=False``, or ``chunks`` is not a
        positive int.

    Notes
    -----
    An exception raised on a worker (e.g. ``MemoryError`` for ``max_states``) is raised again
    here, and the remaining worker tasks are cancelled; so they are on an interrupt (Ctrl-C).
    A worker task that is already running cannot be stopped: it finishes and its result is
    dropped. A root that is a leaf (nothing to split) is fitted locally.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import load_iris
    >>> from dpdt import DPDTreeClassifier
    >>> import dpdt.dask
    >>> X, y = load_iris(return_X_y=True)
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=":0")
    >>> client = Client(cluster)
    >>> clf = dpdt.dask.fit(DPDTreeClassifier(max_depth=3), X, y, client=client)
    >>> client.close(); cluster.close()
    >>> local = DPDTreeClassifier(max_depth=3).fit(X, y)
    >>> bool((clf.pareto_front_ == local.pareto_front_).all())
    True
    >>> round(clf.score(X, y), 3)
    0.993
    """
    if not (isinstance(estimator, _BaseDPDTree) and estimator._objective.splits_at_root):
        raise TypeError("dpdt.dask.fit splits the fit of a DPDTreeClassifier, DPDTreeRegressor "
                        f"or DPDTreePolicy, not of {type(estimator).__name__}; fit other "
                        "estimators locally or run their model selection through joblib's "
                        "Dask backend")
    if estimator.time_limit is not None:
        raise ValueError(f"time_limit={estimator.time_limit!r}: a fit stopped by the clock "
                         "cannot be split over a cluster; set time_limit=None")
    if not estimator.full_front:
        raise ValueError("full_front=False: the search for one alpha is not split over a "
                         "cluster; fit the estimator locally")
    if chunks is not None and (not isinstance(chunks, Integral) or isinstance(chunks, bool)
                               or chunks < 1):
        raise ValueError(f"chunks must be None or a positive int, got {chunks!r}")
    if getattr(client, "asynchronous", False):
        raise ValueError("dpdt.dask.fit needs a synchronous distributed.Client")
    token = RUNNER.set(_DaskRunner(client, None if chunks is None else int(chunks)))
    try:
        estimator.fit(X, y, sample_weight)
    finally:
        RUNNER.reset(token)
    return estimator
