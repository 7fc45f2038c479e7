"""The search policy: which split generators and candidate budgets a fit uses at each depth.

What ``splitter="auto"`` and ``candidates="auto"`` resolve to, the checks of explicit choices, and
the limits the core's search takes (its depth, its candidate counts).
"""

import math
from numbers import Integral

from ._memory import estimate_states
from ._params import SPLITTERS

# Generators that read exact thresholds: with them, max_bins="auto" keeps the features exact.
EXACT_ONLY_SPLITTERS = ("lookahead", "screen")

# The bounded search recurses about depth**2 / 2 frames deep; deeper limits take the front's path.
MAX_BOUNDED_DEPTH = 64
MAX_CANDIDATES = 2**31 - 1


# What splitter="auto" and candidates="auto" resolve to. The screen at the root finds the first
# split greedy generators miss (a smaller gap to the depth-3 optima than CART (7, 7, 7) at similar
# time: the optimality section of docs/benchmarks.md), with a wide CART below it, at depth 3.
# Binned features, which the screen does not take, and trees of depth 1 or 2, for which its
# depth-3 estimate is no guide (CART's candidates hold XOR's exact root, the screen's binned one
# need not), keep the DPDT paper's CART (7, 7, 7). Deeper trees: the ladder below.
AUTO_SCREEN_SPLITTERS = ("screen", "cart")
AUTO_SCREEN_CANDIDATES_DEPTH_3 = (1, 31)
# At depth 3 "auto" also offers, at the root and at depth 1, the first split of the best depth-2
# tree (each child then split by its best single split), found exactly by branch and bound, when
# that search reads at most this many sample ids (about 10 ms): on small data the screen's
# binned estimate can miss the one threshold the optimum needs (raisin: 79 errors against the
# optimal 76, 77 with it), and this bound caps what the search costs on large or wide data.
AUTO_EXACT_DEPTH2_WORK = 2_500_000
AUTO_CART_CANDIDATES = (7, 7, 7)
# From depth 4 on (at depth 3 too with binned features), "auto" grows CART's candidates and spends
# on the search a bounded multiple of the passes over the data a greedy tree makes: the first
# budgets of this ladder (most search first, the deepest budget cut first, since the budgets near
# the root matter most) whose estimated sample reads (stats_["sample_reads"]), weighted by 1 +
# stat_dim / 8, are at most reads_per_level per training sample and level. More classes cost
# more per read, since every histogram bin holds their sums and every impurity reads them (23
# classes: about three times 3 classes', benchmarks/scaling.py). The cap was measured on the 40
# real sets of the wide corpus (benchmarks/wide.py, depths 4 to 6, one thread), where the
# default also pays, with bins, for the binning and the greedy tree whose thresholds the bins
# keep: with this cap exact and twice it binned, the median time was 2.2 to 2.8 times CART's;
# with twice that for both, 2.3 to 2.8 times exact and 3.4 to 3.9 binned, for a training gain
# over CART 10 to 25 % larger. On the sets of 10 000 to 60 000 rows, binned, the
# same cap as the exact layout's gave a median of 1.9 times CART's time against 3.1 times with
# twice the cap, for 0.08 training points less, and still more training accuracy than the exact
# layout at the same cap (+0.06 to +0.20 points) in less time (1.7 to 2.1 against 2.3 to 2.7
# times). The screen alone costs 1.5 to 8 times CART's time on the bundled sets, so deep trees
# leave it out; at depth 3 on fewer than 10 000 samples its root split is worth that cost (the
# optima).
AUTO_DEEP_LADDER = ((7, 7, 7), (7, 7, 3), (7, 3, 3), (7, 3), (3, 3), (7,), (3,), (1,))
AUTO_READS_PER_LEVEL = 8.25
AUTO_READ_STATS_SCALE = 8
# A binned state scans its histograms, bins x classes per feature, whatever its samples, where
# CART sorts them: the larger the data, the smaller that fixed part, and the cheaper a read against
# CART. The binned cap above holds at 10 000 samples and grows like the square root of the samples
# up to 50 000 (at 100 000 the (7, 3, 3) fits measured 5 to 6 times cheaper against CART than at
# 10 000; growing on to 100 000 took the pixels of scikit-learn's photos to 2.9 times CART), and
# no further.
AUTO_READS_GROWTH = (10_000, 50_000)
AUTO_DEEP_FROM_DEPTH = 4


def resolve_search(splitter, candidates, max_depth, binned, n_samples, n_features, stat_dim,
                   exact_depth2=False):
    """Return the per-depth split generators, candidate budgets and exact depth-2 work.

    ``binned`` tells whether the features are binned (``max_bins``), which rules out the screen,
    and ``stat_dim`` is the size of the objective's leaf statistics (the classes). The work is
    the core's ``exact_depth2_work``: 0, or, when ``exact_depth2`` allows it, the sample ids a
    search for the split of best exact depth-2 lookahead may read to join a state's candidates.
    """
    auto = isinstance(splitter, str) and splitter == "auto"
    if auto:
        screen = not binned and max_depth == 3
        splitter = AUTO_SCREEN_SPLITTERS if screen else "cart"
    splitters = resolve_splitters(splitter, max_depth)
    exact_depth2_work = 0
    if isinstance(candidates, str) and candidates == "auto":
        if splitters[0] == "screen":
            candidates = AUTO_SCREEN_CANDIDATES_DEPTH_3
            if exact_depth2 and auto and max_depth == 3:
                exact_depth2_work = AUTO_EXACT_DEPTH2_WORK
        elif max_depth >= AUTO_DEEP_FROM_DEPTH or (binned and max_depth == 3):
            candidates = deep_budgets(n_samples, n_features, max_depth, splitters, binned,
                                      stat_dim)
        else:
            candidates = AUTO_CART_CANDIDATES
    return splitters, resolve_candidates(candidates, max_depth), exact_depth2_work


def reads_per_level(n_samples, binned):
    """Return the cap of :func:`deep_budgets`: weighted reads per sample and level."""
    if not binned:
        return AUTO_READS_PER_LEVEL
    low, high = AUTO_READS_GROWTH
    return AUTO_READS_PER_LEVEL * math.sqrt(min(max(n_samples, low), high) / low)


def deep_budgets(n_samples, n_features, max_depth, splitters, binned, stat_dim):
    """Return the first budgets of ``AUTO_DEEP_LADDER`` whose estimated work fits the cap."""
    cap = reads_per_level(n_samples, binned) * n_samples * max_depth
    for budgets in AUTO_DEEP_LADDER:
        estimate = estimate_states(n_samples, n_features, max_depth,
                                   resolve_candidates(budgets, max_depth), splitters, stat_dim)
        if estimate.sample_reads * (1 + stat_dim / AUTO_READ_STATS_SCALE) <= cap:
            return budgets
    return AUTO_DEEP_LADDER[-1]


def needs_exact_thresholds(splitter):
    """Return whether the user's ``splitter`` (not "auto") names a generator of exact thresholds."""
    names = [splitter] if isinstance(splitter, str) else list(splitter)
    return any(name in EXACT_ONLY_SPLITTERS for name in names)


def resolve_candidates(candidates, max_depth):
    """Return the per-depth candidate budgets as a list of ints; raise ValueError if invalid."""
    budgets = [candidates] * max_depth if isinstance(candidates, Integral) else list(candidates)
    if not budgets or not all(isinstance(b, Integral) and not isinstance(b, bool) for b in budgets):
        raise ValueError(f"candidates must be a non-empty tuple of ints, got {candidates!r}")
    # The core counts candidates in 32-bit ints; no state could hold more split records anyway.
    if min(budgets) < 1 or max(budgets) > MAX_CANDIDATES:
        raise ValueError(f"every entry of candidates must be in [1, {MAX_CANDIDATES}], "
                         f"got {candidates!r}")
    return [int(b) for b in budgets]


def resolve_splitters(splitter, max_depth):
    """Return the per-depth split generators as a list of names; raise ValueError if invalid."""
    if isinstance(splitter, str):
        return [splitter] * max_depth
    splitters = list(splitter)
    unknown = [s for s in splitters if s not in SPLITTERS]
    if not splitters or unknown:
        raise ValueError(f"splitter must be one of {sorted(SPLITTERS)} or a non-empty sequence of "
                         f"them, one per depth; got {splitter!r}")
    return splitters



def search_depth(max_depth, n_samples):
    """Return the depth limit given to the core: ``max_depth``, or ``n_samples`` if smaller.

    A split leaves a sample on each side, so no tree on n samples is deeper than n - 1 and a
    limit of n never binds: the tree is the same, while the per-depth lists of a limit such as
    10**9 would exhaust memory (and overflow the core's int).
    """
    return min(int(max_depth), max(1, int(n_samples)))

