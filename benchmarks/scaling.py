"""Scaling to millions of rows: depth-10 DPDT against scikit-learn's CART on KDD-Cup-like data.

Synthetic data shaped like KDD Cup 1999 (:func:`kdd_like`: a third of the columns
low-cardinality categorical codes, the rest heavy-tailed byte counts, rates with few distinct
values and clipped counts; 23 classes with KDD's very imbalanced prior; generated
deterministically) at 10^5, 10^6 and 5*10^6 rows x 40 features. At each size, depth-10 fits of
``DPDTreeClassifier`` with candidates (3,) and (3, 3) and of scikit-learn's
``DecisionTreeClassifier(max_depth=10)`` are measured, each in a fresh child process that
generates the data itself (the parent never holds it): fit seconds, peak RSS during the fit
(the high-water mark is reset just before it), the fit's increment over the RSS the data alone
takes, train accuracy and leaves. Every child imports the same modules, so their baselines agree
and peak RSS compares like with like. A growth table gives, per model, the time ratio between
consecutive sizes beside the n log n ratio, and the exponent b of t ~ n^b fitted over all sizes.

Targets (issue 6), judged at the largest size measured:

- DPDT-(3,) fit time within 3x CART's;
- DPDT-(3,) peak RSS within 1.5x CART's;
- DPDT-(3,) train accuracy >= CART's (up to 1e-9);
- DPDT-(3,) time growth between the two largest sizes no worse than n log n. A 25% allowance
  over the n log n ratio absorbs timer noise and cache effects: the smaller size's fit is the
  shorter one and fits in the caches better, which inflates the ratio without any change in
  the algorithm's order of growth.

Timings are reported, never asserted; other processes running at the same time inflate them.
At 5*10^6 rows X takes 1.6 GB and each fit runs alone, after the previous child has exited;
the whole run takes a while, since every fit's time grows at least like n.

Run ``python benchmarks/scaling.py [--sizes 100000 1000000] [--models cart dpdt-3]
[--max-bins auto|none|N] [--n-jobs N]`` from a checkout. ``--max-bins``
is passed to ``DPDTreeClassifier``; with a version of it that has no ``max_bins`` parameter
only ``--max-bins none`` (exact thresholds, that version's only mode) runs.
"""

import argparse
import gc
import inspect
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from _common import progress, verdict
from dpdt import DPDTreeClassifier

MAX_TIME_RATIO = 3.0
MAX_PEAK_RATIO = 1.5
ACCURACY_TOL = 1e-9
GROWTH_ALLOWANCE = 1.25

# model key -> (table label, estimator family, candidates)
MODELS = {
    "cart": ("CART", "cart", None),
    "dpdt-3": ("DPDT-(3,)", "dpdt", (3,)),
    "dpdt-3-3": ("DPDT-(3, 3)", "dpdt", (3, 3)),
}
TARGET = "dpdt-3"

# Class counts of KDD Cup 1999's 10% training set (smurf, neptune, normal, back, satan, ipsweep,
# portsweep, warezclient, teardrop, pod, nmap, guess_passwd, buffer_overflow, land, warezmaster,
# imap, rootkit, loadmodule, ftp_write, multihop, phf, perl, spy).
KDD_CLASS_COUNTS = (280790, 107201, 97278, 2203, 1589, 1247, 1040, 1020, 979, 264, 231, 53, 30,
                    21, 20, 12, 10, 9, 8, 7, 4, 3, 2)
# KDD's rarest classes have a handful of rows in millions; flooring their share keeps all 23
# present from about 20 000 rows, so that small runs and tests see every class too.
MIN_CLASS_SHARE = 4e-4
# Labels replaced by a draw from the prior: the noise a depth-10 tree cannot fit, without
# changing the class frequencies.
LABEL_NOISE = 0.02
# Rows generated at a time: bounds the generator's scratch memory (a few MB) whatever n is.
CHUNK_ROWS = 1 << 16
# The code run in the child process: argv[1] is this script's folder (the child imports the script
# from there, as a module), argv[2] the JSON of the measurement.
CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); from scaling import _measure; "
         "_measure(sys.argv[2])")


# ---------------------------------------------------------------------------------------------
# Data


def class_prior():
    """Return the 23 class probabilities of :func:`kdd_like`, most frequent first."""
    counts = np.asarray(KDD_CLASS_COUNTS, dtype=float)
    prior = np.maximum(counts / counts.sum(), MIN_CLASS_SHARE)
    return prior / prior.sum()


def _column_specs(rng, n_features):
    """Draw each column's kind and the parameters of its quantile function."""
    n_categorical = round(n_features / 3)
    kinds = ["categorical"] * n_categorical + list(
        rng.choice(["bytes", "rate", "count"], size=n_features - n_categorical, p=[0.3, 0.4, 0.3]))
    rng.shuffle(kinds)
    specs = []
    for kind in kinds:
        if kind == "categorical":
            # Log-uniform cardinality: mostly a few codes, sometimes dozens (KDD's protocol has 3,
            # flag 11, service 70).
            k = int(round(math.exp(rng.uniform(math.log(2), math.log(70)))))
            specs.append({"kind": kind, "cdf": np.cumsum(rng.dirichlet(np.full(k, 0.7))),
                          "codes": rng.permutation(k).astype(float)})
        elif kind == "bytes":
            specs.append({"kind": kind, "zero": rng.uniform(0.1, 0.7),
                          "alpha": rng.uniform(0.8, 2.0), "scale": 10 ** rng.uniform(1, 4)})
        elif kind == "rate":
            specs.append({"kind": kind, "zero": rng.uniform(0.2, 0.6),
                          "one": rng.uniform(0.05, 0.3), "gamma": rng.uniform(0.5, 2.0)})
        else:
            specs.append({"kind": kind, "scale": 10 ** rng.uniform(0, 2.3),
                          "shape": rng.uniform(0.5, 2.0)})
    return specs


def _quantile(spec, u):
    """Map uniforms to a column's values; non-decreasing in ``u`` except for categorical codes."""
    kind = spec["kind"]
    if kind == "categorical":
        # The codes are permuted, so an interval of u is a scattered set of codes, as a
        # categorical rule would be.
        index = np.minimum(np.searchsorted(spec["cdf"], u, side="right"), len(spec["codes"]) - 1)
        return spec["codes"][index]
    if kind == "bytes":
        # Zeros, then a Lomax (Pareto II) tail floored to integers: byte counts.
        v = np.clip((u - spec["zero"]) / (1 - spec["zero"]), 0.0, 1.0 - 1e-12)
        tail = np.floor(spec["scale"] * ((1 - v) ** (-1 / spec["alpha"]) - 1))
        return np.where(u < spec["zero"], 0.0, np.minimum(tail, 1e9))
    if kind == "rate":
        # Mass at 0 and 1, two-decimal values in between: KDD's *_rate columns.
        middle = 1 - spec["zero"] - spec["one"]
        v = np.clip((u - spec["zero"]) / middle, 0.0, 1.0)
        return np.where(u >= 1 - spec["one"], 1.0, np.round(v ** spec["gamma"], 2))
    # A Weibull quantile floored and clipped at 511, like KDD's count and srv_count.
    return np.minimum(np.floor(spec["scale"] * (-np.log1p(-u)) ** spec["shape"]), 511.0)


def _straddle(spec, low, high, at, grid=1024):
    """Fraction of ``[low, high)`` whose column value also occurs on the other side of ``at``.

    Rows there share their feature value with rows of the other side, so no threshold on the
    column can separate them: the part of a cut that no tree can learn.
    """
    u = low + (high - low) * (np.arange(grid) + 0.5) / grid
    same = _quantile(spec, u) == _quantile(spec, np.array([at]))[0]
    return min(np.sum(same & (u < at)), np.sum(same & (u >= at))) / grid


def _hidden_tree(rng, informative, specs, prior):
    """Draw the axis-aligned tree on the latent uniforms that decides the classes.

    The frequent classes are cut into a few pieces, shuffled, and the tree splits the pieces
    in two halves of about equal mass at every node; the cut on the chosen latent uniform is
    placed so that each side's probability is exactly its pieces' mass, because the uniforms
    are independent. The class frequencies are therefore exactly ``prior``, the big pieces sit
    near the root where a depth-10 tree can find them, and the rare classes deep below it.
    """
    pieces = []
    for label, p in enumerate(prior):
        k = 1 + round(2 * math.log10(p / prior.min()))
        pieces += [(label, m) for m in p * rng.dirichlet(np.ones(k))]
    pieces = [pieces[i] for i in rng.permutation(len(pieces))]
    feature, threshold, left, right, leaf = [], [], [], [], []

    def grow(items, low, high):
        node = len(leaf)
        feature.append(0)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        leaf.append(-1)
        if len(items) == 1:
            leaf[node] = items[0][0]
            return node
        masses = np.array([m for _, m in items])
        cumulative = np.cumsum(masses)[:-1]
        cut = 1 + int(np.argmin(np.abs(cumulative - masses.sum() / 2)))
        width = high - low
        at = low + width * cumulative[cut - 1] / masses.sum()
        # A cut inside a run of repeated values (a rate's zeros, a category) is unlearnable
        # noise beyond the label noise: cut where the values change, on one of the columns
        # doing that best, preferring the widest intervals so none is sliced too thin.
        straddle = np.array([_straddle(specs[c], low[j], high[j], at[j])
                             for j, c in enumerate(informative)])
        weight = width * (straddle <= straddle.min() + 0.005)
        j = int(rng.choice(len(width), p=weight / weight.sum()))
        feature[node], threshold[node] = int(informative[j]), float(at[j])
        low_right, high_left = low.copy(), high.copy()
        low_right[j] = high_left[j] = at[j]
        left[node] = grow(items[:cut], low, high_left)
        right[node] = grow(items[cut:], low_right, high)
        return node

    k = len(informative)
    grow(pieces, np.zeros(k), np.ones(k))
    return tuple(np.asarray(a) for a in (feature, threshold, left, right, leaf))


def kdd_like(n_samples, n_features=40, seed=0):
    """Synthetic classification data shaped like KDD Cup 1999.

    Every column is a fixed monotone function of a uniform latent variable: about a third are
    low-cardinality categorical codes (2 to 70 values, skewed frequencies, stored as floats);
    the others are byte counts (many zeros, heavy Pareto tail), rates in [0, 1] with two
    decimals and mass at 0 and 1, or counts clipped at 511 - all with many repeated values.
    The label is decided by a hidden axis-aligned tree on the latent variables of a few
    columns (1 in 4, at most 8), cutting them where possible where the column's value changes,
    then 2% of the labels are redrawn from the prior. There are
    23 classes with the prior of KDD's 10% training set (57%, 22%, 20%, then a long tail), the
    rarest floored at 0.04%; a depth-10 tree learns the frequent classes' regions, not all of
    the rare ones.

    Rows are generated in chunks of 65 536, each from its own seed derived from ``seed`` and
    its index, so that the scratch memory stays a few MB whatever ``n_samples`` is and the
    first rows of a large sample are the rows of a smaller one.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    n_features : int, default=40
        Number of columns.
    seed : int, default=0
        Seed of the columns' distributions, the hidden tree and the rows.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64, C-contiguous
        The features.
    y : ndarray of shape (n_samples,), dtype int64
        Class labels 0 to 22, most frequent first.
    """
    n_samples, n_features = int(n_samples), int(n_features)
    if n_samples < 0 or n_features < 1:
        raise ValueError("n_samples must be >= 0 and n_features >= 1")
    structure = np.random.default_rng(np.random.SeedSequence([seed, 0]))
    specs = _column_specs(structure, n_features)
    informative = structure.choice(n_features, size=min(8, max(1, n_features // 4)),
                                   replace=False)
    prior = class_prior()
    feature, threshold, left, right, leaf = _hidden_tree(structure, informative, specs, prior)
    prior_cdf = np.cumsum(prior)

    X = np.empty((n_samples, n_features))
    y = np.empty(n_samples, dtype=np.int64)
    for chunk, start in enumerate(range(0, n_samples, CHUNK_ROWS)):
        rng = np.random.default_rng(np.random.SeedSequence([seed, 1, chunk]))
        # Always a full chunk of draws, truncated after: the rows then do not depend on n.
        u = rng.random((CHUNK_ROWS, n_features))
        noisy = rng.random(CHUNK_ROWS) < LABEL_NOISE
        redrawn = np.minimum(np.searchsorted(prior_cdf, rng.random(CHUNK_ROWS)), len(prior) - 1)
        m = min(CHUNK_ROWS, n_samples - start)
        u, noisy, redrawn = u[:m], noisy[:m], redrawn[:m]
        for j, spec in enumerate(specs):
            X[start:start + m, j] = _quantile(spec, u[:, j])
        node = np.zeros(m, dtype=np.intp)
        rows = np.arange(m)
        while True:
            inner = leaf[node] < 0
            if not inner.any():
                break
            go_left = u[rows, feature[node]] < threshold[node]
            node = np.where(inner, np.where(go_left, left[node], right[node]), node)
        y[start:start + m] = np.where(noisy, redrawn, leaf[node])
    return X, y


# ---------------------------------------------------------------------------------------------
# One measurement, in a child process


def _status_kb(field):
    """Return a ``/proc/self/status`` field in kB, or None where there is no /proc."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _lifetime_peak_kb():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform == "darwin" else peak  # bytes on macOS, kB on Linux


def _reset_peak():
    """Reset the kernel's RSS high-water mark (VmHWM); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return _status_kb("VmHWM") is not None


def _accuracy(model, X, y, rows=1_000_000):
    # By slices: predicting all rows at once would build an n x 23 probability array.
    hits = sum(int(np.sum(model.predict(X[i:i + rows]) == y[i:i + rows]))
               for i in range(0, len(y), rows))
    return hits / len(y)


def _measure(spec_json):
    """Generate the data, fit one model, print its measurements as one line of JSON."""
    spec = json.loads(spec_json)
    X, y = kdd_like(spec["n"], spec["features"], spec["seed"])
    params = dict(spec["params"])
    if spec["family"] == "cart":
        model = DecisionTreeClassifier(**params)
    else:
        params["candidates"] = tuple(params["candidates"])
        model = DPDTreeClassifier(**params)
    gc.collect()
    before = _status_kb("VmRSS")
    if before is None:
        before = _lifetime_peak_kb()
    reset = _reset_peak()
    result = {}
    start = time.perf_counter()
    try:
        model.fit(X, y)
    except Exception as exc:  # reported as the row's result, e.g. MemoryError from max_states
        result["error"] = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    peak = _status_kb("VmHWM") if reset else _lifetime_peak_kb()
    result.update(seconds=seconds, rss_before_mb=before / 1024, peak_mb=peak / 1024,
                  peak_is_lifetime=not reset)
    if "error" not in result:
        result.update(accuracy=_accuracy(model, X, y), n_leaves=int(model.get_n_leaves()))
    print(json.dumps(result), flush=True)


def _run_child(spec):
    """Measure one (size, model) in a fresh interpreter; a crash becomes an ``error`` entry."""
    proc = subprocess.run([sys.executable, "-c", CHILD, str(Path(__file__).resolve().parent),
                           json.dumps(spec)],
                          capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode == 0 and lines:
        return json.loads(lines[-1])
    err = proc.stderr.strip().splitlines()
    return {"error": f"exit status {proc.returncode}" + (f": {err[-1]}" if err else "")}


# ---------------------------------------------------------------------------------------------
# Report


def _accepts_max_bins():
    return "max_bins" in inspect.signature(DPDTreeClassifier).parameters


def _max_bins(text):
    if text.lower() == "none":
        return None
    if text.lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        message = f"expected auto, none or an integer, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None


def _params(args, family, candidates):
    if family == "cart":
        return {"max_depth": args.depth, "random_state": 0}
    params = {"max_depth": args.depth, "splitter": "cart", "candidates": list(candidates),
              "n_jobs": args.n_jobs}
    # Exact thresholds are all an estimator without max_bins can do, so None needs no parameter
    # there; main() refuses any other value on such an estimator.
    if args.max_bins is not None or _accepts_max_bins():
        params["max_bins"] = args.max_bins
    return params


def _fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def _ratio(a, b):
    return a / b if a is not None and b else None


def _results_table(sizes, models, results):
    lines = ["| n | model | fit (s) | time / CART | peak RSS (MB) | peak / CART "
             "| fit increment (MB) | train accuracy | leaves |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        cart = results.get((n, "cart"), {})
        for key in models:
            r = results[(n, key)]
            label = MODELS[key][0]
            if "error" in r:
                lines.append(f"| {n} | {label} | error: {r['error']} | | | | | | |")
                continue
            ok_cart = "error" not in cart
            time_ratio = _ratio(r["seconds"], cart.get("seconds")) if ok_cart else None
            peak_ratio = _ratio(r["peak_mb"], cart.get("peak_mb")) if ok_cart else None
            star = "*" if r["peak_is_lifetime"] else ""
            lines.append(
                f"| {n} | {label} | {r['seconds']:.2f} | {_fmt(time_ratio, '.2f')} "
                f"| {r['peak_mb']:.0f}{star} | {_fmt(peak_ratio, '.2f')} "
                f"| {r['peak_mb'] - r['rss_before_mb']:.0f} | {r['accuracy']:.4f} "
                f"| {r['n_leaves']} |")
    return "\n".join(lines)


def _n_log_n(n):
    return n * math.log(n)


def _exponent(ns, ts):
    """Least-squares slope of log t against log n."""
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def _growth_tables(sizes, models, results):
    lines = ["| model | from n | to n | time ratio | n log n ratio | time ratio / n log n ratio |",
             "|---|---:|---:|---:|---:|---:|"]
    for key in models:
        for n1, n2 in zip(sizes[:-1], sizes[1:], strict=True):
            r1, r2 = results[(n1, key)], results[(n2, key)]
            if "error" in r1 or "error" in r2:
                lines.append(f"| {MODELS[key][0]} | {n1} | {n2} | - | - | - |")
                continue
            ratio, reference = r2["seconds"] / r1["seconds"], _n_log_n(n2) / _n_log_n(n1)
            lines.append(f"| {MODELS[key][0]} | {n1} | {n2} | {ratio:.2f} | {reference:.2f} "
                         f"| {ratio / reference:.2f} |")
    reference = _exponent(sizes, [_n_log_n(n) for n in sizes])
    lines += ["", "| model | exponent b of t ~ n^b | n log n's b over the same sizes |",
              "|---|---:|---:|"]
    for key in models:
        ok = [n for n in sizes if "error" not in results[(n, key)]]
        b = _exponent(ok, [results[(n, key)]["seconds"] for n in ok]) if len(ok) > 1 else None
        lines.append(f"| {MODELS[key][0]} | {_fmt(b, '.2f')} | {reference:.2f} |")
    return "\n".join(lines)


def summarise(sizes, models, results):
    """Return the verdict lines of the targets.

    Parameters
    ----------
    sizes : list of int
        The sizes measured, increasing.
    models : list of str
        The keys of :data:`MODELS` measured.
    results : dict
        ``(n, model key) -> measurements`` as returned by a child process.

    Returns
    -------
    lines : list of str
        One line per target, ending in PASS, FAIL (...) or why it was skipped.
    """
    label = MODELS[TARGET][0]
    n = sizes[-1]
    lines = []
    if TARGET not in models or "cart" not in models:
        lines.append(f"targets against CART at n={n}: skipped ({label} and CART are not both "
                     "among the models)")
    elif "error" in results[(n, "cart")]:
        lines.append(f"targets against CART at n={n}: skipped (CART's fit failed)")
    else:
        r, cart = results[(n, TARGET)], results[(n, "cart")]
        failed = "error" in r
        checks = [
            (f"{label} fit time <= {MAX_TIME_RATIO:g}x CART's",
             lambda: r["seconds"] <= MAX_TIME_RATIO * cart["seconds"],
             lambda: f"{r['seconds'] / cart['seconds']:.2f}x"),
            (f"{label} peak RSS <= {MAX_PEAK_RATIO:g}x CART's",
             lambda: r["peak_mb"] <= MAX_PEAK_RATIO * cart["peak_mb"],
             lambda: f"{r['peak_mb'] / cart['peak_mb']:.2f}x"),
            (f"{label} train accuracy >= CART's",
             lambda: r["accuracy"] >= cart["accuracy"] - ACCURACY_TOL,
             lambda: f"{r['accuracy']:.4f} < {cart['accuracy']:.4f}"),
        ]
        for text, ok, offender in checks:
            if failed:
                lines.append(f"at n={n}: {text}: " + verdict(False, ["fit failed"]))
            else:
                good = ok()
                lines.append(f"at n={n}: {text}: " + verdict(good, [] if good else [offender()]))
    if TARGET not in models or len(sizes) < 2:
        lines.append(f"{label} time growth no worse than n log n: skipped (needs {label} at two "
                     "sizes or more)")
    else:
        n1, n2 = sizes[-2], sizes[-1]
        text = (f"{label} time growth from n={n1} to n={n2} <= {GROWTH_ALLOWANCE:g}x the "
                "n log n ratio")
        r1, r2 = results[(n1, TARGET)], results[(n2, TARGET)]
        if "error" in r1 or "error" in r2:
            lines.append(f"{text}: " + verdict(False, ["fit failed"]))
        else:
            ratio, reference = r2["seconds"] / r1["seconds"], _n_log_n(n2) / _n_log_n(n1)
            good = ratio <= GROWTH_ALLOWANCE * reference
            lines.append(f"{text}: " + verdict(good, [f"{ratio:.2f} vs {reference:.2f}"]))
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
    parser = argparse.ArgumentParser(prog="scaling", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 5_000_000],
                        help="numbers of rows (default: 100000 1000000 5000000)")
    parser.add_argument("--features", type=int, default=40)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                        help="models to fit (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data")
    parser.add_argument("--max-bins", type=_max_bins, default="auto",
                        help="DPDT's max_bins: auto (default), none (exact thresholds) or an int")
    parser.add_argument("--n-jobs", type=int, default=1, help="DPDT's n_jobs (default: 1)")
    args = parser.parse_args(argv)
    if min(args.sizes) < 2 or args.features < 1 or args.depth < 1:
        parser.error("--sizes must be >= 2, --features and --depth >= 1")
    if args.max_bins is not None and not _accepts_max_bins() and any(
            MODELS[key][1] == "dpdt" for key in args.models):
        parser.error("this dpdt's DPDTreeClassifier has no max_bins parameter: "
                     "use --max-bins none (exact thresholds)")
    sizes = sorted(set(args.sizes))
    models = [key for key in MODELS if key in args.models]

    results = {}
    for n, key in progress([(n, key) for n in sizes for key in models], "scaling"):
        label, family, candidates = MODELS[key]
        spec = {"n": n, "features": args.features, "seed": args.seed, "family": family,
                "params": _params(args, family, candidates)}
        results[(n, key)] = _run_child(spec)

    passed = "max_bins" in _params(args, "dpdt", (3,))
    max_bins = repr(args.max_bins) if passed else "not passed (exact thresholds)"
    print(f"KDD-like data, {args.features} features, 23 classes, seed {args.seed}; depth "
          f"{args.depth}; DPDT max_bins={max_bins}, n_jobs={args.n_jobs}; one fit per row, "
          "each in a fresh process\n")
    print("### fits\n")
    print(_results_table(sizes, models, results))
    if any(r.get("peak_is_lifetime") for r in results.values()):
        print("\n\\* the process's lifetime peak: its high-water mark could not be reset")
    if len(sizes) > 1:
        print("\n### growth with n\n")
        print(_growth_tables(sizes, models, results))
    print("\n### targets\n")
    for line in summarise(sizes, models, results):
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
