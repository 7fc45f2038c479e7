"""Data-parallel DPDT fits on Dask: the data stay in their partitions, the driver runs the search.

The estimators of ``dpdt.dask`` (:class:`DaskDPDTreeClassifier`, :class:`DaskDPDTreeRegressor`,
:class:`DaskDPDTreePolicy`).
A fit makes a few passes over the partitions, each a task per partition on the worker that holds
it (``_dask_partitions``), and the driver combines their small answers:

1. a summary (rows, features, labels, largest weights): the classes, the weights' power-of-two
   scale and class weights, as the local fit derives them from the whole data;
2. the rows kept (weight above zero): each partition's first global row id; then the targets'
   scale, by the reductions the local fit makes on its one part (``Objective.fit_scale``,
   ``_objectives``): a regressor's takes three more passes, for the targets' scale, mean and
   spread;
3. the bin edges' sketch: the rows of smallest hashed id (a uniform sample of at most
   ``_binning.BINNING_SAMPLES`` rows, the same for any partitioning) and each feature's
   largest value, merged pairwise on the cluster; the driver cuts the bins from it;
4. the partitions binned (codes, labels or targets, weights, first id), kept on the workers.

Then the search: the core's ``RemoteFit`` on the driver runs the local binned search on the
states whose histograms it holds and asks for the next ones; every partition answers with its
integer histograms, which a tree of tasks sums on the cluster, and only the sum reaches the
driver. Integer sums make the tree exactly the local binned fit's on the concatenated data, with
the same bin edges, for any partitioning. A task for a partition reads only its binned
partition and the round's requests, so a lost worker's partitions are recomputed by Dask from
their lineage.
"""

import copy
import functools
import time
import uuid
from typing import NamedTuple

import dask
import dask.array as da
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
from dask.base import is_dask_collection
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context, clone
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from . import _dask_partitions as parts
from ._binning import AUTO_MAX_BINS, BINNING_SAMPLES
from ._classes import DPDTreeClassifier, DPDTreeRegressor
from ._dask_inputs import input_partitions
from ._io import SaveMixin, register_estimator
from ._params import CLASSIFIER, POLICY, REGRESSOR, Param, declare
from ._policy import DPDTreePolicy, action_columns, node_means
from ._progress import reporter
from ._runner import core_params
from ._search_policy import needs_exact_thresholds
from ._validation import binary_exponent, weighted_by_class

#: The most bytes of histograms one round of a fit asks each partition for (and the driver gets,
#: summed): the states beyond are asked for in later rounds, which changes no tree.
ROUND_BYTES = 256 * 2**20

#: The most bytes of histograms the driver holds, beyond those fetched for the next rounds and
#: those a subtraction still needs: beyond, the core drops those it read longest ago, during a
#: round as after it (it keeps what it read off them), and asks for one again only if a search
#: needs it. 128 MB: fewer rounds and fewer rows summed than 64 MB, and the driver's memory
#: still independent of the data's size (docs/scaling.md).
HISTOGRAM_BYTES = 128 * 2**20

CLIENT = Param(
    "client", None, [distributed.Client, None], "distributed.Client or None", """
    The client of the cluster that holds the data and runs the partitions' tasks; None means
    the default client (``distributed.default_client()``), looked up by ``fit``.
    """)


class _Prepared(NamedTuple):
    """A data-parallel fit ready to search: what ``_DaskDPDTree._prepare`` returns.

    The futures of the ``binned_parts`` (the partitions with training rows, binned), the
    local fit's ``plan``, the weights' and targets' ``scale`` (``scale["targets"]``, the
    objective's target scale), the ``n_features`` and the core's ``n_classes`` (its
    argument for the target columns: classes, outputs for a regressor, actions for a policy),
    and the raw partitions ``data`` (delayed (X, y, weight)), for a pass after the search.
    """

    binned_parts: list
    plan: object
    scale: dict
    n_features: int
    n_classes: int
    data: list = ()


def _killed_workers_message(client, meta, error):
    """Say why workers that kept dying while running a fit's task most likely died."""
    limits = sorted({w.get("memory_limit") or 0
                     for w in client.scheduler_info(n_workers=-1)["workers"].values()})
    limit = ", ".join(f"{limit / 2**20:.0f} MB" if limit else "none" for limit in limits)
    return (f"the cluster's workers died while running the fit's tasks ({error}). Most often a "
            f"worker went past its memory limit ({limit}): a worker holds its partitions' "
            f"binned features ({meta.shape[1]} bytes per row), their row caches (16 bytes per "
            f"row) and a round's histograms (up to {ROUND_BYTES // 2**20} MB and an eighth of "
            f"its limit). Give the cluster more workers or more memory per worker.")


def _groups(client, futures):
    """Return (worker, futures) groups: the futures each worker thread answers for.

    Each worker's partitions are dealt out to its threads, so that a round asks every thread
    for one answer, summed over its partitions, whatever their number (an answer's size does
    not depend on the rows); workers are in address order, so the reduction tree sums one
    worker's answers before any crosses the network.
    """
    holders = client.who_has(futures)
    threads = client.nthreads()
    by_worker = {}
    for future in futures:
        where = sorted(holders.get(future.key, ())) or sorted(threads)[:1]
        by_worker.setdefault(where[0], []).append(future)
    return [(worker, group[k::threads.get(worker, 1)])
            for worker, group in sorted(by_worker.items())
            for k in range(min(threads.get(worker, 1), len(group)))]


def _tree_reduce(client, futures, combine, *args, name):
    """Return the future of ``combine`` folded pairwise over ``futures``, on the cluster."""
    while len(futures) > 1:
        pairs = [client.submit(combine, a, b, *args, key=f"{name}-{uuid.uuid4().hex}")
                 for a, b in zip(futures[::2], futures[1::2], strict=False)]
        futures = pairs + futures[len(pairs) * 2:]
    return futures[0]


def _submit_all(client, function, data, *args, name, after=None, **kwargs):
    """Return the futures of ``function(*args, x, y, w, *after(k), **kwargs)``, per partition.

    The partitions are dask's delayed objects: each task computes its partition from the
    collections' graph and frees it, so that no pass holds the raw data, which may be larger
    than the workers' memory (a pass costs a read, or a computation, of the data).
    """
    return client.compute([
        dask.delayed(function, pure=False)(*args, x, y, w, *(after(k) if after else ()), **kwargs,
                                           dask_key_name=f"{name}-{k}-{uuid.uuid4().hex}")
        for k, (x, y, w) in enumerate(data)])


def _predict_block(function, columns, dtype, block):
    """Return ``function(block)``, and for an empty block the empty result it cannot make."""
    if len(block) == 0:
        return np.empty((0,) if columns is None else (0, columns), dtype=dtype)
    return function(block)


class _DaskDPDTree(SaveMixin, BaseEstimator):
    """Fit, ``to_local`` and prediction shared by the data-parallel DPDT estimators."""

    # Set by each estimator: its in-memory class, whose objective it fits.
    _local_class = None
    # Tests: a callable of the round number, called after every round of the search.
    _on_round = None

    def _objective(self):
        return self._local_class._objective

    def _local_params(self):
        names = [param.name for param in self._local_class._params]
        return {name: getattr(self, name) for name in names}

    def _bins(self):
        """Return the bins of every feature: the data-parallel fit always bins."""
        if self.max_bins is None:
            raise ValueError("max_bins=None: the data-parallel fit searches histograms; set "
                             "max_bins to an int or 'auto'")
        if self.max_bins == "auto":
            if needs_exact_thresholds(self.splitter):
                raise ValueError(f"splitter={self.splitter!r} needs exact thresholds, which the "
                                 "data-parallel fit does not have; choose another splitter")
            return AUTO_MAX_BINS
        return int(self.max_bins)

    # What the search over rounds cannot do, refused before any data moves when set: it is not
    # timed; its machines' stores key states by their samples alone, not by the value bounds
    # that monotonic constraints put on them; and the costs of a budget are an argument of the
    # in-memory fit only.
    _UNSUPPORTED = {
        "time_limit": "the data-parallel fit cannot stop on a clock (its search runs in rounds "
                      "over the cluster); set time_limit=None, or fit the in-memory estimator "
                      "on a sample",
        "monotonic_cst": "constraints are not supported by the data-parallel fit: fit the "
                         "in-memory estimator (dpdt.dask.fit splits its search over the "
                         "cluster, constraints and all)",
        "max_cost": "the data-parallel fit takes no action_costs; set max_cost=None, or fit "
                    "the in-memory DPDTreePolicy with action_costs",
    }

    def _check_supported(self):
        """Refuse, before any data moves, the parameters the search over rounds cannot take."""
        params = self.get_params(deep=False)
        for name, why in self._UNSUPPORTED.items():
            if params.get(name) is not None:
                raise ValueError(f"{name}={params[name]!r}: {why}")

    def _client(self):
        if self.client is not None:
            return self.client
        try:
            return distributed.default_client()
        except ValueError as error:
            raise ValueError("client=None and no default Dask client: start one "
                             "(distributed.Client(...)) or pass client=") from error

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the tree on the partitions of ``X`` where they live.

        Parameters
        ----------
        X : dask array or dask dataframe of shape (n_samples, n_features)
            Training samples: numbers (NaN a missing value), partitioned by rows. A numpy
            array or pandas DataFrame is split into one partition per worker.
        y : dask array, series or dataframe
            Targets, partitioned as ``X`` (the same rows in each partition).
        sample_weight : dask array or series, default=None
            Non-negative sample weights, partitioned as ``X``; None means uniform.

        Returns
        -------
        self : object
            The fitted estimator; :meth:`to_local` gives the in-memory one.
        """
        self._check_supported()
        bins = self._bins()
        client = self._client()
        if getattr(client, "asynchronous", False):
            raise ValueError("the data-parallel fit needs a synchronous distributed.Client")
        local = self._local_class(**self._local_params())
        # A dataframe's columns name the targets (a policy's actions).
        names = np.asarray(y.columns) if isinstance(y, (dd.DataFrame, pd.DataFrame)) else None
        data, meta = input_partitions(client, X, y, sample_weight)
        try:
            prepared = self._prepare(client, local, data, meta, bins, names=names)
            result = self._search(client, prepared)
            self._finish(local, prepared, result)
        except distributed.KilledWorker as error:
            raise MemoryError(_killed_workers_message(client, meta, error)) from error
        return self

    def _prepare(self, client, local, data, meta, bins, names=None):
        """Return the fit's :class:`_Prepared`: the partitions binned on the cluster, the plan.

        ``local`` (the in-memory estimator) gets its classes, outputs or actions (named by
        ``names``, the columns of a dataframe of targets) and its features.
        """
        objective = self._objective()
        summaries = client.gather(_submit_all(client, parts.summary, data, objective,
                                              name="dpdt-summary",
                                              after=lambda k: (f"partition {k}",)))
        features = {s["features"] for s in summaries if s["rows"] > 0}
        if sum(s["rows"] for s in summaries) == 0:
            raise ValueError("X has no rows (every partition is empty)")
        if len(features) != 1:
            raise ValueError(f"the partitions of X have different numbers of features: "
                             f"{sorted(features)}")
        n_features = features.pop()
        if not hasattr(meta, "iloc"):
            meta = np.empty((0, n_features))
        validate_data(local, meta, reset=True, skip_check_array=True)
        scale, total, n_columns = self._scale(local, summaries, names)
        kept = client.gather(_submit_all(client, parts.kept_rows, data, objective,
                                         scale=dict(scale), name="dpdt-kept"))
        counts = np.array([k["rows"] for k in kept], dtype=np.int64)
        first_ids = np.concatenate([[0], np.cumsum(counts)[:-1]])

        def reduce(function, *args):
            return client.gather(_submit_all(client, parts.reduce_targets, data, objective,
                                             function, args, scale=dict(scale),
                                             name=f"dpdt-{function.__name__.strip('_')}"))

        scale["targets"] = objective.fit_scale(kept, reduce)
        binned_parts = []

        def bin_data(bins, random_state, threads, max_depth):
            # No greedy tree's thresholds join the bins: its data are on the cluster.
            n_bins, upper = self._bin_edges(client, data, scale, first_ids, bins, random_state,
                                            threads)
            offset = np.concatenate([[0], np.cumsum(n_bins, dtype=np.int64)])
            wide = bins > np.iinfo(np.uint8).max
            filled = [k for k in range(len(data)) if counts[k] > 0]
            binned_parts.extend(_submit_all(
                client, parts.binned, [data[k] for k in filled], objective, name="dpdt-binned",
                after=lambda j: (scale, int(first_ids[filled[j]]), upper, offset, wide)))
            distributed.wait(binned_parts)
            codes = np.empty((0, n_features), dtype=np.uint16 if wide else np.uint8)
            return {"codes": codes, "n_bins": n_bins, "upper": upper}

        plan = local._fit_plan(int(counts.sum()), n_features, total, n_columns, bin_data,
                               bins=bins, loss_exponent=scale["targets"].loss_exponent)
        return _Prepared(binned_parts, plan, scale, n_features, n_columns, data)

    def _finish(self, local, prepared, result):
        """Build the local estimator's state from the core's result, as ``_fit_front`` does."""
        scale = prepared.scale
        local._store_front(result, prepared.plan, prepared.n_features, scale["weight_scale"],
                           scale["targets"])
        self._finish_trees(local, prepared)
        self._local = local
        for name in ("classes_", "n_classes_", "n_outputs_", "actions_", "n_actions_",
                     "n_features_in_", "feature_names_in_", "pareto_front_", "stats_", "n_bins_",
                     "is_optimal_"):
            if hasattr(local, name):
                setattr(self, name, getattr(local, name))

    def _finish_trees(self, local, prepared):
        """Complete the trees of the core's result where the estimator's values need it."""

    def _bin_edges(self, client, data, scale, first_ids, bins, random_state, threads):
        """Return (n_bins, upper) from the merged sketch of the partitions (module docstring)."""
        seed = int(random_state.randint(np.iinfo(np.int32).max))
        sketches = _submit_all(client, parts.sample, data, self._objective(),
                               name="dpdt-sample",
                               after=lambda k: (scale, int(first_ids[k]), seed,
                                                BINNING_SAMPLES))
        merged = _tree_reduce(client, sketches, parts.merge_samples, BINNING_SAMPLES,
                              name="dpdt-sample-merge").result()
        _, _, values, maxima = merged
        columns = np.sort(values.T, axis=1)
        return _core.bin_uppers(np.ascontiguousarray(columns), np.ascontiguousarray(maxima),
                                max_bins=int(bins), n_threads=threads)

    def _scale(self, local, summaries, names=None):
        """Set the local estimator's classes or outputs; return the weights' scale and total.

        The scale is what ``_validation.training_weight`` derives from the whole data, from the
        partitions' largest weights per group (``Objective.groups``: the classes of a
        classifier): the power of two the weights are divided by, the groups' labels and
        class_weight's factors (with the power of two that brings the weighted largest weight
        into [1, 2)). Also returns the core's number of target columns.
        """
        filled = [s for s in summaries if s["rows"] > 0]
        columns = {s["columns"] for s in filled}
        if len(columns) != 1:
            raise ValueError(f"the partitions of y have different numbers of outputs: "
                             f"{sorted(columns)}")
        labels = np.unique(np.concatenate([s["labels"] for s in filled]))
        attributes, n_columns = self._objective().fitted_shape(labels, columns.pop(), names)
        for name, value in attributes.items():
            setattr(local, name, value)
        rows, largest, sums = (np.zeros(len(labels)) for _ in range(3))
        places = [np.searchsorted(labels, s["labels"]) for s in filled]
        for s, at in zip(filled, places, strict=True):
            rows[at] += s["label_rows"]
            largest[at] = np.maximum(largest[at], s["label_max_weight"])
        exponent = binary_exponent(largest)
        for s, at in zip(filled, places, strict=True):
            sums[at] += np.ldexp(s["label_weight"], s["weight_exponent"] - exponent)
        factors, shift = self._class_factors(labels, rows), 0
        largest = np.ldexp(largest, -exponent)
        if factors is not None:
            largest = weighted_by_class(largest, factors)
            shift = binary_exponent(largest)
            sums = np.ldexp(sums * factors, -shift)
        total = sums.sum()
        if not total > 0:
            raise ValueError("sample_weight must be finite and sum to a positive value")
        exponent += shift
        if exponent + np.frexp(total)[1] > 1024:
            raise ValueError(f"sample_weight sums to about 2**{int(np.log2(total)) + exponent}, "
                             "beyond float64's range (node weights are reported in the "
                             "weights' unit): divide the weights by a common factor")
        scale = {"labels": labels, "factors": factors, "shift": shift,
                 "exponent": exponent - shift, "weight_scale": float(np.ldexp(1.0, exponent))}
        return scale, total, n_columns

    def _class_factors(self, classes, rows):
        """Return class_weight's factor of every class (None without class_weight)."""
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None:
            return None
        if class_weight == "balanced":
            # scikit-learn's compute_class_weight("balanced"), from the classes' global counts.
            return rows.sum() / (len(classes) * rows)
        return compute_class_weight(class_weight, classes=classes, y=classes)

    def _search(self, client, prepared):
        """Run the core's search on the driver, each round's histograms summed on the cluster."""
        objective, binned = self._objective(), prepared.plan.binned
        n_columns = prepared.n_classes
        binned_parts = prepared.binned_parts
        n_bins, upper = binned["n_bins"], binned["upper"]
        masses = client.gather([client.submit(parts.quantity_mass, objective, part, n_columns,
                                              key=f"dpdt-mass-{uuid.uuid4().hex}")
                                for part in binned_parts])
        mass = np.sum(masses, axis=0)
        fit = _core.RemoteFit(objective.name, core_params(_core.Params, prepared.plan.params),
                              n_bins, upper, n_columns, mass, max_histogram_bytes=HISTOGRAM_BYTES)
        # A round asks for at most ROUND_BYTES of histograms: the rest wait for later rounds.
        # and at most an eighth of a worker's memory limit, as a worker holds a few answers.
        limits = [w.get("memory_limit") or 0
                  for w in client.scheduler_info(n_workers=-1)["workers"].values()]
        round_bytes = min([ROUND_BYTES] + [limit // 8 for limit in limits if limit > 0])
        round_states = max(1, round_bytes // (8 * fit.histogram_size))
        self._round_log = []
        progress = reporter(self.verbose, type(self).__name__, "rounds",
                            pending="rounds of histograms")
        answers = []
        start = time.perf_counter()
        try:
            with progress:
                while True:
                    tick = time.perf_counter()
                    paths, offsets = fit.run(max_states=round_states)
                    driver = time.perf_counter() - tick
                    if len(offsets) == 1:
                        break
                    answers = [client.submit(parts.histograms, objective, group, paths, offsets,
                                             n_bins, upper, n_columns, mass, pure=False,
                                             workers=[worker], allow_other_workers=True)
                               for worker, group in _groups(client, binned_parts)]
                    total = _tree_reduce(client, answers, parts.add_answers,
                                         name="dpdt-histogram-sum")
                    tick = time.perf_counter()
                    summed = total.result()
                    cluster = time.perf_counter() - tick
                    tick = time.perf_counter()
                    fit.add(paths, offsets, *summed)
                    self._round_log.append({
                        "states": len(offsets) - 1,
                        "answer_bytes": sum(a.nbytes for a in summed),
                        "driver_seconds": driver + time.perf_counter() - tick,
                        "cluster_seconds": cluster})
                    progress.update(fit.rounds, notes=[f"{fit.states} states"])
                    if self._on_round is not None:
                        self._on_round(fit.rounds)
                progress.finish(fit.rounds, fit.rounds, [f"{fit.states} states"])
        except BaseException:
            # A worker's exception, a lost cluster or an interrupt: nothing else to wait for.
            client.cancel(answers)
            raise
        result = fit.result()
        stats = result["stats"]
        stats["rounds"] = len(self._round_log)
        stats["histogram_bytes"] = sum(r["answer_bytes"] for r in self._round_log)
        stats["dropped_histograms"] = fit.dropped_histograms
        stats["peak_histogram_bytes"] = fit.peak_histogram_bytes
        stats["seconds"] = time.perf_counter() - start
        return result

    def to_local(self):
        """Return the fitted in-memory estimator: predict, export, save, plot and explore it.

        Returns
        -------
        estimator : DPDTreeClassifier, DPDTreeRegressor or DPDTreePolicy
            A copy of the tree fitted on the cluster, with this estimator's parameters (its
            current ``alpha`` and ``max_complexity`` select its tree).
        """
        check_is_fitted(self, "_local")
        local = copy.deepcopy(self._local)
        return local.set_params(**self._local_params())

    def select_tree(self, *, max_leaves=None, max_complexity=None, max_depth=None):
        """Set ``alpha`` and ``max_complexity`` to select the most accurate tree within a budget.

        The in-memory estimator's :meth:`~dpdt.DPDTreeClassifier.select_tree`, on the front
        fitted on the cluster: no refit, and no data moves.

        Parameters
        ----------
        max_leaves : int or None, default=None
            Largest number of leaves allowed (>= 1). None: no limit.
        max_complexity : float or None, default=None
            Largest ``complexity`` allowed (>= 0). None: no limit.
        max_depth : int or None, default=None
            Largest depth allowed (>= 0). None: no limit.

        Returns
        -------
        self : object
            The estimator, its ``alpha`` and ``max_complexity`` set.
        """
        chosen = self.to_local().select_tree(max_leaves=max_leaves,
                                             max_complexity=max_complexity, max_depth=max_depth)
        return self.set_params(alpha=chosen.alpha, max_complexity=chosen.max_complexity)

    def get_depth(self):
        """Return the depth of the selected tree (0 for a single leaf)."""
        return self.to_local().get_depth()

    def get_n_leaves(self):
        """Return the number of leaves of the selected tree."""
        return self.to_local().get_n_leaves()

    def save(self, path):
        """Save the fitted estimator to a JSON file readable by :func:`dpdt.load`.

        As :meth:`dpdt.DPDTreeClassifier.save`. The file leaves the client behind, as pickling
        does: the loaded estimator has ``client=None`` (the default client, for a refit), and
        predicts without one.

        Parameters
        ----------
        path : str or path-like
            File to write.

        Returns
        -------
        self : estimator
            The estimator, unchanged.
        """
        check_is_fitted(self, "_local")
        SaveMixin.save(copy.copy(self), path)   # the copy has client=None (__getstate__)
        return self

    def _check_fitted_state(self, decoder, where):
        # The in-memory estimator was checked when it was decoded; what predicts here is it.
        local = vars(self).get("_local")
        decoder.expect(isinstance(local, self._local_class),
                       f"{where}: _local is not a {self._local_class.__name__}")
        decoder.expect(local.n_features_in_ == self.n_features_in_
                       and np.array_equal(getattr(local, "classes_", []),
                                          getattr(self, "classes_", []))
                       and getattr(local, "n_outputs_", None) == getattr(self, "n_outputs_", None)
                       and np.array_equal(getattr(local, "actions_", []),
                                          getattr(self, "actions_", [])),
                       f"{where}: _local does not match n_features_in_, classes_, n_outputs_ "
                       "or actions_")

    def _lazy(self, X, method, columns, dtype):
        """Return ``method`` of the local tree on X: lazy on a dask collection."""
        function = functools.partial(_predict_block, getattr(self.to_local(), method), columns,
                                     dtype)
        meta = np.empty((0,) * (1 if columns is None else 2), dtype=dtype)
        if isinstance(X, da.Array):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-d, got a {X.ndim}-d dask array")
            X = X.rechunk({1: -1})
            if columns is None:
                return X.map_blocks(function, drop_axis=1, dtype=dtype, meta=meta)
            return X.map_blocks(function, chunks=(X.chunks[0], (columns,)), dtype=dtype,
                                meta=meta)
        if isinstance(X, dd.DataFrame):
            return X.map_partitions(function, meta=meta)   # a dask array, by its meta
        if is_dask_collection(X):
            raise TypeError(f"X must be a dask array or dask dataframe, got {type(X).__name__}")
        return function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def __sklearn_clone__(self):
        # A client is a connection, shared by the clone (scikit-learn would deep-copy it).
        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(**{name: clone(value, safe=False) for name, value in params.items()},
                          client=client)

    def __getstate__(self):
        # A pickled (or saved) estimator leaves its client behind: None, the default client.
        state = dict(super().__getstate__(), client=None)
        return state


_ATTRIBUTES = """
    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X is a dataframe with string column names.
    pareto_front_ : ndarray, structured
        The front of trees, as the in-memory estimator's (:meth:`to_local`).
    n_bins_ : ndarray of shape (n_features_in_,)
        Bins of each feature, cut from a sample of the partitions.
    stats_ : dict
        The search's statistics, as the in-memory estimator's, with ``rounds`` (rounds of
        histograms), ``histogram_bytes`` (the summed histograms the driver received),
        ``dropped_histograms`` (those it dropped beyond ``HISTOGRAM_BYTES``, 128 MB) and
        ``peak_histogram_bytes`` (the most it held at once).
"""


@register_estimator
@declare(CLASSIFIER + (CLIENT,))
class DaskDPDTreeClassifier(ClassifierMixin, _DaskDPDTree):
    __doc__ = """DPDT classifier fitted on Dask collections where their partitions live.

    The data-parallel :class:`~dpdt.DPDTreeClassifier`: ``fit`` takes a dask array or
    dataframe and never gathers it. The workers validate, bin and keep their partitions; the
    driver runs the search of the local binned fit on histograms summed over the partitions,
    so the tree, front and predictions are exactly those of the local fit on the concatenated
    data with the same bin edges (which are the local fit's up to
    ``_binning.BINNING_SAMPLES`` training rows). The fit always bins (``max_bins``) and takes
    no ``time_limit`` (it must be None: ``fit`` refuses any other before the data move).
    :meth:`to_local` returns the fitted in-memory estimator; :meth:`save` writes a file that
    :func:`dpdt.load` reads back.
""" + _ATTRIBUTES + """    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import load_iris
    >>> from dpdt.dask import DaskDPDTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=":0")
    >>> client = Client(cluster)
    >>> clf = DaskDPDTreeClassifier(max_depth=2, client=client)
    >>> clf = clf.fit(da.from_array(X, chunks=50), da.from_array(y, chunks=50))
    >>> clf.predict(da.from_array(X, chunks=50)).compute()[:3]
    array([0, 0, 0])
    >>> type(clf.to_local()).__name__
    'DPDTreeClassifier'
    >>> client.close(); cluster.close()
    """

    _local_class = DPDTreeClassifier

    def predict_proba(self, X):
        """Return the weighted class fractions of each sample's leaf (lazy on dask input).

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : dask array or ndarray of shape (n_samples, n_classes)
            A dask array for a dask collection, computed when asked.
        """
        check_is_fitted(self, "_local")
        return self._lazy(X, "predict_proba", self.n_classes_, np.float64)

    def predict(self, X):
        """Return the predicted class of each sample (lazy on dask input).

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : dask array or ndarray of shape (n_samples,)
            A dask array for a dask collection, computed when asked.
        """
        check_is_fitted(self, "_local")
        return self._lazy(X, "predict", None, self.classes_.dtype)


@register_estimator
@declare(REGRESSOR + (CLIENT,))
class DaskDPDTreeRegressor(RegressorMixin, _DaskDPDTree):
    __doc__ = """DPDT regressor fitted on Dask collections where their partitions live.

    The data-parallel :class:`~dpdt.DPDTreeRegressor`, as :class:`DaskDPDTreeClassifier` is
    the classifier's. The targets are centred on their weighted mean summed in fixed point over
    the partitions, exactly as the local fit centres them.
""" + _ATTRIBUTES + """    n_outputs_ : int
        Number of outputs.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client, LocalCluster
    >>> from dpdt.dask import DaskDPDTreeRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=":0")
    >>> client = Client(cluster)
    >>> reg = DaskDPDTreeRegressor(max_depth=1, client=client)
    >>> reg = reg.fit(da.from_array(X, chunks=3), da.from_array((X[:, 0] > 2.5) * 10.0, chunks=3))
    >>> reg.predict(np.array([[1.0], [6.0]]))
    array([ 0., 10.])
    >>> client.close(); cluster.close()
    """

    _local_class = DPDTreeRegressor

    def predict(self, X):
        """Return the predicted value of each sample (lazy on dask input).

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : dask array or ndarray of shape (n_samples,) or (n_samples, n_outputs)
            A dask array for a dask collection, computed when asked.
        """
        check_is_fitted(self, "_local")
        columns = None if self.n_outputs_ == 1 else self.n_outputs_
        return self._lazy(X, "predict", columns, np.float64)


def _chosen_rewards(values, rewards):
    """Return each row's reward for the action of largest value (a block of rows)."""
    return rewards[np.arange(len(rewards)), np.argmax(values, axis=1)]


@register_estimator
@declare(POLICY + (CLIENT,))
class DaskDPDTreePolicy(_DaskDPDTree):
    __doc__ = """DPDT policy tree fitted on Dask collections where their partitions live.

    The data-parallel :class:`~dpdt.DPDTreePolicy`, as :class:`DaskDPDTreeClassifier` is the
    classifier's: ``fit(X, rewards, sample_weight)`` takes the rewards of every action for
    every sample partitioned as X (a dask dataframe's columns name the actions), and the
    tree, front and actions are those of the local fit on the concatenated data with the same
    bin edges. The leaves' mean rewards take one more pass over the partitions after the
    search, for the mean per node of each row's least reward (which the search leaves out).
""" + _ATTRIBUTES + """    actions_ : ndarray of shape (n_actions,)
        The actions: the column names of a dataframe of rewards, else ``0 .. n_actions - 1``.
    n_actions_ : int
        The number of actions.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from distributed import Client, LocalCluster
    >>> from dpdt.dask import DaskDPDTreePolicy
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> rewards = np.column_stack([X[:, 0] < 3, X[:, 0] >= 3]).astype(float)
    >>> cluster = LocalCluster(n_workers=2, processes=False, dashboard_address=":0")
    >>> client = Client(cluster)
    >>> policy = DaskDPDTreePolicy(max_depth=1, max_bins=8, client=client)
    >>> policy = policy.fit(da.from_array(X, chunks=3), da.from_array(rewards, chunks=3))
    >>> policy.predict(np.array([[1.0], [6.0]]))
    array([0, 1])
    >>> client.close(); cluster.close()
    """

    _local_class = DPDTreePolicy

    def fit(self, X, y, sample_weight=None):
        """Fit the policy tree on the partitions of ``X`` where they live.

        As :meth:`_DaskDPDTree.fit`, with ``y`` the rewards of every action. A budget
        (``max_cost``) needs the costs of the actions, which only the in-memory fit takes:
        it is refused before any data moves.
        """
        if self.max_cost is not None:
            raise ValueError(f"max_cost={self.max_cost!r}: the data-parallel fit takes no "
                             "action_costs; set max_cost=None, or fit the in-memory "
                             "DPDTreePolicy with action_costs")
        return super().fit(X, y, sample_weight)

    def _finish_trees(self, local, prepared):
        """Bring the trees' values back to the rewards, as ``DPDTreePolicy.fit`` does.

        The core's values are the mean rewards above each row's least: the least's mean per
        node is added, from the partitions' sums per leaf, added over the cluster.
        """
        client = self._client()
        answers = _submit_all(client, parts.leaf_sums, prepared.data, self._objective(),
                              local.trees_, scale=dict(prepared.scale), name="dpdt-leaf-sums")
        sums = _tree_reduce(client, answers, parts.add_answers, name="dpdt-leaf-sums-add")
        sums = sums.result()
        for k, tree in enumerate(local.trees_):
            means = np.ldexp(node_means(tree, sums[2 * k], sums[2 * k + 1]),
                             prepared.scale["targets"].offset_exponent)
            tree.value += means[:, np.newaxis, np.newaxis]

    def predict(self, X):
        """Return the chosen action of each sample (lazy on dask input).

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        actions : dask array or ndarray of shape (n_samples,)
            As in :attr:`actions_`; a dask array for a dask collection, computed when asked.
        """
        check_is_fitted(self, "_local")
        return self._lazy(X, "predict", None, self.actions_.dtype)

    def predict_value(self, X):
        """Return the mean training reward of each action in each sample's leaf (lazy).

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        values : dask array or ndarray of shape (n_samples, n_actions)
            Columns ordered as :attr:`actions_`.
        """
        check_is_fitted(self, "_local")
        return self._lazy(X, "predict_value", self.n_actions_, np.float64)

    def score(self, X, rewards, sample_weight=None):
        """Return the mean reward of the policy's actions on (X, rewards), computed.

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            Samples.
        rewards : dask array, dask dataframe or array-like of shape (n_samples, n_actions)
            The reward of each action for each sample, columns ordered as :attr:`actions_`
            (or named by them; a dataframe naming other actions is refused), partitioned as X
            when X is a dask collection.
        sample_weight : dask array, array-like of shape (n_samples,) or None, default=None
            Weights of the mean; None means uniform.

        Returns
        -------
        score : float
            The weighted mean of each sample's reward for the action the policy chooses.
        """
        check_is_fitted(self, "_local")
        if not is_dask_collection(X):
            return self.to_local().score(X, rewards, sample_weight)
        if isinstance(rewards, dd.DataFrame):
            order = action_columns(rewards.columns, self.actions_)
            rewards = rewards.to_dask_array(lengths=True)[:, order]
        values = self.predict_value(X)
        if any(np.isnan(values.chunks[0])):   # a dataframe's partitions: rows not yet counted
            values = values.compute_chunk_sizes()
        rewards = da.asarray(rewards).rechunk({0: values.chunks[0], 1: -1})
        if rewards.shape[1] != self.n_actions_:
            raise ValueError(f"rewards has {rewards.shape[1]} columns, the policy "
                             f"{self.n_actions_} actions")
        chosen = da.map_blocks(_chosen_rewards, values, rewards, drop_axis=1, dtype=np.float64)
        # In units of a power of two (exact), so that sums near float64's largest stay finite,
        # as the in-memory score does.
        exponent = da.frexp(da.max(da.abs(chosen)))[1]
        chosen = da.ldexp(chosen, -exponent)
        if sample_weight is None:
            mean = chosen.mean()
        else:
            weight = da.asarray(sample_weight).rechunk(chosen.chunks)
            weight = da.ldexp(weight, -da.frexp(da.max(weight))[1])
            mean = da.average(chosen, weights=weight)
        mean, exponent = dask.compute(mean, exponent)
        return float(np.ldexp(mean, exponent))
