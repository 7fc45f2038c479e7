"""The estimators' parameters, each declared once: name, default, constraint and documentation.

An estimator takes a tuple of :class:`Param` records, and :func:`declare` derives from it the
estimator's ``__init__`` (an explicit keyword-only signature that only assigns, as scikit-learn's
``get_params``, ``clone`` and ``__repr__`` read it), its ``_parameter_constraints`` and the
"Parameters" section of its docstring. Where estimators differ (the criterion, the boosting's
defaults, the cross-validation's own parameters, a regressor's wording), the difference is a
record of its own below, put in place of its namesake by :func:`derive`.

Adding a parameter to the DPDT trees is one record in :data:`TREE`; the CV estimators pass it on
to their fits with no further change.
"""

import dataclasses
import inspect
import re
import textwrap
from numbers import Integral, Real

from sklearn.metrics import get_scorer_names
from sklearn.utils._param_validation import Interval, Options, RealNotInt, StrOptions

from . import _runner

# The string options of the parameters; each constraint and documented type is made from these.
# The core's enums name them (cpp/include/dpdt/params.hpp), so that they are written once.
SPLITTERS = set(_runner.SPLITTERS)
CLASSIFIER_CRITERIA = _runner.CRITERIA
COMPLEXITIES = _runner.COMPLEXITIES
FRONTS = _runner.FRONTS
# The Newton objective's leaf loss can fall as samples are added, which the lookahead's bound
# does not allow.
BOOSTING_SPLITTERS = SPLITTERS - {"lookahead"}


def one_of(names):
    """Return the numpydoc type of a string option, ``{"a", "b"}``, in the order of ``names``."""
    return "{" + ", ".join(f'"{name}"' for name in names) + "}"


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of an estimator.

    ``type`` and ``doc`` are the numpydoc entry: ``name : type, default=...`` and its
    description (dedented, its line breaks kept). ``shown`` writes the default in the entry when
    its ``repr`` reads worse (``5_000_000``). An entry whose ``type`` is None is written without
    one.
    """

    name: str
    default: object
    constraint: list
    type: str | None
    doc: str
    shown: str | None = None

    def but(self, **changes):
        """Return this parameter with ``changes`` (fields of :class:`Param`) applied."""
        return dataclasses.replace(self, **changes)

    def header(self):
        """Return the first line of the numpydoc entry."""
        if self.type is None:
            return self.name
        shown = self.shown or (f'"{self.default}"' if isinstance(self.default, str)
                               else repr(self.default))
        return f"{self.name} : {self.type}, default={shown}"


def derive(params, *changes, drop=(), after=None):
    """Return ``params`` with each of ``changes`` in place of its namesake.

    The parameters named in ``drop`` are left out, and ``after`` maps a name to the parameters
    inserted right after it.
    """
    replaced = {param.name: param for param in changes}
    unknown = set(replaced) - {param.name for param in params}
    if unknown:
        raise ValueError(f"no parameter to replace named {sorted(unknown)}")
    derived = []
    for param in params:
        if param.name not in drop:
            derived.append(replaced.get(param.name, param))
        derived.extend((after or {}).get(param.name, ()))
    return tuple(derived)


def declare(params):
    """Return a class decorator giving the class the parameters ``params``.

    The class gets ``__init__`` (keyword-only, in the order of ``params``), its
    ``_parameter_constraints``, ``_params`` (the records) and a "Parameters" section in its
    docstring, before the first section the docstring has (Attributes, Examples, ...).
    """
    def decorate(cls):
        cls._params = tuple(params)
        cls._parameter_constraints = {param.name: param.constraint for param in params}
        cls.__init__ = _make_init(cls, params)
        cls.__doc__ = _with_parameters(cls.__doc__, params)
        return cls

    return decorate


def _make_init(cls, params):
    keyword = inspect.Parameter.KEYWORD_ONLY
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(param.name, keyword, default=param.default) for param in params])

    defaults = {param.name: param.default for param in params}

    def __init__(self, **kwargs):
        # Only assigns (scikit-learn's rule): the values are validated by fit. Not through
        # signature.bind, which costs 30 times as much: a grid search clones many times.
        for name in kwargs.keys() - defaults.keys():
            # As Python words it for a written-out signature.
            raise TypeError(f"{__init__.__qualname__}() got an unexpected keyword argument "
                            f"{name!r}")
        for name, default in defaults.items():
            setattr(self, name, kwargs.get(name, default))

    # What inspect.signature, and so get_params, clone, __repr__ and help, read.
    __init__.__signature__ = signature
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__


def parameters_section(params, indent=""):
    """Return the numpydoc "Parameters" section of ``params``.

    Parameters of the same type and description share one entry (numpydoc's ``x1, x2 : type``),
    after the entries of one parameter.
    """
    groups = {}
    for param in params:
        groups.setdefault((param.type, param.doc), []).append(param)
    lines = ["Parameters", "----------"]
    for members in sorted(groups.values(), key=lambda members: len(members) > 1):
        header = members[0].header()
        if len(members) > 1:
            names = ", ".join(param.name for param in members)
            header = names + header[len(members[0].name):]
        lines.append(header)
        body = textwrap.dedent(members[0].doc).strip("\n")
        lines.extend("    " + line if line else "" for line in body.splitlines())
    return "".join(f"{indent}{line}\n" if line else "\n" for line in lines)


def _with_parameters(doc, params):
    heading = re.search(r"^( *)\S.*\n *-{3,}\n", doc, flags=re.MULTILINE)
    if heading is None:
        raise ValueError("the docstring needs a section (Attributes, Examples, ...) to put the "
                         "Parameters before")
    section = parameters_section(params, indent=heading.group(1))
    return doc[:heading.start()] + section + "\n" + doc[heading.start():]


# --------------------------------------------------------------------------- the DPDT trees

MAX_DEPTH = Param(
    "max_depth", 3, [Interval(Integral, 1, None, closed="left")], "int",
    "Maximum depth of the tree.")

CANDIDATES = Param(
    "candidates", "auto",
    [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), tuple, list],
    '"auto", int or tuple of int', """
    Number of candidate splits generated at a state of depth ``d`` is ``candidates[d]``; depths
    beyond the tuple use 1 (the greedy split). An int means that budget at every depth. A state
    with a single split left ignores it: its split is searched exactly over all features and
    thresholds for the training loss. Larger budgets give better trees at a cost growing like
    their product; the budgets near the root matter most. ``"auto"`` is ``(1, 31)`` when the
    root's splitter is ``"screen"``, the DPDT paper's ``(7, 7, 7)`` up to ``max_depth=3``, and
    from depth 4 (or 3 with binned features) the largest of ``(7, 7, 7)``, ``(7, 7, 3)``,
    ``(7, 3, 3)``, ``(7, 3)``, ``(3, 3)``, ``(7,)``, ``(3,)`` whose estimated work (the samples
    its states read, ``stats_["sample_reads"]``) fits a budget per sample and level, which
    grows with the number of samples for binned features: the budget keeps the fit's time a
    small multiple of that of scikit-learn's CART of the same depth at any size (the
    benchmarks page, ``docs/benchmarks.md``, has the measurements).
    """)

SPLITTER = Param(
    "splitter", "auto", [StrOptions(SPLITTERS | {"auto"}), tuple, list],
    '"auto", str or sequence of str', """
    The split generator, one of "cart", "lookahead", "screen", "topk", "topb", "quantile" and
    "exhaustive"; a sequence gives one per depth (depths beyond it use "cart"), since
    non-greediness matters most near the root. ``"auto"`` is ``["screen", "cart"]`` at
    ``max_depth=3`` with exact thresholds, else ``"cart"``: the screen does not take binned
    features (``max_bins``), its estimate is no guide for shallower trees, and deeper ones
    spend their time on more candidates below the root instead (``candidates``). With both
    ``"auto"`` at ``max_depth=3``, the root and depth-1
    states also get the split of best exact depth-2 lookahead wherever its search is cheap.
    The default is chosen to come close to the proven optima at depth 3, much closer than
    CART with ``(7, 7, 7)``, at a similar cost (measured on the benchmarks page,
    ``docs/benchmarks.md``). ``"cart"`` grows a best-first CART
    with ``candidates[d] + 1`` leaves on the state's samples and offers its internal nodes'
    splits (the DPDT paper's generator).
    ``"lookahead"`` offers CART's splits plus the ``candidates[d]`` splits that root the best
    trees of depth 2 (each child's best single split found exactly), found over every threshold
    by branch and bound: where two levels are left, its first split is the one of the optimal
    depth-2 subtree, so accuracy gets close to the optimum at a higher cost. ``"screen"`` offers
    CART's splits plus the ``candidates[d]`` splits that root the best trees of depth 3 as DPDT
    itself would grow them with a small budget (a 3-split CART on each side, each child then
    split by its best single split), estimated on histograms of at most 256 bins per feature at
    16 thresholds per feature and refined around the best: the first split of a deep tree, which
    greedy and depth-2 scores misjudge, at the cost of histogram scans of p * 256 bins for each
    of its 16 p thresholds, so it grows like the square of the number of features; beyond 32
    features it screens the 32 of best single split. Use it at the root. ``"topk"`` offers the
    best split of each of the ``candidates[d]`` features of highest impurity decrease (Blanc et
    al.), ``"topb"`` the ``candidates[d]`` best (feature, threshold) pairs. ``"quantile"``
    offers, for every feature, the thresholds at ``candidates[d]`` evenly spaced quantiles of
    the state's samples. ``"exhaustive"`` offers every threshold of every feature, which makes
    the result the optimal tree of depth at most ``max_depth``; its cost is exponential in
    depth, use it on small data.
    """)

CRITERION = Param(
    "criterion", "gini", [StrOptions(set(CLASSIFIER_CRITERIA))], one_of(CLASSIFIER_CRITERIA), """
    Impurity used by the CART generator, and to break ties between trees of equal objective
    (lower weighted leaf impurity first, then fewer splits). ``"gain_ratio"`` scores the
    generator's splits by C4.5's gain ratio (the information gain over the split information)
    and is the entropy as an impurity.
    """)

ALPHA = Param(
    "alpha", 0.0, [Interval(Real, 0, None, closed="left")], "float",
    "Weight of the complexity penalty. Can be changed with ``set_params`` after fitting.")

MAX_COMPLEXITY = Param(
    "max_complexity", None, [Interval(Real, 0, None, closed="left"), None], "float or None", """
    A budget: predictions use the tree minimising ``train_loss + alpha * complexity`` among
    the trees of :attr:`pareto_front_` of ``complexity`` at most this. With
    ``front="pareto"`` and ``alpha=0`` that is the most accurate tree of the search within
    the budget (with ``complexity="n_splits"``: with at most ``max_complexity + 1`` leaves).
    Can be changed with ``set_params`` after fitting, as :meth:`select_tree` does. None
    means no budget.
    """)

COMPLEXITY = Param(
    "complexity", "expected_tests", [StrOptions(set(COMPLEXITIES))], one_of(COMPLEXITIES), """
    ``"expected_tests"``: the expected number of tests a training sample goes through (the
    weighted fraction of samples reaching each split node, summed). ``"n_splits"``: the number
    of split nodes, as in cost-complexity pruning.
    """)

FRONT = Param(
    "front", "convex", [StrOptions(set(FRONTS))], one_of(FRONTS), """
    The trees :attr:`pareto_front_` holds. ``"convex"``: the trees optimal for some
    ``alpha``, the lower convex hull of (complexity, train_loss). ``"pareto"``: every tree of
    the search that no other beats on both complexity and loss (the tie-break included),
    which adds the trees between hull vertices that no ``alpha`` selects, such as the most
    accurate tree with at most k splits; a budget (``max_complexity``,
    :meth:`select_tree`) then gets the best tree within it, not the best hull tree. It
    costs more: each state combines its children's fronts pair by pair instead of edge by
    edge, and keeps more trees (with expected tests, hundreds at depth 5 and thousands at
    depth 10; with split counts, at most one per number of splits).
    """)

FEATURE_COSTS = Param(
    "feature_costs", None, ["array-like", None], "array-like of shape (n_features,)", """
    Non-negative cost of testing each feature; each split counts its feature's cost in the
    complexity instead of 1 (then "expected_tests" is the expected cost of the tests).
    """)

MONOTONIC_CST = Param(
    "monotonic_cst", None, ["array-like", dict, None],
    "array-like of int of shape (n_features,) or dict", """
    Indicates the monotonicity constraint to enforce on each feature.
      - 1: monotonic increase
      - 0: no constraint
      - -1: monotonic decrease
    A dict maps feature names (``feature_names_in_``, a DataFrame's columns) to constraints, the
    others free; so does a pandas Series labelled by feature names, in any order. None means no
    constraint. As in scikit-learn, a classifier's constraints hold over the probability of the
    second class, ``classes_[1]``, and are refused for more than two classes and for several
    outputs. Every tree the estimator can return (each row of :attr:`pareto_front_`, so each
    ``alpha`` and :meth:`select_tree` choice) is monotone: for any two inputs that differ only
    along constrained features, each moved in its direction, the predictions are in that order.
    Missing values (NaN) have no order: they are routed as without constraints. The search keeps
    scikit-learn's rule in every state: a split on a constrained feature is admissible only when
    its children's values, clipped to the bounds the state inherits, are in the constraint's
    order, and each child's subtree is then bounded by the midpoint of the two values; a leaf
    predicts its value clipped to its bounds, and its loss is that of the clipped value. As the
    candidates include CART's split under the same rule, the fit is never worse on the training
    objective than scikit-learn's monotone CART of the same depth. With
    ``splitter="exhaustive"`` the tree is the best the rule admits, which :attr:`is_optimal_`
    certifies; a monotone tree the rule does not admit can be better. A constrained fit always
    computes the front (``full_front=False`` keeps its row of ``alpha``), and the data-parallel
    ``dpdt.dask`` estimators refuse constraints.
    """)

MIN_SAMPLES_SPLIT = Param(
    "min_samples_split", 2, [Interval(Integral, 2, None, closed="left")], "int",
    "Minimum number of samples a node needs to be split.")

MIN_SAMPLES_LEAF = Param(
    "min_samples_leaf", 1, [Interval(Integral, 1, None, closed="left")], "int",
    "Minimum number of samples in each leaf.")

MIN_WEIGHT_FRACTION_LEAF = Param(
    "min_weight_fraction_leaf", 0.0, [Interval(Real, 0.0, 0.5, closed="both")], "float",
    "Minimum fraction of the total sample weight in each leaf.")

MIN_IMPURITY_DECREASE = Param(
    "min_impurity_decrease", 0.0, [Interval(Real, 0, None, closed="left")], "float", """
    A split of the CART generator must decrease the weighted impurity by at least this much
    (scikit-learn's definition). The exact search of the last level does not use it.
    """)

MAX_FEATURES = Param(
    "max_features", None,
    [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0, 1, closed="right"),
     StrOptions({"sqrt", "log2"}), None],
    'int, float, {"sqrt", "log2"} or None',
    "Number of features drawn at random at each node of the CART generator.")

MAX_BINS = Param(
    "max_bins", "auto",
    [Interval(Integral, 2, 65535, closed="both"), StrOptions({"auto"}), None],
    '"auto", int or None', """
    The histogram engine: each feature is cut once into at most this many bins (2 to
    65535) of training values, at quantiles, and split search reads per-state
    histograms; a state then costs 4 bytes per sample instead of 4 per sample and
    feature. Thresholds are training values, so prediction needs no bins. None keeps
    exact thresholds. "auto" bins into 255 from 100 000 samples on (from 10 000 when
    ``max_depth`` is 3 or more, where the many states of a deep search each cost the exact
    layout a partition of p sorted blocks) and is exact below, with a splitter that needs
    exact thresholds ("lookahead", "screen"), and for the exact search of
    ``splitter="exhaustive", full_front=False``, which certifies its tree over every
    threshold. Its bins also hold the thresholds of
    scikit-learn's CART of the same depth, fitted first, in place of the quantiles nearest
    them: the search then finds that tree, and the fit is never worse than CART on the
    training objective, as with exact thresholds (quantiles alone can hide a split CART
    makes inside a bin).
    Missing values (NaN) are taken either way: at each split they go to the side better
    for the objective (where the node's training samples had none, to the side with more
    samples), as in scikit-learn's trees.
    """)

CLASS_WEIGHT = Param(
    "class_weight", None, [dict, StrOptions({"balanced"}), None], 'dict, "balanced" or None',
    "Weights of the classes, multiplied with ``sample_weight``.")

MAX_STATES = Param(
    "max_states", 5_000_000, [Interval(Integral, 1, None, closed="left"), None], "int or None",
    """
    The search stops once it has solved this many states, as at ``time_limit``: the states in
    progress complete their greedy split, and the fit returns the best tree found (never worse
    than the greedy one) with a ``ConvergenceWarning`` and ``stats_["stopped_by"]`` naming
    the limit (a state holds about 800 bytes with two classes, its last split's leaves
    included; ``stats_["state_bytes"]`` counts them). A search whose estimate made before the
    fit passes the limit, and which is on course to solve several times more, stops sooner,
    the same way, its warning saying so and what to lower. A fit split over processes
    (``dpdt.dask``), which cannot return part of a search, raises ``MemoryError`` at the
    limit. The exact search of ``splitter="exhaustive", full_front=False``, which keeps no
    state, counts the states it searches and also reports what it proved of the optimum
    (``lower_bound_``). None means no limit.
    """, shown="5_000_000")

MEMORY_LIMIT = Param(
    "memory_limit", None, [Interval(Integral, 1, None, closed="left"), None], "int or None", """
    Bytes the fit may allocate besides the training data: the layout of the samples, the
    per-thread buffers and the solved states (formula in the user guide, "Memory"). A fit
    whose fixed part exceeds it raises ``ValueError`` before starting, naming the least
    limit it takes. The core counts each solved state as it creates it (about 800 bytes with
    two classes, its last split's leaves included) and stops the search before they would
    cross the limit, as at ``time_limit``: it keeps what the greedy completion of the states
    in progress may take (an eighth to a half of what the limit leaves them) and returns the
    best tree found, with a ``ConvergenceWarning`` and ``stats_["stopped_by"]``. Should
    that completion not fit, the search is cut where it stands, each state in progress
    keeping what it has. A search the estimate made before the fit
    (``stats_["estimated_bytes"]``) does not clear stops the same way as soon as it is on
    course to cross the limit four times over: a runaway configuration stops within
    seconds, its warning naming what to lower. A fit split over processes (``dpdt.dask``)
    raises ``MemoryError`` at the limit. None bounds the solved states by what the process
    may still allocate when the fit starts (available memory, a container's limit,
    ``ulimit -v``), so that a search too large for the machine stops instead of swapping or
    being killed. The
    exact search of ``splitter="exhaustive", full_front=False`` counts its buffers and caches
    instead (its caches take at most half of what is left) and stops once they pass it, as at
    ``time_limit``: with the best tree found, ``lower_bound_`` and a ``ConvergenceWarning``.
    """)

TIME_LIMIT = Param(
    "time_limit", None, [Interval(Real, 0, None, closed="neither"), None], "float or None", """
    Seconds after which no further candidate split is explored: the fit returns the best
    trees among the candidates explored so far, with a ``ConvergenceWarning``, and
    ``is_optimal_`` is False. Past the limit, the states being solved complete their greedy
    split only; after a grace of ``max(time_limit, 1) / 2`` seconds every state in progress
    stops where it is, keeping its leaf and the candidates whose subtrees were solved, so that
    the fit returns within ``max(2 * time_limit, time_limit + 1)`` seconds. The tree is never
    worse than the greedy one when the greedy completion fits in the grace, as it does on all
    but huge or pathological data. The exact search of ``full_front=False`` stops at the
    limit with what it proved of the optimum (``lower_bound_``), then runs DPDT's heuristic
    search (the default splitters) under a quarter of the limit and keeps its tree when
    better, so it returns within ``max(2.5 * time_limit, 1.25 * time_limit + 2)`` seconds.
    A cross-validated estimator holds the bound for its whole fit: its fits share one deadline,
    and those not started by it are left out. None means no limit.
    """)

FULL_FRONT = Param(
    "full_front", True, ["boolean"], "bool", """
    Whether to compute the whole Pareto front. False computes the tree of the current
    ``alpha`` only: :attr:`pareto_front_` has that one row and changing ``alpha`` needs a
    refit. With ``splitter="exhaustive"`` this is what makes optimal trees affordable:
    without a front to keep, the search prunes every split whose bound cannot beat the best
    tree found so far (depth-first branch and bound, with interval bounds along each
    feature's thresholds), and is orders of magnitude faster. That search serves exact
    thresholds (``max_bins=None`` or small data) without missing values, feature costs or
    leaf limits (``min_samples_leaf=1``, ``min_samples_split=2``,
    ``min_weight_fraction_leaf=0``); other configurations compute the front and keep the
    row of ``alpha``. Its first incumbent is CART's tree (pruned where a leaf is better
    for the objective), so a search stopped by ``time_limit`` is never worse than it.
    """)

N_JOBS = Param(
    "n_jobs", None, [Integral, None], "int", """
    Number of threads solving the search's subproblems: the root's, and below them those of
    the large states a thread expands while another has nothing to do. ``None`` means 1,
    ``-1`` all cores. More than 4 threads per CPU are capped to that, with a warning. The
    tree does not depend on it.
    """)

RANDOM_STATE = Param(
    "random_state", None, ["random_state"], "int, RandomState instance or None",
    "Seeds the feature draws of ``max_features``.")

VERBOSE = Param(
    "verbose", 0, ["verbose"], "int", """
    0 reports nothing. With 1 or more, a fit reports its progress: the root's subproblems
    solved out of the total, the states solved and the seconds elapsed, as a tqdm bar on
    standard error when it is a terminal and tqdm is installed (``pip install
    "dpdt[progress]"``), else as log lines at INFO level on the ``dpdt`` logger, at most
    one a second and a final one (with a handler on standard error when logging is not
    configured).
    """)

# The parameters of DPDTreeClassifier, in the order of its signature; the other DPDT estimators
# derive theirs from it.
TREE = (MAX_DEPTH, CANDIDATES, SPLITTER, CRITERION, ALPHA, MAX_COMPLEXITY, COMPLEXITY, FRONT,
        FEATURE_COSTS, MIN_SAMPLES_SPLIT, MIN_SAMPLES_LEAF, MIN_WEIGHT_FRACTION_LEAF,
        MIN_IMPURITY_DECREASE, MAX_FEATURES, MAX_BINS, CLASS_WEIGHT, MAX_STATES, MEMORY_LIMIT,
        TIME_LIMIT, FULL_FRONT, N_JOBS, RANDOM_STATE, VERBOSE)
# The trees that predict a value or the probability of a class, which a constraint can order
# (a policy tree predicts an action: it has none).
CLASSIFIER = derive(TREE, after={"feature_costs": (MONOTONIC_CST,)})

# Where the regressor differs: its loss, no class weights, and "auto" and full_front=False
# without the classifier's exact depth-2 candidates and branch and bound.
REGRESSOR = derive(
    CLASSIFIER,
    SPLITTER.but(doc="The split generator, or one per depth; see :class:`DPDTreeClassifier`."),
    CRITERION.but(default="squared_error", constraint=[StrOptions({"squared_error"})],
                  type=one_of(["squared_error"]), doc="""
    The loss. There is no ``"absolute_error"``: the engine's exact scans and its histogram
    subtraction rest on a leaf loss that is a function of sums over the leaf's samples,
    and a weighted median's is not. For median regression use
    :class:`DPDTGradientBoostingRegressor` with ``loss="absolute_error"`` (first-order
    trees whose leaves take the weighted median residual).
    """),
    ALPHA.but(doc="""
    Weight of the complexity penalty. Can be changed with ``set_params`` after fitting.
    Absolute: in the unit of the mean squared error, y's unit squared, so multiplying y by c
    multiplies the front's alpha ranges by c**2 (the weights' scale does not matter).
    """),
    MIN_IMPURITY_DECREASE.but(doc="""
    A split of the CART generator must decrease the weighted squared error by at least this
    much, per unit of total weight. Absolute, as in scikit-learn: in y's unit squared, so
    multiplying y by c acts as dividing it by c**2 (the weights' scale does not matter).
    """),
    FULL_FRONT.but(doc="""
    False computes the tree of the current ``alpha`` only (the front's row of ``alpha``);
    changing ``alpha`` then needs a refit.
    """),
    drop={"class_weight"})

MAX_COST = Param(
    "max_cost", None, [Interval(Real, 0, None, closed="left"), None], "float or None", """
    A budget on the total cost of the policy's actions over the training samples (the sum of
    ``sample_weight`` times the chosen action's cost, ``action_costs`` of :meth:`fit`):
    predictions use the tree of :attr:`cost_front_` of largest value within it, the dearest
    such point. The points are the convex hull's of (cost, value): a budget between two of
    them gets the cheaper one, not the best tree of that cost (:attr:`lower_bound_` bounds
    what that one could reach). Can be changed with ``set_params`` after fitting, as
    :meth:`select_tree` does. None means no budget: the best policy whatever its cost.
    """)

# Where the policy tree differs: its loss is the regret (no criterion, no class weights), its
# alpha is in the rewards' unit, and it takes a budget on the costs of its actions.
POLICY = derive(
    TREE,
    SPLITTER.but(doc="""
    The split generator, or one per depth; see :class:`DPDTreeClassifier`. Generators score a
    split by the decrease of the regret (the greedy criterion of econml's ``PolicyTree``).
    """),
    ALPHA.but(doc="""
    Weight of the complexity penalty, in the rewards' unit: a split (an expected test, with
    ``complexity="expected_tests"``) must raise the mean reward per sample by ``alpha`` to be
    worth it. Can be changed with ``set_params`` after fitting. Multiplying the rewards by c
    multiplies the front's alpha ranges by c: the same ``alpha``, multiplied too, selects the
    same tree, and the default 0 the same tree at any scale.
    """),
    MIN_IMPURITY_DECREASE.but(doc="""
    A split of the CART generator must decrease the regret by at least this much, per unit of
    total weight, in the rewards' unit. The exact search of the last level does not use it.
    """),
    FULL_FRONT.but(doc="""
    False computes the tree of the current ``alpha`` only (the front's row of ``alpha``);
    changing ``alpha`` then needs a refit.
    """),
    drop={"criterion", "class_weight"}, after={"max_complexity": (MAX_COST,)})

# ------------------------------------------------------------------ the cross-validated trees

# Tree parameters a CV estimator handles itself (max_depth is the depth when max_depths is None,
# n_jobs runs the fits in parallel, random_state seeds them all, verbose reports its fits, which
# are quiet) or does not take (it chooses alpha and scores whole fronts). It passes the others on
# to every fit.
CV_OWN = {"max_depth", "n_jobs", "random_state", "verbose"}
CV_DROPPED = {"alpha", "full_front", "front", "max_complexity"}


def passed_on(tree):
    """Return the parameters of ``tree`` that a CV estimator passes on to its fits as they are."""
    return tuple(param for param in tree if param.name not in CV_OWN | CV_DROPPED)


# Each depth limit of max_depths costs cv + 1 fits. No data is deep enough for more than this
# many distinct limits to mean anything (a depth beyond the samples never binds), and a count
# read before the limits are listed keeps range(1, 10**12) from exhausting memory.
MAX_DEPTH_LIMITS = 1024


class _DepthLimits(Options):
    """A sequence (list, tuple, range, 1-D array) of at most MAX_DEPTH_LIMITS ints >= 1.

    An ``Options`` because scikit-learn's ``make_constraint`` takes no other constraint class.
    """

    def __init__(self):
        super().__init__(object, set())

    def is_satisfied_by(self, val):
        if isinstance(val, str | bytes | dict | set) or not hasattr(val, "__len__"):
            return False
        if getattr(val, "ndim", 1) != 1 or not 1 <= len(val) <= MAX_DEPTH_LIMITS:
            return False
        return all(isinstance(d, Integral) and not isinstance(d, bool) and d >= 1 for d in val)

    def __str__(self):
        return (f"a sequence of 1 to {MAX_DEPTH_LIMITS} ints >= 1 (list, tuple, range or "
                "array)")


MAX_DEPTHS = Param(
    "max_depths", None, [_DepthLimits(), None],
    "sequence of int (list, tuple, range, array) or None",
    f"""
    Depth limits to choose from by the same cross-validation (at most {MAX_DEPTH_LIMITS});
    None means ``[max_depth]``. When given, ``max_depth`` is unused, and must be left at its
    default or be one of them: otherwise the two ask for different depths, a ValueError.
    """)

CV = Param(
    "cv", 5, ["cv_object"], "int, cross-validation generator or iterable", """
    As in scikit-learn's ``GridSearchCV``, except that an int is the number of folds of a
    ``StratifiedKFold`` over shuffled rows (as LightGBM's ``cv`` shuffles), seeded by
    ``random_state`` (0 when None): folds of a table sorted by date or by outcome, in row
    order, are unlike the whole. Pass ``StratifiedKFold(k)`` for folds in row order.
    """)

SCORING = Param(
    "scoring", None, [StrOptions(set(get_scorer_names())), callable, None],
    "str, callable or None", """
    The validation score, higher is better; None means accuracy (the estimator's
    ``score``). Sample weights, when given, weight the score too.
    """)

SELECTION = Param(
    "selection", "best", [StrOptions({"best", "1se"})], one_of(["best", "1se"]), """
    How the candidate is chosen from the cross-validated scores: ``"best"`` the best mean
    score, ``"1se"`` the simplest tree within one standard error of it (see above):
    smaller trees, usually for some accuracy (compared on the benchmarks page,
    ``docs/benchmarks.md``).
    """)


def cross_validated(tree, estimator, cv=CV, scoring=SCORING, selection=SELECTION, changed=()):
    """Return the parameters of the CV estimator of the tree estimator named ``estimator``.

    Its own (``max_depths``, ``cv``, ``scoring``, ``selection``) follow ``max_depth``; the
    tree's parameters it passes on to every fit share one entry that refers to the tree's,
    but for ``changed``, passed on with a default of their own.
    """
    own = (
        MAX_DEPTH.but(doc="""
    Depth limit of the trees when ``max_depths`` is None, the one depth then
    cross-validated; unused when ``max_depths`` is given (see there).
    """),
        N_JOBS.but(type="int or None", doc="""
    Number of fits run at once on threads (the core releases the GIL); -1 means all cores.
    The result does not depend on it.
    """),
        RANDOM_STATE.but(doc="""
    Seeds the shuffle of an int ``cv`` and ``max_features``' draws, the same for every fit.
    """),
        VERBOSE.but(doc="""
    0 reports nothing. With 1 or more, the cross-validation reports its fits done out of
    the total and the depth limit of the last one, as a bar or log lines (see
    :class:`DPDTreeClassifier`); the fits themselves report nothing.
    """))
    see = f"Passed to every :class:`{estimator}` fit; see there."
    passed = [param.but(type=None, doc=see) for param in passed_on(tree)
              if param.name not in {change.name for change in changed}]
    return derive(tree, *own, *passed, *changed, drop=CV_DROPPED,
                  after={"max_depth": (MAX_DEPTHS, cv, scoring, selection)})


# The CV estimators' own defaults, chosen by a nested cross-validation on the training splits
# of the wide corpus (benchmarks/wide.py --selection-study): counting splits, as cost-complexity
# pruning does, gave better validation scores than expected tests at depths 3 to 6, and for
# squared error leaves of at least 10 samples did, where a mean over a few samples, the
# outliers a deep search isolates, is a noisy prediction. For the 0-1 loss one sample did.
CV_COMPLEXITY = COMPLEXITY.but(default="n_splits", doc="""
    Passed to every fit; see :class:`{estimator}`. Here ``"n_splits"`` by default: the
    number of leaves is what the cross-validation trades for score, as in cost-complexity
    pruning; it validated better than the expected tests on real data of every kind.
    """)
CV_MIN_SAMPLES_LEAF = MIN_SAMPLES_LEAF.but(default=10, doc="""
    Passed to every fit; see :class:`DPDTreeRegressor`. Here 10 by default: a leaf's mean
    over fewer samples, such as the few outliers a deep search can isolate to lower the
    training error, predicts new data poorly; leaves of 10 samples validated better on real
    data of every kind (the tree estimator's default, 1, is CART's, for the training objective).
    """)

CLASSIFIER_CV = cross_validated(
    CLASSIFIER, "DPDTreeClassifier",
    changed=(CV_COMPLEXITY.but(doc=CV_COMPLEXITY.doc.format(estimator="DPDTreeClassifier")),))
SELECTION_SEE_CLASSIFIER = SELECTION.but(doc="""
    How the candidate is chosen from the cross-validated scores: ``"best"`` the best mean
    score, ``"1se"`` the simplest tree within one standard error of it (see
    :class:`DPDTreeClassifierCV`).
    """)
# Folds of a continuous target (regression, rewards): KFold's.
KFOLD_CV = CV.but(doc="""
    As in scikit-learn's ``GridSearchCV``, except that an int is the number of folds of a
    ``KFold`` over shuffled rows, seeded by ``random_state`` (0 when None): folds of a table
    sorted by date or by outcome, in row order, are unlike the whole. Pass ``KFold(k)`` for
    folds in row order.
    """)
REGRESSOR_CV = cross_validated(
    REGRESSOR, "DPDTreeRegressor",
    cv=KFOLD_CV,
    scoring=SCORING.but(doc="""
    The validation score, higher is better; None means R² (the estimator's ``score``).
    Sample weights, when given, weight the score too.
    """),
    selection=SELECTION_SEE_CLASSIFIER,
    changed=(CV_COMPLEXITY.but(doc=CV_COMPLEXITY.doc.format(estimator="DPDTreeRegressor")),
             CV_MIN_SAMPLES_LEAF))

# The policy tree's: folds as the regressor's, its own score (the mean reward of the policy:
# scikit-learn's named scorers score predictions against labels, which rewards are not), and
# no budget on action costs, which selects a tree by cost, not by the alpha this validates.
# Its selection is "1se": on the causal sets of the wide corpus (benchmarks/policy.py, the
# causal section), the best mean fold value chose deep trees at depths 4 and 5 whose test value
# fell below econml's greedy tree, where the one-standard-error rule's stayed at the level of
# the shallow trees, and at depths 2 and 3 it was level with both. Leaf-size limits of the
# plain policy tree (5 to 100 samples, 1 to 5 % of them), or its generator's 5 % balance kept
# at the last level too, did not lift its test value at depths 4 and 5.
# Checked afterwards on causal sets of other data (benchmarks/policy_heldout.py): above "best"
# at depths 3 and 4, level at 2 and 5, and above the plain policy tree at every depth.
POLICY_CV_SELECTION = SELECTION.but(default="1se", doc="""
    How the candidate is chosen from the cross-validated values: ``"1se"`` the simplest tree
    whose mean held-out value is within one standard error of the best one, ``"best"`` the
    best mean value (see :class:`DPDTreeClassifierCV`). Here ``"1se"`` by default: the folds'
    values of doubly robust rewards are noisy, and the tree of best mean value is then often
    a deeper one that won its folds by the noise, whose value on new data is lower.
    """)
POLICY_CV = cross_validated(
    derive(POLICY, drop={"max_cost"}), "DPDTreePolicy",
    cv=KFOLD_CV,
    scoring=SCORING.but(constraint=[callable, None], type="callable or None", doc="""
    The validation score, higher is better: a callable ``scorer(estimator, X, rewards)`` (with
    ``sample_weight`` when given); None means the policy's value, the mean held-out reward of
    its actions (the estimator's ``score``). Sample weights, when given, weight it too.
    """),
    selection=POLICY_CV_SELECTION,
    changed=(CV_COMPLEXITY.but(doc=CV_COMPLEXITY.doc.format(estimator="DPDTreePolicy")),))

# ------------------------------------------------------------------------------------ boosting

N_ESTIMATORS = Param(
    "n_estimators", 100, [Interval(Integral, 1, None, closed="left")], "int",
    "Number of boosting rounds.")

LEARNING_RATE = Param(
    "learning_rate", 0.1, [Interval(Real, 0, None, closed="neither")], "float",
    "Shrinkage of each tree's contribution.")

REG_LAMBDA = Param(
    "reg_lambda", 1.0, [Interval(Real, 0, None, closed="left")], "float", """
    L2 penalty on leaf values (the lambda of -G / (H + lambda)). Absolute, as in XGBoost:
    in the unit of H, the sum of sample weight times hessian, so multiplying every weight by
    c acts as dividing it by c. The scale of y does not matter.
    """)

GAMMA = Param(
    "gamma", 0.0, [Interval(Real, 0, None, closed="left")], "float", """
    Penalty per leaf added to the objective each tree minimises. Absolute, as in XGBoost: in
    the unit of that objective, G**2 / (H + reg_lambda), so multiplying every weight by c
    acts as dividing it by c, and multiplying y by c (squared error, Huber) as dividing it by
    c**2.
    """)

SUBSAMPLE = Param(
    "subsample", 1.0, [Interval(Real, 0, 1, closed="right")], "float", """
    Fraction of the samples drawn for each round. The others get weight 0 for that round
    (the features are prepared once for every round): they add nothing to the objective but
    still count for ``min_samples_leaf`` and can place a threshold.
    """)

VALIDATION_FRACTION = Param(
    "validation_fraction", 0.1, [Interval(Real, 0, 1, closed="neither")], "float",
    "Fraction of the training data held out for early stopping.")

N_ITER_NO_CHANGE = Param(
    "n_iter_no_change", None, [Interval(Integral, 1, None, closed="left"), None], "int or None",
    """
    Stop when the validation loss has not improved by ``tol`` for this many rounds;
    None disables early stopping.
    """)

TOL = Param(
    "tol", 1e-7, [Interval(Real, 0, None, closed="left")], "float",
    """
    Improvement of the validation loss that counts for early stopping. Absolute, as in
    scikit-learn: in the loss's unit (y's unit squared for squared error and Huber, y's unit
    for absolute error), so multiplying y by c acts as dividing it by c**2 (or c).
    """, shown="1e-7")

LOSS = Param(
    "loss", "squared_error", [StrOptions({"squared_error", "absolute_error", "huber"})],
    one_of(["squared_error", "absolute_error", "huber"]),
    "The loss minimised; ``train_score_``, ``validation_score_`` and early stopping use it.")

HUBER_QUANTILE = Param(
    "huber_quantile", 0.9, [Interval(Real, 0, 1, closed="neither")], "float", """
    For ``loss="huber"``: each round, the Huber delta (where the loss turns from quadratic
    to linear) is this weighted quantile of the absolute training residuals (the ``alpha``
    of scikit-learn's GradientBoostingRegressor).
    """)

# The parameters of DPDTGradientBoostingClassifier. Those it shares with the trees take the
# boosting's defaults: a small fixed budget and CART on histograms, as every round fits a tree.
BOOSTING = (
    N_ESTIMATORS, LEARNING_RATE,
    MAX_DEPTH.but(doc="Depth limit of each tree."),
    CANDIDATES.but(default=(3, 3, 3), constraint=[Interval(Integral, 1, None, closed="left"),
                                                  tuple, list],
                   type="int or tuple of int",
                   doc="Candidate splits per depth of the DPDT search (see "
                       ":class:`DPDTreeClassifier`)."),
    SPLITTER.but(default="cart", constraint=[StrOptions(BOOSTING_SPLITTERS), tuple, list],
                 type=f"{one_of(sorted(BOOSTING_SPLITTERS))} or sequence of them", doc="""
    The split generator, or one per depth, as for :class:`DPDTreeClassifier`; ``"cart"``
    grows a CART on the Newton gain. There is no ``"lookahead"``: its bound needs a leaf
    loss that only grows as samples are added, which the Newton objective's does not.
    """),
    REG_LAMBDA, GAMMA, SUBSAMPLE, MIN_SAMPLES_LEAF,
    MAX_BINS.but(default=255, constraint=[Interval(Integral, 2, 65535, closed="both"), None],
                 type="int or None", doc="""
    Each feature is cut once into at most this many bins (2 to 65535) of training values,
    at quantiles, and every tree searches histograms, as LightGBM and scikit-learn's
    HistGradientBoosting do; thresholds are training values, so prediction needs no bins.
    None keeps the exact thresholds of presorted features (slower). Missing values (NaN)
    are taken either way, as by the trees (see :class:`DPDTreeClassifier`).
    """),
    MONOTONIC_CST.but(doc="""
    The monotonicity constraint on each feature, as for :class:`DPDTreeClassifier` (1
    increasing, 0 none, -1 decreasing; a dict by feature name). Every tree is monotone in its
    raw score, so the model is, after every round: its predictions and, for the classifier,
    the probability of ``classes_[1]``. Refused for more than two classes. With
    ``loss="absolute_error"`` or ``"huber"``, the leaf values the loss re-estimates keep the
    same rule (each subtree of a constrained split bounded by the midpoint of its children's
    values).
    """),
    VALIDATION_FRACTION, N_ITER_NO_CHANGE, TOL,
    N_JOBS.but(doc="Threads of each tree's search; the model does not depend on it."),
    RANDOM_STATE.but(doc="Seeds the validation split and the subsampling."),
    VERBOSE.but(doc="""
    0 reports nothing. With 1 or more, the fit reports the rounds done out of
    ``n_estimators``, the training loss and, with early stopping, the validation loss, as a
    bar or log lines (see :class:`DPDTreeClassifier`).
    """))
BOOSTING_REGRESSOR = (LOSS, HUBER_QUANTILE, *BOOSTING)

# ------------------------------------------------------------------------------------ BRANCHES

LAM = Param(
    "lam", 0.01, [Interval(Real, 0, None, closed="left")], "float",
    "Penalty per split, in units of training accuracy.")

MAX_BRANCHES = Param(
    "max_branches", 50_000_000, [Interval(Integral, 1, None, closed="left")], "int",
    """
    The search stops beyond this many distinct branches, as at ``time_limit``: with the best
    tree found (never worse than pruned ID3's), its ``upper_bound_`` and a
    ``ConvergenceWarning`` naming the limit.
    """,
    shown="50_000_000")

# The parameters of BranchesClassifier. Its features are categories: no depth limit by default,
# and numeric features binned only when asked.
BRANCHES = (
    LAM,
    MAX_DEPTH.but(default=None, constraint=[Interval(Integral, 1, None, closed="left"), None],
                  type="int or None", doc="Depth limit; None means none."),
    MAX_BINS.but(default=None, constraint=[Interval(Integral, 2, None, closed="left"), None],
                 type="int or None", doc="""
    Numeric features with more distinct values than this are binned into at most
    ``max_bins`` quantile bins (edges kept for predict); None keeps every distinct value
    as a category (and warns where a feature looks continuous). NaN has a code of its
    own after the bins.
    """),
    TIME_LIMIT.but(doc="""
    Seconds after which the search stops and returns the best tree found, with a
    ``ConvergenceWarning`` and a certified ``upper_bound_``. Within the limit, depth-limited
    searches run too, and one of them can prove the optimum: a tree better than the best
    found, of objective H, has fewer than (1 - H) / lam splits, hence no more depth, so a
    search proven optimal at that depth is optimal among all trees.
    """),
    MAX_BRANCHES,
    VERBOSE.but(doc="""
    0 reports nothing. With 1 or more, the fit reports the branches expanded and the
    seconds elapsed, and at the end the objective and whether it is proven optimal, as a
    bar or log lines (see :class:`DPDTreeClassifier`).
    """))
