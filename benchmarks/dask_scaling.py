"""Data-parallel fits on Dask (issue 34): time, memory and bytes moved, against the local fit.

A ``LocalCluster`` of ``--workers`` worker processes (one thread each) with ``--memory-limit``
each. The data are generated on the workers, float32, in partitions of ``--partition-rows``
rows (persisted there before the fits with ``--persist``; else each pass of a fit generates
the partitions it reads, as it would read them from files): ``--size`` rows of ``--features``
features (default 15 million x 20, 1.2 GB, more than one worker's default limit of 1 GB),
labelled by a noisy function of three features (4 classes). The driver never holds them.

For each depth (``--depths``) the table reports:

- ``fit s``: the wall-clock time of ``DaskDPDTreeClassifier(max_depth=d, max_bins=255).fit``
  (the preparation passes, the binning, and the rounds of the search);
- ``rounds``, ``states``: the rounds of histograms and the states they asked for;
- ``driver s``: the time the driver spent in the core's search (``RemoteFit.run`` and
  ``add``), ``cluster s``: the time it waited for the rounds' summed histograms;
- ``hist MB/round``: the summed histograms one round brings to the driver (mean, and max),
  against the data's size; the bytes moved between workers in a round are at most the
  partitions' count times that (each partition's answer travels once up the reduction tree);
- ``peak MB``: the high-water mark of RSS during the fit (``VmHWM``, reset just before it), of
  the driver and of each worker (the data persisted before the fit are in the workers' peaks),
  and ``driver +MB`` the driver's peak above its RSS just before the fit (what the fit added:
  the interpreter, numpy, scikit-learn and the Dask client are in the peak, not in this);
- ``local s``: the local binned fit (``DPDTreeClassifier(max_bins=255)``) on the same data in
  this process, when ``--local`` is given and the data fit in it, and whether its front equals
  the distributed one (it must when every row is in the binning sample, at most
  ``_binning.BINNING_SAMPLES`` rows; beyond, the two samples differ and so may the edges).

Timings vary by 15% or more when other processes run. The full size is meant for a quiet
machine with a few GB free; ``--size 200000`` runs in well under a minute.

Run ``python benchmarks/dask_scaling.py [--size N] [--features P] [--depths 6 8]
[--workers 2] [--memory-limit 1GB] [--partition-rows R] [--local]`` from a checkout.
"""

import argparse
import time

import numpy as np


def _status_kb(field):
    """Return a field of /proc/self/status in kB (None off Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak():
    """Reset this process's RSS high-water mark (Linux); return whether it could be reset."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def peak_mb():
    """Return this process's RSS high-water mark in MB (None off Linux)."""
    kb = _status_kb("VmHWM")
    return None if kb is None else kb / 1024


def make_data(n, p, partition_rows, seed=0):
    """Return lazy dask arrays (X float32, y int) made on the workers, in row partitions."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n, p), chunks=(partition_rows, p), dtype=np.float32)
    noise = rng.random(n, chunks=partition_rows) < 0.1
    y = (X[:, 0] > 0).astype(np.int8) + 2 * (X[:, 1] * X[:, 2] > 0.1).astype(np.int8)
    y = da.where(noise, (X[:, 3] > 0).astype(np.int8) * 3, y)
    return X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=15_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--depths", type=int, nargs="+", default=[6, 8])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--partition-rows", type=int, default=500_000)
    parser.add_argument("--persist", action="store_true",
                        help="hold the generated data in the workers' memory before the fits "
                             "(else each pass of a fit generates the partitions it reads)")
    parser.add_argument("--local", action="store_true",
                        help="also fit locally (the data are then made in this process)")
    args = parser.parse_args(argv)

    import dask
    import distributed

    from dpdt import DPDTreeClassifier
    from dpdt.dask import DaskDPDTreeClassifier

    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, memory_limit=args.memory_limit,
                                       dashboard_address=":0")
    client = distributed.Client(cluster)
    X, y = make_data(args.size, args.features, args.partition_rows)
    if args.persist:
        X, y = client.persist([X, y])
        distributed.wait([X, y])
    data_mb = X.nbytes / 2**20
    print(f"{args.size} rows x {args.features} float32 features = {data_mb:.0f} MB in "
          f"{X.numblocks[0]} partitions on {args.workers} workers of {args.memory_limit}")

    # A first tiny fit, so that no measured fit pays for the workers' first imports.
    DaskDPDTreeClassifier(max_depth=2, max_bins=255, client=client).fit(X[:1000], y[:1000])
    header = (f"{'depth':>5} {'fit s':>7} {'rounds':>6} {'states':>7} {'driver s':>8} "
              f"{'cluster s':>9} {'hist MB/round':>14} {'of data':>8} {'peak MB driver (+MB)':>20} "
              f"{'peak MB workers':>16} {'local s':>8} {'same':>5}")
    print(header)
    rows = []
    for depth in args.depths:
        params = dict(max_depth=depth, max_bins=255)
        est = DaskDPDTreeClassifier(**params, client=client)
        client.run(reset_peak)
        reset_peak()
        before = _status_kb("VmRSS") / 1024
        start = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - start
        driver_peak = peak_mb()
        worker_peaks = sorted(client.run(peak_mb).values())
        log = est._round_log
        answer = [r["answer_bytes"] / 2**20 for r in log]
        rows.append((depth, seconds, log, answer, (driver_peak, driver_peak - before),
                     worker_peaks, est.pareto_front_))
        print(f"(depth {depth}: {seconds:.2f} s, {len(log)} rounds; the local fit follows)",
              flush=True)
    # The local fits last, so that the driver's peaks above never held the data; computed in
    # this process (dask's compute would concatenate them on a worker, beyond its memory).
    local_data = dask.compute(X, y, scheduler="threads") if args.local else None
    for depth, seconds, log, answer, driver_peak, worker_peaks, front in rows:
        local_s, same = "", ""
        if local_data is not None:
            start = time.perf_counter()
            local = DPDTreeClassifier(max_depth=depth, max_bins=255).fit(*local_data)
            local_s = f"{time.perf_counter() - start:.2f}"
            same = str(bool(np.array_equal(local.pareto_front_, front)))
        print(f"{depth:>5} {seconds:>7.2f} {len(log):>6} {sum(r['states'] for r in log):>7} "
              f"{sum(r['driver_seconds'] for r in log):>8.2f} "
              f"{sum(r['cluster_seconds'] for r in log):>9.2f} "
              f"{np.mean(answer):>6.2f} ({max(answer):>5.2f}) "
              f"{np.mean(answer) / data_mb:>8.1e} "
              f"{f'{driver_peak[0]:.0f} (+{driver_peak[1]:.0f})':>20} "
              f"{' '.join(f'{p:.0f}' for p in worker_peaks):>16} {local_s:>8} {same:>5}")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
