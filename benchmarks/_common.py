"""What every benchmark script times and reports the same way."""

import statistics
import sys
import time


def median_fit_seconds(make, X, y, repeats):
    """Fit once untimed (warm-up), then return the last model and the median fit time."""
    model = make().fit(X, y)
    times = []
    for _ in range(repeats):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return model, statistics.median(times)


def verdict(ok, failures):
    """Return "PASS", or "FAIL (...)" naming the offenders."""
    return "PASS" if ok else "FAIL (" + ", ".join(failures) + ")"


def progress(iterable, desc):
    """Wrap a loop in a tqdm progress bar on stderr when tqdm is installed; else return it."""
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, leave=False, file=sys.stderr)
