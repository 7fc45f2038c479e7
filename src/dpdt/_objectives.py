"""What Python knows of each objective of the core: one descriptor per objective.

The core declares an objective's statistics, leaf value, loss and traits (its header in
``cpp/include/dpdt/objectives``). Its descriptor here says the rest, once, for every fit that
uses it (the estimators, the data-parallel fits of ``dpdt.dask``, boosting's rounds): the name
the core knows it by (its ``kName``), the size of its statistics, how a tree is built from the
core's leaf values, and how its targets cross into the core and come back. The core's tolerances are
absolute (see ``_validation``): targets reach it divided by powers of two, and centred where
sums of squares would cancel, so that it never sees the user's units; the trees and losses it
returns are scaled back by the same powers of two, exactly.

A target scale is found by reductions over the training rows, written once for a fit in one
process (one part: all the rows) and a fit over a cluster (one part per partition): see
:meth:`Objective.fit_scale`. A new objective is one more descriptor here, and an entry in
:data:`OBJECTIVES`.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import mean_squared_error
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, column_or_1d

from . import _core
from ._tree import Tree
from ._validation import (
    binary_exponent,
    check_target_spread,
    fixed_sums,
    fixed_units,
    is_missing_label,
    mean_from_sums,
    row_max,
    row_min,
)


@dataclass(frozen=True)
class Unscaled:
    """The scale of targets that cross into the core as they are: nothing to undo."""

    #: The core's losses (and so alphas) are the user's times ``2**loss_exponent``.
    loss_exponent: int = 0

    def to_core(self, y):
        """Return the targets ``y`` as the core reads them."""
        return y

    def unscale_tree(self, tree):
        """Bring a tree the core fitted on ``to_core(y)`` back to y's unit, in place."""


@dataclass(frozen=True, eq=False)
class CentredScale:
    """Targets divided by ``2**first``, less ``centre``, divided by ``2**shift``.

    Exact but for the subtraction of the centre, which a sum of squares needs: far from the
    mean, ``sum w y^2 - (sum w y)^2 / W`` cancels badly. The first power of two brings y near 1,
    the second the centred values.
    """

    first: int
    centre: np.ndarray   # one per output, in the unit of y / 2**first
    shift: int

    @property
    def exponent(self):
        """The core's targets are y's, less the offset, divided by ``2**exponent``."""
        return self.first + self.shift

    @property
    def offset(self):
        """The centre in y's unit."""
        return np.ldexp(self.centre, self.first)

    @property
    def loss_exponent(self):
        """Squared errors: the core's losses are y's unit squared, over ``4**exponent``."""
        return 2 * self.exponent

    def to_core(self, y):
        """Return the targets ``y`` (n_samples, n_outputs) as the core reads them."""
        centred = np.ldexp(y, -self.first) - self.centre
        return np.ascontiguousarray(np.ldexp(centred, -self.shift))

    def unscale_tree(self, tree):
        """Bring a tree of leaf means fitted on ``to_core(y)`` back to y's unit, in place."""
        tree.value = np.ldexp(tree.value, self.exponent) + self.offset[np.newaxis, :, np.newaxis]
        tree.impurity = np.ldexp(tree.impurity, self.loss_exponent)


UNSCALED = Unscaled()


def _largest_weighted(y, weight, first):
    """Return the rows' largest |weight x y / 2**first| per output, and largest weight."""
    values = np.ldexp(y, -first)
    return np.append(np.max(np.abs(weight[:, np.newaxis] * values), axis=0, initial=0.0),
                     np.max(weight, initial=0.0))


def _weighted_sums(y, weight, first, units):
    """Return the rows' exact sums of weight x y / 2**first and of weight, in fixed point."""
    return fixed_sums(np.ldexp(y, -first), weight, units)


def _centred_spread(y, weight, first, centre):
    """Return the rows' largest |centred y|, their weighted squares and their weights' sum.

    The squares of the centred values brought near 1 by their own power of two, so that
    values far below 1 do not underflow: the caller brings every part's to a common one.
    """
    centred = np.ldexp(y, -first) - centre
    largest = float(np.max(np.abs(centred), initial=0.0))
    squares = np.square(np.ldexp(centred, -binary_exponent(largest))).sum(axis=1)
    # numpy's weighted average, to the bit, when the rows are in one part.
    return largest, float(np.multiply(squares, weight).sum()), float(weight.sum())


def _labels(y, n_rows, where):
    """Return class labels of one part of the rows as a 1-d array, checked."""
    y = column_or_1d(np.asarray(y), warn=True)
    if len(y) != n_rows:
        raise ValueError(f"{where}: X has {n_rows} rows and y {len(y)}: the partitions (chunks) "
                         "of X and y must hold the same rows")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{where}: y contains NaN")
    if y.dtype.kind == "O" and any(label is None for label in y):
        raise ValueError(f"{where}: y contains None")
    return y


def _values(y, n_rows, where, name="y"):
    """Return numeric targets of one part of the rows as float64 of shape (n, n_outputs).

    ``name`` is what the errors call them (a policy's "rewards").
    """
    try:
        # scikit-learn's finiteness check sums the values first: huge finite values overflow
        # that sum (an exact check follows), which is no reason to warn.
        with np.errstate(over="ignore", invalid="ignore"):
            y = check_array(y, dtype=np.float64, ensure_2d=False, ensure_min_samples=0,
                            input_name=name)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from error
    if y.ndim > 2 or len(y) != n_rows:
        raise ValueError(f"{where}: X has {n_rows} rows and y has shape {y.shape}: the "
                         "partitions (chunks) of X and y must hold the same rows")
    return y[:, np.newaxis] if y.ndim == 1 else y


@dataclass(frozen=True)
class Objective:
    """The Python side of an objective of the core (the defaults: numeric targets, leaf means).

    ``name`` is the core's name for it (the ``kind`` by which its fit, ``_core.fit``, and
    its fits over machines dispatch); ``splits_at_root`` says whether ``dpdt.dask.fit`` can
    split that fit over processes. ``n_columns``, below, is the number
    of target columns the core is told of (its ``n_classes`` argument): classes, outputs.
    """

    name: str
    splits_at_root: bool = True

    @property
    def bounded_search(self):
        """Whether the core's branch and bound serves this objective's single-alpha fits.

        The core's trait: its bounds need a loss that is >= 0 and never drops as samples are
        added.
        """
        return self.name in _core.bounded_search_objectives

    def stat_dim(self, n_columns):
        """Return the size of a leaf's statistics."""
        raise NotImplementedError

    def sample_quantities(self, n_columns):
        """Return the number of per-sample quantities the binned histograms sum."""
        return self.stat_dim(n_columns)

    def core_arguments(self, n_columns):
        """Return the fit function's keyword arguments that say the targets' shape."""
        return {}

    def make_tree(self, arrays, n_features):
        """Return the :class:`Tree` of the core's arrays (``value``: the leaves' values)."""
        return Tree.from_means(arrays, n_features)

    def loss_unit(self, front):
        """Return the scale of the losses of a front, for its tie tolerances.

        Losses in the targets' unit (squared, for squared errors): ties are judged relative to
        the single leaf's loss (the front's last), so that the targets' scale does not matter.
        """
        root = front["train_loss"][-1]
        return root if root > 0 else 1.0

    #: What ``train_loss`` measures, as pictures of the front name it.
    loss_name = "mean squared error"

    def held_out_loss(self, model, X, y):
        """Return the loss of ``model``'s current tree on ``(X, y)``, as ``train_loss``'s.

        The squared error, summed over the outputs.
        """
        return float(np.sum(mean_squared_error(y, model.predict(X), multioutput="raw_values")))

    def check_trees(self, estimator, trees, decoder, where):
        """Check that a loaded estimator's trees hold what a fit makes: a mean per output."""
        n_outputs = getattr(estimator, "n_outputs_", None)
        decoder.expect(isinstance(n_outputs, int)
                       and all(t.value.shape[1:] == (n_outputs, 1) for t in trees),
                       f"{where}: the trees' values do not match n_outputs_")
        for k, tree in enumerate(trees):
            tree._check_values(decoder, f"{where}: trees_[{k}]", classifier=False)

    # The targets' scale.

    def kept_summary(self, y, weight):
        """Return what a part of the training rows reports with its count: see fit_scale."""
        return {}

    def fit_scale(self, kept, reduce):
        """Return the scale of the training targets (``to_core``, ``unscale_tree``, ...).

        ``kept`` holds, per part of the training rows, its ``rows`` and its
        :meth:`kept_summary`; ``reduce(function, *args)`` returns the list, over the parts, of
        ``function(y, weight, *args)`` on each part's targets (as :meth:`encode` returns
        them) and normalised weights. ``function`` is a module-level function (it is sent to
        the machines that hold the rows); results must not depend on how the rows are split.
        """
        return UNSCALED

    def scale_of(self, y, weight):
        """Return :meth:`fit_scale` of the training targets ``y`` held in one process."""
        kept = [dict(self.kept_summary(y, weight), rows=len(weight))]
        return self.fit_scale(kept, lambda function, *args: [function(y, weight, *args)])

    # A part of the rows of a fit over machines (``dpdt.dask``).

    def part_targets(self, y, n_rows, where):
        """Return one part's targets, checked, as an array (``where`` names the part)."""
        return _values(y, n_rows, where)

    def target_columns(self, y):
        """Return the number of target columns of :meth:`part_targets`' array (None: labels)."""
        return y.shape[1]

    def groups(self, y):
        """Return (labels, codes): the groups whose weights scale apart, and each row's group.

        Classes, for class weights; one group by default.
        """
        return np.zeros(1), np.zeros(len(y), dtype=np.intp)

    def encode(self, y, weight, scale):
        """Return (y, weight) of one part as the core's fit takes them, before ``to_core``.

        ``scale`` is the weights' scale the driver derived from every part's summary: the
        ``labels``, class weights' ``factors`` (or None) and their power of two ``shift``.
        """
        return y, weight

    def fitted_shape(self, labels, columns, names=None):
        """Return (the fitted estimator's attributes of the targets' shape, ``n_columns``).

        ``names`` are the targets' column names, when they came in a dataframe.
        """
        return {"n_outputs_": columns}, columns


@dataclass(frozen=True)
class Classification(Objective):
    """Classification by the weighted 0-1 loss: statistics are the weighted class sums."""

    def stat_dim(self, n_columns):
        """Return the size of a leaf's statistics: one weighted sum per class."""
        return n_columns

    def sample_quantities(self, n_columns):
        """Return 1: the histograms sum each sample's weight under its class."""
        return 1

    def core_arguments(self, n_columns):
        """Return ``n_classes``, the fit function's argument."""
        return {"n_classes": n_columns}

    def make_tree(self, arrays, n_features):
        """Return the :class:`Tree` of class fractions of the core's weighted class sums."""
        return Tree.from_weighted_counts(arrays, n_features)

    def loss_unit(self, front):
        """Return 1: the loss is a fraction of the weight."""
        return 1.0

    def check_trees(self, estimator, trees, decoder, where):
        """Check that a loaded classifier's trees hold a class fraction per class."""
        classes = getattr(estimator, "classes_", None)
        decoder.expect(isinstance(classes, np.ndarray) and classes.ndim == 1
                       and all(t.value.shape[1:] == (1, len(classes)) for t in trees),
                       f"{where}: the trees' class fractions do not match classes_")
        for k, tree in enumerate(trees):
            tree._check_values(decoder, f"{where}: trees_[{k}]", classifier=True)

    def part_targets(self, y, n_rows, where):
        """Return one part's class labels, checked."""
        return _labels(y, n_rows, where)

    def target_columns(self, y):
        """Return None: the columns are the classes, known from every part's labels."""
        return None

    def groups(self, y):
        """Return the part's classes and each row's: class weights scale them apart."""
        return np.unique(y, return_inverse=True)

    def encode(self, y, weight, scale):
        """Return the class codes (int32) and the weights times the class weights."""
        codes = np.searchsorted(scale["labels"], y)
        if scale.get("factors") is not None:
            weight = np.ldexp(weight * scale["factors"][codes], -scale["shift"])
        return codes.astype(np.int32), weight

    def fitted_shape(self, labels, columns, names=None):
        """Return ``classes_`` and ``n_classes_``, and the number of classes."""
        check_classification_targets(labels)
        return {"classes_": labels, "n_classes_": len(labels)}, len(labels)


@dataclass(frozen=True)
class SquaredErrorObjective(Objective):
    """Regression by the weighted squared error, summed over the outputs: leaf means."""

    def stat_dim(self, n_columns):
        """Return the size of a leaf's statistics: weight, and per output a sum and a square."""
        return 1 + 2 * n_columns

    def kept_summary(self, y, weight):
        """Return the part's largest |y|, for the targets' first power of two."""
        return {"max_abs_y": float(np.max(np.abs(y), initial=0.0))}

    def fit_scale(self, kept, reduce):
        """Return the :class:`CentredScale` of the targets: centred on their weighted mean.

        The centre need not be the exact mean, only near it and the same whatever the rows'
        order and parts: a weighted mean summed in fixed point (``_validation.fixed_sums``),
        whose parts' sums add up exactly.
        """
        first = binary_exponent(np.array([k["max_abs_y"] for k in kept]))
        largest = np.max(reduce(_largest_weighted, first), axis=0)
        units = fixed_units(largest, sum(k["rows"] for k in kept))
        sums = reduce(_weighted_sums, first, units)
        columns = [sum(column) for column in zip(*(s[0] for s in sums), strict=True)]
        centre = mean_from_sums(columns, sum(s[1] for s in sums), units)
        spread = reduce(_centred_spread, first, centre)
        shift = binary_exponent(np.array([s[0] for s in spread]))
        squares = sum(np.ldexp(s[1], 2 * (binary_exponent(s[0]) - shift)) for s in spread)
        scale = CentredScale(first, centre, shift)
        check_target_spread(squares / sum(s[2] for s in spread), scale.exponent)
        return scale


@dataclass(frozen=True, eq=False)
class NewtonScale:
    """Gradients divided by ``2**g``, hessians by ``2**h``, weights by ``2**w``.

    ``s`` is the exponent of the weights' own scale (``training_weight``'s): the tree's node
    weights and impurities are brought back to the user's weights.
    """

    g: int
    h: int
    w: int
    s: int

    def unscale_tree(self, tree):
        """Bring a tree of Newton leaf values back to the unit of the gradients, in place."""
        tree.value = np.ldexp(tree.value, self.g - self.h)
        tree.impurity = np.ldexp(tree.impurity, 2 * self.g - self.h + self.s)
        tree.weighted_n_node_samples = np.ldexp(tree.weighted_n_node_samples, self.w + self.s)


@dataclass(frozen=True)
class NewtonObjective(Objective):
    """XGBoost's second-order objective of boosting: statistics are [W, G, H]."""

    def stat_dim(self, n_columns):
        """Return 3: the sums of the weights, gradients and hessians."""
        return 3

    def to_core(self, g, h, w, weight_scale, reg_lambda, gamma):
        """Return the :class:`NewtonScale`, the core's (gh, w) and its reg_lambda and gamma.

        ``g``, ``h`` and ``w`` come with the weights normalised (``training_weight``),
        divided by ``weight_scale``; ``reg_lambda`` and ``gamma`` are in the unit of the
        user's weights, as in XGBoost, and the objective in the normalised unit is the same
        with both divided by ``weight_scale``. Each power of two brings the largest near 1
        (h and reg_lambda share theirs, the larger's, so that it stays finite), reg_lambda in
        h's unit and gamma in the loss's, 2**(h - 2g). All exact: the tree is the same, its
        values, impurities and weights scaled back by :meth:`NewtonScale.unscale_tree`. The
        core's target ``gh`` holds the rows (g, h), shape (n_samples, 2).
        """
        s = binary_exponent(weight_scale)
        a, c = binary_exponent(g), binary_exponent(w)
        b = binary_exponent(h)
        if reg_lambda > 0:
            b = max(b, binary_exponent(reg_lambda) - s)
        # A gamma beyond 2**1000 in the core's unit forbids every split, as the real one does;
        # capped, the core's sums of leaf losses stay finite.
        gamma = min(float(np.ldexp(gamma, b - 2 * a - s)), 2.0**1000)
        gh = np.column_stack((np.ldexp(g, -a), np.ldexp(h, -b)))
        arrays = (gh, np.ascontiguousarray(np.ldexp(w, -c)))
        return (NewtonScale(a, b, c, s), arrays,
                {"reg_lambda": float(np.ldexp(reg_lambda, -b - s)), "gamma": gamma})


@dataclass(frozen=True, eq=False)
class RewardScale:
    """Rewards less each row's least, divided by ``2**exponent``.

    A reward common to every action of a sample changes no policy's regret, and without it
    the regret is no difference of large numbers: the core's tolerances, relative to the
    rewards' sums, then hold whatever the rewards' offset. The power of two brings the largest
    shifted reward near 1 (exact, as for the other objectives). The core's leaf values are
    then the mean rewards above each sample's least: :meth:`unscale_tree` brings them to the
    rewards' unit, and the estimator adds back the mean of the rows' least per node, summed in
    units of ``2**offset_exponent`` (which brings the largest least near 1), so that rewards
    near float64's largest, whose sums overflow, still give their means.
    """

    exponent: int
    offset_exponent: int = 0

    @property
    def loss_exponent(self):
        """The regret is in the rewards' unit: the core's, over ``2**exponent``."""
        return self.exponent

    def to_core(self, y):
        """Return the rewards ``y`` (n_samples, n_actions) as the core reads them."""
        shifted = y - row_min(y)[:, np.newaxis]
        return np.ascontiguousarray(np.ldexp(shifted, -self.exponent))

    def unscale_tree(self, tree):
        """Bring a tree fitted on ``to_core(y)`` back to the rewards' unit, in place."""
        tree.value = np.ldexp(tree.value, self.exponent)
        tree.impurity = np.ldexp(tree.impurity, self.exponent)


def _largest_spread(y, weight, exponent):
    """Return the rows' largest reward above the row's least, and the largest least's size.

    ``exponent`` is unused. The spread is infinite when it overflows float64, which
    :meth:`PolicyObjective.fit_scale` refuses (so no overflow warning comes before its error).
    """
    least = row_min(y)
    with np.errstate(over="ignore"):
        return [float(np.max(row_max(y) - least, initial=0.0)),
                float(np.max(np.abs(least), initial=0.0))]


def reward_shape_error(shape):
    """Return the message that refuses rewards of ``shape``, which is not 2-D."""
    return (f"rewards must be 2-D, of shape (n_samples, n_actions): one column per action, got "
            f"shape {shape}")


@dataclass(frozen=True)
class PolicyObjective(Objective):
    """Policy trees: the regret against each sample's best action, from a reward per action.

    Statistics are [W, sum w max_a r_a, sum w r_1, ..., sum w r_k]; a leaf's values are the
    mean reward of each action (the policy takes their argmax).
    """

    def stat_dim(self, n_columns):
        """Return the size of a leaf's statistics: weight, best reward, one sum per action."""
        return 2 + n_columns

    def part_targets(self, y, n_rows, where):
        """Return one part's rewards, refusing a single column of them (as :func:`reward_table`)."""
        if getattr(y, "ndim", 2) != 2:
            raise ValueError(f"{where}: {reward_shape_error(np.shape(y))}")
        return _values(y, n_rows, where, name="rewards")

    def fit_scale(self, kept, reduce):
        """Return the :class:`RewardScale`: the largest spread of a row's rewards near 1."""
        spread, least = np.max(np.reshape(reduce(_largest_spread, 0), (-1, 2)), axis=0)
        if not np.isfinite(spread):
            raise ValueError("the rewards of a sample differ by more than float64 holds: "
                             "divide them by a common factor")
        return RewardScale(binary_exponent(spread), binary_exponent(least))

    loss_name = "mean regret"

    def fitted_shape(self, labels, columns, names=None):
        """Return ``n_actions_`` and ``actions_`` (the rewards' column names, else indices)."""
        if names is not None and len(names) != columns:
            raise ValueError(f"the rewards name {len(names)} actions but have {columns} "
                             "columns")
        if names is not None:
            # A column without a name would be an action predict cannot tell from a missing
            # value (nor a file keep).
            unnamed = [k for k, name in enumerate(names) if is_missing_label(name)]
            if unnamed:
                raise ValueError(f"the rewards' columns name the actions, and column "
                                 f"{unnamed[0]} has none ({names[unnamed[0]]!r}): name every "
                                 "column, or pass an array")
        actions = np.asarray(names) if names is not None else np.arange(columns)
        return {"n_actions_": columns, "actions_": actions}, columns

    def row_offsets(self, y, scale):
        """Return what the core's rewards leave out of each row of ``y``: its least reward.

        The core's leaf values are the mean rewards above each row's least
        (:meth:`RewardScale.to_core`); the least's mean over a node's samples brings them back
        to the rewards. In units of ``2**scale.offset_exponent`` (exactly), so that their sums
        stay finite: ``np.ldexp(mean, scale.offset_exponent)`` is the mean least.
        """
        return np.ldexp(row_min(y), -scale.offset_exponent)

    def held_out_loss(self, model, X, y):
        """Return the mean regret of ``model``'s policy on the rewards ``y`` of ``X``."""
        best = float(np.mean(np.max(np.asarray(y, dtype=np.float64), axis=1)))
        return best - model.score(X, y)

    def check_trees(self, estimator, trees, decoder, where):
        """Check that a loaded policy's trees hold a mean reward per action."""
        actions = getattr(estimator, "actions_", None)
        decoder.expect(isinstance(actions, np.ndarray) and actions.ndim == 1
                       and all(t.value.shape[1:] == (len(actions), 1) for t in trees),
                       f"{where}: the trees' values do not match actions_")
        for k, tree in enumerate(trees):
            tree._check_values(decoder, f"{where}: trees_[{k}]", classifier=False)


#: The 0-1 loss of classification trees.
CLASSIFICATION = Classification("classifier")
#: The squared error of regression trees.
SQUARED_ERROR = SquaredErrorObjective("regressor")
#: Boosting's Newton objective: fitted per round on data prepared once.
NEWTON = NewtonObjective("newton", splits_at_root=False)

#: Policy trees: the regret of choosing one action per leaf.
POLICY = PolicyObjective("policy")

#: Every objective, by its core name.
OBJECTIVES = {objective.name: objective
              for objective in (CLASSIFICATION, SQUARED_ERROR, NEWTON, POLICY)}
