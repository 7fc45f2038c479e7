"""Scaling: a size x depth grid of DPDT's fit time against CART, LightGBM's one tree and the floor.

Three kinds of data, each its own table:

- ``classification``: scikit-learn's ``make_classification(n_features=20, n_informative=10,
  n_redundant=4, n_classes=3, n_clusters_per_class=3, flip_y=0.05, random_state=0)`` (issue 31's
  data set), dense Gaussian clusters with continuous features;
- ``kdd``: :func:`kdd_like`, shaped like KDD Cup 1999 (40 columns, a third of them categorical
  codes, the rest with many repeated values; 23 classes with KDD's very imbalanced prior);
- ``real``: the bundled ``dpdt.datasets`` classification sets in their own train/test splits,
  scikit-learn's bundled digits (1 797 images, 64 pixel features, 10 classes; 80/20 split), and
  ``photos``, the largest real set that can be made without a download: the 546 560 pixels of
  scikit-learn's two bundled sample photographs (``china.jpg``, ``flower.jpg``), each described
  by its red, green and blue levels and its row and column, labelled with the photograph it
  comes from (80/20 split). The task is made up, but the feature values are real: 256 levels,
  heavily repeated and spatially correlated, the regime of binned search, at a size the other
  real sets do not reach. The real sets are fitted at one depth (``--real-depth``, 5).

For the synthetic sets, ``n`` is the number of training rows (``--sizes``; n + n/4 rows are
generated and a fifth of them held out for the test accuracy) and every n is crossed with every
depth (``--depths``). In each cell, one after the other in the same process: scikit-learn's
``DecisionTreeClassifier(max_depth=d)``, LightGBM's ``LGBMClassifier(n_estimators=1,
max_depth=d, num_leaves=2**d, n_jobs=1)`` (one boosting round: one tree per class, from a
single gradient step, so its accuracy is not a tree's best), DPDT's default
``DPDTreeClassifier(max_depth=d)`` with ``n_jobs=1`` and with ``n_jobs=-1``, and the DPDT
configurations of ``--configs``. Each data set and size is measured in a fresh child process
that makes the data itself (the parent never holds it) and fits a tiny problem with every model
first, so that no fit pays for a first call; the kernel's high-water mark of RSS is reset just
before every fit, so "peak RSS" is the process's peak during that fit (interpreter and data
included).

Columns: fit seconds (one fit, or the median of ``--repeats``), the ratio to CART's fit in the
same cell, the floor and the fit's ratio to it, train and test accuracy, peak RSS. The floor is
the time of the passes over the data that any search of the candidate set the fit actually
evaluated must make: every state the search solved is read at least once per feature (a
histogram pass), so the floor is ``stats_["sample_reads"]`` (the samples of the solved states,
summed) x n_features x the seconds per element of one tight histogram pass, ``np.bincount``
over a uint8 code column with float64 weights, measured in the same process on as many rows as
the training set. CART's floor is the same price of the nodes it split (their samples summed,
from ``tree_``): how close a greedy fit gets to its own floor says how tight the floor is.

Targets (issue 31; also issue 6's, folded into the grid), reported, never asserted:

- DPDT's default, one thread, fits in at most 3x CART's time in every cell;
- with ``n_jobs=-1`` it is at least 1.8x faster than with one thread from 50 000 training rows
  on (issue 31 sets it on 2 cores);
- its test accuracy against CART's: the mean difference and where it is higher or lower;
- its train accuracy at least CART's in every cell, and its peak RSS at most 1.5x CART's at
  each synthetic set's largest size (issue 6).

Timings vary by 15% or more when other processes run at the same time. The default run (sizes
1 000 to 100 000, depths 3 to 8, all three kinds of data) is meant to take under about 15 minutes
on 2 cores; ``--sizes 1000 10000 100000 1000000`` adds the million-row cells, which take much
longer (at least 10x the 100 000-row ones; the KDD-like set's X alone is 400 MB there).
Issue 6's measurement (depth 10, candidates (3,)) is ``--depths 10 --sizes 1000000
--datasets kdd --configs '{"(3,)": {"splitter": "cart", "candidates": [3]}}'``.

Run ``python benchmarks/scaling.py [--sizes 1000 10000 100000] [--depths 3 4 5 6 8]
[--datasets classification kdd real] [--models cart lightgbm default default-parallel]
[--configs JSON] [--repeats N]`` from a checkout.
"""

import argparse
import gc
import importlib.util
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import progress, verdict

MAX_TIME_RATIO = 3.0
MIN_PARALLEL_SPEEDUP = 1.8
PARALLEL_FROM_ROWS = 50_000
MAX_PEAK_RATIO = 1.5
ACCURACY_TOL = 1e-9

# Model key -> (table label, estimator family, parameters beside max_depth). LightGBM's
# parameters follow the depth (see _estimator).
MODELS = {
    "cart": ("CART", "cart", {}),
    "lightgbm": ("LightGBM, 1 tree", "lightgbm", {"n_estimators": 1, "n_jobs": 1, "verbose": -1}),
    "default": ("DPDT default", "dpdt", {"n_jobs": 1}),
    "default-parallel": ("DPDT default, n_jobs=-1", "dpdt", {"n_jobs": -1}),
}
DEFAULT, PARALLEL = "default", "default-parallel"

SYNTHETIC = ("classification", "kdd")
KINDS = (*SYNTHETIC, "real")
# The data set, at every size.
CLASSIFICATION = {"n_features": 20, "n_informative": 10, "n_redundant": 4, "n_classes": 3,
                  "n_clusters_per_class": 3, "flip_y": 0.05}
KDD_FEATURES = 40
# The rows of the tiny fit that warms every model up before the measured ones.
WARM_UP_ROWS = 200
# Each histogram pass the floor is priced with reads at least this many elements in all, so that
# the per-call overhead of small passes averages out of the minimum.
CALIBRATION_ELEMENTS = 4_000_000
# The code run in the child process: argv[1] is this script's folder (the child imports the script
# from there, as a module), argv[2] the JSON of the measurement.
CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); from scaling import _measure; "
         "_measure(sys.argv[2])")


# ---------------------------------------------------------------------------------------------
# Data


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




def _split(X, y, n_test, seed):
    from sklearn.model_selection import train_test_split

    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=n_test, random_state=seed)
    return {"X_train": X_train, "y_train": y_train, "X_test": X_test, "y_test": y_test}


def classification(n, seed=0):
    """Issue 31's ``make_classification`` data: ``n`` training rows and ``n // 4`` test rows.

    Parameters
    ----------
    n : int
        Number of training rows.
    seed : int, default=0
        ``random_state`` of the generator and of the split.

    Returns
    -------
    data : dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test``.
    """
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n + n // 4, random_state=seed, **CLASSIFICATION)
    return _split(X, y, n // 4, seed)


def kdd(n, seed=0, n_features=KDD_FEATURES):
    """:func:`kdd_like` data: its first ``n`` rows train, the next ``n // 4`` test.

    The rows are independent draws, so the first ones are as good a training set as any.
    """
    X, y = kdd_like(n + n // 4, n_features, seed)
    return {"X_train": X[:n], "y_train": y[:n], "X_test": X[n:], "y_test": y[n:]}


def photos(seed=0):
    """The pixels of scikit-learn's two sample photographs, labelled by photograph (80/20 split).

    Features: red, green, blue, row, column. Needs Pillow, as scikit-learn's
    ``load_sample_images`` does.
    """
    from sklearn.datasets import load_sample_images

    X, y = [], []
    for label, image in enumerate(load_sample_images().images):
        rows, columns = np.indices(image.shape[:2])
        X.append(np.column_stack([image.reshape(-1, 3), rows.ravel(), columns.ravel()]))
        y.append(np.full(rows.size, label))
    X, y = np.vstack(X).astype(np.float64), np.concatenate(y)
    return _split(X, y, len(y) // 5, seed)


def digits(seed=0):
    """Scikit-learn's bundled digits, 8x8 images of 10 digits (80/20 split)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return _split(X.astype(np.float64), y, len(y) // 5, seed)


def real_names():
    """Return the names of the real data sets: the bundled ones, then digits and photos."""
    from dpdt import datasets

    return [*datasets.list_datasets("classification"), "digits", "photos"]


def load(name, n=None, seed=0):
    """Return one data set as a dict of train and test arrays.

    Parameters
    ----------
    name : str
        ``"classification"`` or ``"kdd"`` (synthetic, ``n`` training rows), or one of
        :func:`real_names`.
    n : int or None, default=None
        Training rows of a synthetic set; ignored for the real ones.
    seed : int, default=0
        Seed of the synthetic data and of the real sets' 80/20 splits (the bundled dpdt sets
        keep their own splits).

    Returns
    -------
    data : dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test``.
    """
    if name == "classification":
        return classification(n, seed)
    if name == "kdd":
        return kdd(n, seed)
    if name == "digits":
        return digits(seed)
    if name == "photos":
        return photos(seed)
    from dpdt import datasets

    bunch = datasets.load(name)
    return {key: getattr(bunch, key) for key in ("X_train", "y_train", "X_test", "y_test")}


# ---------------------------------------------------------------------------------------------
# One data set at one size, in a child process


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


def histogram_seconds_per_element(n, seed=0):
    """Seconds per element of one tight histogram pass over ``n`` rows: the floor's price.

    The pass is ``np.bincount`` of a uint8 code column (256 bins) with float64 weights, what
    one feature's histogram of a state's samples takes; the fastest of several passes, repeated
    until about :data:`CALIBRATION_ELEMENTS` elements were read, so that a cold or interrupted
    pass does not set the price.

    Parameters
    ----------
    n : int
        Elements per pass, the training set's rows.
    seed : int, default=0
        Seed of the codes and weights.

    Returns
    -------
    seconds : float
        The fastest pass's time divided by ``n``.
    """
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 256, size=n, dtype=np.uint8)
    weights = rng.random(n)
    best = math.inf
    for _ in range(max(5, CALIBRATION_ELEMENTS // n)):
        start = time.perf_counter()
        np.bincount(codes, weights=weights, minlength=256)
        best = min(best, time.perf_counter() - start)
    return best / n


def sample_reads(model):
    """Samples of the states (DPDT) or split nodes (a scikit-learn tree) a fit searched, summed.

    None for a model that reports neither (LightGBM), or a DPDT without the counter.
    """
    stats = getattr(model, "stats_", None)
    if stats is not None:
        return stats.get("sample_reads")
    tree = getattr(model, "tree_", None)
    if tree is None:
        return None
    return int(tree.n_node_samples[tree.children_left >= 0].sum())


def _estimator(family, depth, params):
    if family == "cart":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=depth, **{"random_state": 0, **params})
    if family == "lightgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(max_depth=depth, num_leaves=2 ** depth, **params)
    from dpdt import DPDTreeClassifier

    # Seeded, every run fits the same tree: CART's feature order breaks ties between equal
    # splits, and DPDT's bins come from a sample of the rows beyond 200 000.
    return DPDTreeClassifier(max_depth=depth, **{"random_state": 0, **params})


def _fit(make, X, y, repeats):
    """Fit ``repeats`` times; return the last model, the median time and the largest peak."""
    times, peak, before, lifetime = [], 0.0, None, False
    for _ in range(repeats):
        model = make()
        gc.collect()
        rss = _status_kb("VmRSS")
        before = rss if rss is not None else _lifetime_peak_kb()
        reset = _reset_peak()
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
        peak = max(peak, _status_kb("VmHWM") if reset else _lifetime_peak_kb())
        lifetime = lifetime or not reset
    return model, statistics.median(times), {"rss_before_mb": before / 1024, "peak_mb": peak / 1024,
                                             "peak_is_lifetime": lifetime}


def _measure(spec_json):
    """Make one data set, fit every model at every depth, print one line of JSON per fit.

    The first line describes the data set and the floor's price; a fit that raises is a line
    with its ``error``.
    """
    spec = json.loads(spec_json)
    data = load(spec["data"], spec["n"], spec["seed"])
    X, y, X_test, y_test = (data[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    n, p = X.shape
    element = histogram_seconds_per_element(n)
    print(json.dumps({"n": n, "features": p, "classes": len(np.unique(y)),
                      "element_seconds": element}), flush=True)
    for _, family, params in spec["models"]:
        try:
            _estimator(family, 2, params).fit(X[:WARM_UP_ROWS], y[:WARM_UP_ROWS])
        except Exception:  # the measured fit reports it
            pass
    for depth in spec["depths"]:
        for key, family, params in spec["models"]:
            result = {"depth": depth, "model": key}
            try:
                def make(f=family, d=depth, q=params):
                    return _estimator(f, d, q)

                model, seconds, memory = _fit(make, X, y, spec["repeats"])
            except Exception as exc:  # e.g. MemoryError: the row's result
                result["error"] = f"{type(exc).__name__}: {exc}"
            else:
                reads = sample_reads(model)
                result.update(seconds=seconds, **memory,
                              floor=None if reads is None else reads * p * element,
                              train_accuracy=_accuracy(model, X, y),
                              test_accuracy=_accuracy(model, X_test, y_test))
                # A search a limit stopped (max_states, the memory budget) returns a tree: the
                # row says so, as it said MemoryError before.
                stopped_by = getattr(model, "stats_", {}).get("stopped_by")
                if stopped_by is not None:
                    result["stopped_by"] = stopped_by
            print(json.dumps(result), flush=True)


def _run_child(spec, tick):
    """Measure one data set in a fresh interpreter; call ``tick()`` after each line it prints.

    Returns
    -------
    lines : list of dict
        What the child printed, first its data set's description.
    error : str or None
        Why the child stopped early (its exit status and last line of stderr), or None.
    """
    with tempfile.TemporaryFile("w+") as stderr:
        command = [sys.executable, "-c", CHILD, str(Path(__file__).resolve().parent),
                   json.dumps(spec)]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
        lines = []
        for line in proc.stdout:
            if line.startswith("{"):   # anything else a library prints is not a measurement
                lines.append(json.loads(line))
                tick()
        status = proc.wait()
        stderr.seek(0)
        tail = stderr.read().strip().splitlines()
    if status == 0:
        return lines, None
    return lines, f"exit status {status}" + (f": {tail[-1]}" if tail else "")


# ---------------------------------------------------------------------------------------------
# Report


def _fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def _ratio(a, b):
    return a / b if a is not None and b else None


def _seconds(value):
    return _fmt(value, ".3f" if value is not None and value < 100 else ".0f")


def _where(row):
    size = f" n={row['n']}" if row["data"] in SYNTHETIC else ""
    return f"{row['data']}{size} depth {row['depth']}"


def _index(rows):
    return {(r["data"], r["n"], r["depth"], r["model"]): r for r in rows}


def _cells(rows):
    """The (data, n, depth) cells of ``rows``, in their order."""
    return list(dict.fromkeys((r["data"], r["n"], r["depth"]) for r in rows))


def results_table(rows, labels, real=False):
    """Return the markdown table of one data set's fits (``real``: of all the real sets).

    Parameters
    ----------
    rows : list of dict
        Measurements, each with ``data``, ``n``, ``depth``, ``model`` and either the fit's
        ``seconds``, ``floor``, accuracies and memory or an ``error``.
    labels : dict
        Model key -> label.
    real : bool, default=False
        Start each line with the data set's name and its number of features.

    Returns
    -------
    table : str
    """
    first = "| data set | features | n |" if real else "| n |"
    lines = [first + " depth | model | fit (s) | / CART | floor (s) | fit / floor "
             "| train accuracy | test accuracy | peak RSS (MB) |",
             "|" + "---|" * (3 if real else 1) + "---:|---|" + "---:|" * 7]
    by = _index(rows)
    for r in rows:
        start = f"| {r['data']} | {r['features']} | {r['n']} |" if real else f"| {r['n']} |"
        start += f" {r['depth']} | {labels[r['model']]} |"
        if "error" in r:
            lines.append(start + f" error: {r['error']} |" + " |" * 7)
            continue
        cart = by.get((r["data"], r["n"], r["depth"], "cart"), {})
        star = "*" if r["peak_is_lifetime"] else ""
        to_cart = _ratio(r["seconds"], cart.get("seconds"))
        lines.append(
            start + f" {_seconds(r['seconds'])} | {_fmt(to_cart, '.2f')} "
            f"| {_fmt(r['floor'], '.3g')} | {_fmt(_ratio(r['seconds'], r['floor']), '.1f')} "
            f"| {r['train_accuracy']:.4f} | {r['test_accuracy']:.4f} | {r['peak_mb']:.0f}{star} |")
    return "\n".join(lines)


def _pairs(rows, key, other, keep=lambda cell: True):
    """``(cell's first row, row of key, row of other)`` for every cell that has both models."""
    by = _index(rows)
    out = []
    for cell in _cells(rows):
        a, b = by.get((*cell, key)), by.get((*cell, other))
        if a is not None and b is not None and keep(cell):
            out.append((a, b))
    return out


def _ok(*rows):
    return all("error" not in r for r in rows)


def summarise(rows):
    """Return the lines of the targets: PASS, FAIL (...) or why skipped; and two figures.

    Parameters
    ----------
    rows : list of dict
        Every measurement of the run (see :func:`results_table`).

    Returns
    -------
    lines : list of str
    """
    lines = []
    pairs = _pairs(rows, DEFAULT, "cart")
    text = f"DPDT default (one thread) fit time <= {MAX_TIME_RATIO:g}x CART's in every cell"
    if not pairs:
        lines.append(f"{text}: skipped (needs the default and CART)")
    else:
        failed = [r for r, c in pairs if not _ok(r, c)]
        ratios = [(r["seconds"] / c["seconds"], r) for r, c in pairs if _ok(r, c)]
        over = [(x, r) for x, r in ratios if x > MAX_TIME_RATIO]
        offenders = [f"{len(over)} of {len(pairs)} cells over"] if over else []
        if over:
            x, r = max(over, key=lambda t: t[0])
            offenders.append(f"worst {x:.1f}x at {_where(r)}")
        offenders += [f"fit failed at {_where(r)}" for r in failed]
        lines.append(f"{text}: " + verdict(not offenders, offenders))

    big = _pairs(rows, PARALLEL, DEFAULT, lambda cell: cell[1] >= PARALLEL_FROM_ROWS)
    text = (f"DPDT default with n_jobs=-1 >= {MIN_PARALLEL_SPEEDUP:g}x faster than one thread "
            f"from {PARALLEL_FROM_ROWS} training rows")
    if not big:
        lines.append(f"{text}: skipped (no cell with both and {PARALLEL_FROM_ROWS} training "
                     "rows or more)")
    else:
        speedups = [(d["seconds"] / r["seconds"], r) for r, d in big if _ok(r, d)]
        low = [(s, r) for s, r in speedups if s < MIN_PARALLEL_SPEEDUP]
        offenders = [f"fit failed at {_where(r)}" for r, d in big if not _ok(r, d)]
        if low:
            s, r = min(low, key=lambda t: t[0])
            offenders.insert(0, f"{len(low)} of {len(big)} cells below, lowest {s:.2f}x at "
                                f"{_where(r)}")
        lines.append(f"{text}: " + verdict(not offenders, offenders))

    fitted = [(r, c) for r, c in pairs if _ok(r, c)]
    if fitted:
        diff = [(100 * (r["test_accuracy"] - c["test_accuracy"]), r) for r, c in fitted]
        worst, at = min(diff, key=lambda t: t[0])
        lines.append(
            "DPDT default's test accuracy minus CART's: "
            f"mean {statistics.mean(d for d, _ in diff):+.2f} percentage points over "
            f"{len(diff)} cells; higher in {sum(d > 0 for d, _ in diff)}, equal in "
            f"{sum(d == 0 for d, _ in diff)}, lower in {sum(d < 0 for d, _ in diff)} "
            f"(lowest {worst:+.2f} at {_where(at)})")
        below = [r for r, c in fitted if r["train_accuracy"] < c["train_accuracy"] - ACCURACY_TOL]
        lines.append("DPDT default's train accuracy >= CART's in every cell: " + verdict(
            not below, [f"{len(below)} of {len(fitted)} cells, e.g. {_where(below[0])}"]
            if below else []))
        largest = {}
        for r, _ in fitted:
            if r["data"] in SYNTHETIC:
                largest[r["data"]] = max(largest.get(r["data"], 0), r["n"])
        checked = [(r, c) for r, c in fitted if largest.get(r["data"]) == r["n"]]
        if checked:
            heavy = [(r["peak_mb"] / c["peak_mb"], r) for r, c in checked
                     if r["peak_mb"] > MAX_PEAK_RATIO * c["peak_mb"]]
            offenders = []
            if heavy:
                x, r = max(heavy, key=lambda t: t[0])
                offenders = [f"{len(heavy)} of {len(checked)} cells, worst {x:.2f}x at {_where(r)}"]
            sizes = ", ".join(f"{name} n={n}" for name, n in largest.items())
            lines.append(f"DPDT default's peak RSS <= {MAX_PEAK_RATIO:g}x CART's at the largest "
                         f"size ({sizes}): " + verdict(not heavy, offenders))
        floors = [r["seconds"] / r["floor"] for r, _ in fitted if r["floor"]]
        if floors:
            lines.append("DPDT default's fit time over its floor: median "
                         f"{statistics.median(floors):.1f}x, from {min(floors):.1f}x to "
                         f"{max(floors):.1f}x")
    return lines


def _configs(text):
    """Parse ``--configs``: a JSON object of configuration names to DPDT parameters."""
    try:
        configs = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"--configs is not JSON: {exc}") from None
    if not isinstance(configs, dict) or not all(isinstance(v, dict) for v in configs.values()):
        raise argparse.ArgumentTypeError(
            "--configs must be a JSON object of names to objects of DPDTreeClassifier "
            "parameters, e.g. '{\"binned\": {\"max_bins\": 255}}'")
    from dpdt import DPDTreeClassifier

    for name, params in configs.items():
        if name in MODELS:
            raise argparse.ArgumentTypeError(f"--configs: {name!r} is a built-in model's name")
        if "max_depth" in params:
            raise argparse.ArgumentTypeError(f"--configs: {name!r} sets max_depth, which the "
                                             "grid sets (--depths)")
        try:
            DPDTreeClassifier().set_params(**params)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"--configs: {name!r}: {exc}") from None
    return configs


def _available(module):
    return importlib.util.find_spec(module) is not None


def models(keys, configs):
    """Return the models to fit: ``(key, family, parameters)``, and their labels by key.

    Parameters
    ----------
    keys : list of str
        Keys of :data:`MODELS`; LightGBM's is dropped when it is not installed.
    configs : dict
        Configuration name -> DPDT parameters; one thread unless they say otherwise.

    Returns
    -------
    models : list of tuple
    labels : dict
    """
    chosen = [(key, MODELS[key][1], MODELS[key][2]) for key in MODELS if key in keys
              and (MODELS[key][1] != "lightgbm" or _available("lightgbm"))]
    chosen += [(name, "dpdt", {"n_jobs": 1, **params}) for name, params in configs.items()]
    labels = {key: MODELS[key][0] for key in MODELS} | {name: f"DPDT {name}" for name in configs}
    return chosen, labels


def _describe(name, n_features=None):
    if name == "classification":
        return ("`make_classification(n_features=20, n_informative=10, n_redundant=4, "
                "n_classes=3, n_clusters_per_class=3, flip_y=0.05)`, 80/20 split")
    if name == "kdd":
        return f"`kdd_like`: {n_features} features, 23 imbalanced classes, 80/20 split"
    return ("bundled dpdt sets in their own splits; scikit-learn's digits and the pixels of its "
            "two sample photos, 80/20 splits")


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
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000],
                        help="training rows of the synthetic sets (default: 1000 10000 100000; "
                             "add 1000000 for the million-row cells)")
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5, 6, 8],
                        help="depths of the synthetic sets' grid (default: 3 4 5 6 8)")
    parser.add_argument("--datasets", nargs="+", choices=KINDS, default=list(KINDS),
                        help="which tables (default: all)")
    parser.add_argument("--real-sets", nargs="+", choices=real_names(), default=real_names(),
                        metavar="NAME", help="the real sets to fit (default: all of "
                                             f"{', '.join(real_names())})")
    parser.add_argument("--real-depth", type=int, default=5, help="depth of the real sets (5)")
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                        help="built-in models to fit (default: all)")
    parser.add_argument("--configs", type=_configs, default={},
                        help="more DPDT configurations, a JSON object of names to parameters "
                             "(n_jobs=1 unless given), e.g. '{\"binned\": {\"max_bins\": 255}}'")
    parser.add_argument("--repeats", type=int, default=1,
                        help="fits per model and cell; the median time is reported (default: 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data and splits")
    args = parser.parse_args(argv)
    if min(args.sizes) < 100:
        parser.error("--sizes must be >= 100 (a fifth more rows are generated for the test set)")
    if min(args.depths) < 1 or args.real_depth < 1 or args.repeats < 1:
        parser.error("--depths, --real-depth and --repeats must be >= 1")
    chosen, labels = models(args.models, args.configs)
    notes = []
    if "lightgbm" in args.models and not _available("lightgbm"):
        notes.append("LightGBM is not installed (`pip install \".[bench]\"`): its rows are "
                     "skipped.")
    real_sets = list(args.real_sets)
    if "photos" in real_sets and not _available("PIL"):
        real_sets.remove("photos")
        notes.append("Pillow is not installed: the photos set is skipped.")

    jobs = []   # (data set, requested rows or None, depths)
    for kind in (k for k in KINDS if k in args.datasets):
        if kind in SYNTHETIC:
            jobs += [(kind, n, sorted(set(args.depths))) for n in sorted(set(args.sizes))]
        else:
            jobs += [(name, None, [args.real_depth]) for name in real_sets]
    bar = progress(range(sum(1 + len(depths) * len(chosen) for _, _, depths in jobs)), "scaling")
    ticks = iter(bar)
    rows, floors = [], {}
    for name, n, depths in jobs:
        spec = {"data": name, "n": n, "seed": args.seed, "depths": depths,
                "models": chosen, "repeats": args.repeats}
        lines, error = _run_child(spec, lambda: next(ticks, None))
        head = lines[0] if lines else {"n": n, "features": None}
        fits = {(r["depth"], r["model"]): r for r in lines[1:]}
        if "element_seconds" in head:
            floors[(name, head["n"])] = head["element_seconds"]
        for depth in depths:
            for key, _, _ in chosen:
                r = fits.get((depth, key), {"error": error or "not measured"})
                rows.append({**r, "data": name, "n": head["n"], "features": head["features"],
                             "depth": depth, "model": key})
    for _ in ticks:   # closes the bar
        pass

    print(f"One thread unless said; n is the number of training rows; one fit per model and cell"
          f"{f' (median of {args.repeats})' if args.repeats > 1 else ''}, each data set and size "
          "in a fresh process. Floor: the solved states' samples x features x the time per "
          "element of a histogram pass (see the script's docstring).")
    for note in notes:
        print(f"\n{note}")
    for kind in (k for k in KINDS if k in args.datasets):
        names = [kind] if kind in SYNTHETIC else real_sets
        table = [r for r in rows if r["data"] in names]
        if not table:
            continue
        print(f"\n### {kind}: {_describe(kind, table[0]['features'])}\n")
        print(results_table(table, labels, real=kind == "real"))
        prices = ", ".join(f"{1e9 * s:.2f} ns at n={n}" for (name, n), s in floors.items()
                           if name in names)
        if prices:
            print(f"\nHistogram pass per element: {prices}.")
    if any(r.get("peak_is_lifetime") for r in rows):
        print("\n\\* the process's lifetime peak: its high-water mark could not be reset")
    print("\n### targets\n")
    for line in summarise(rows):
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
