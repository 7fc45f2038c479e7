"""Monotonic constraints in the core (``Params.monotonic_cst``), against ground truth.

- Every tree the core returns under constraints (every point of the front, every splitter and
  layout, the three objectives that take them) passes the leaf-pair check of ``_monotone.py``, and
  its loss on the training rows is the loss the front reports for it.
- With the exhaustive splitter at every depth the search is exact over the trees of the midpoint
  rule: its optimum equals the brute force of ``_monotone_rule.py`` for several alphas.
- The default CART generator never loses to scikit-learn's monotone CART of the same depth in
  training loss (the rule is scikit-learn's, and the generator proposes monotone CART's splits).
- Constraints that are all zero leave the fit as it is; what cannot carry constraints says so.
"""

import numpy as np
import pytest
from _monotone import violations
from _monotone_rule import Task, best_objective
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from dpdt import _core
from dpdt._runner import call_core, core_params

KINDS = ("regressor", "classifier", "newton")


def make_data(kind, seed, n, p, ties=False):
    """Rows whose target rises with feature 0 and falls with feature 1, with noise."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 5, size=(n, p)).astype(np.float64) if ties else rng.rand(n, p)
    signal = X[:, 0] - X[:, 1] + 0.3 * np.sin(7 * X[:, -1])
    noisy = signal + rng.normal(scale=0.6 * signal.std() + 0.1, size=n)
    w = rng.choice([0.5, 1.0, 2.0], size=n) if seed % 2 else np.ones(n)
    if kind == "classifier":
        y = (noisy > np.median(noisy)).astype(np.int32)
    elif kind == "regressor":
        y = (noisy - noisy.mean()).reshape(-1, 1)
    else:
        h = rng.uniform(0.5, 1.5, size=n)
        y = np.column_stack([-(noisy - noisy.mean()) * h, h]) * w[:, None]
    return X, y, w


def every_value_binned(X):
    """Bins of X holding one distinct value each: the binned search sees every threshold."""
    uppers = [np.unique(column) for column in X.T]
    codes = np.column_stack([np.searchsorted(u, column) for u, column in zip(uppers, X.T,
                                                                             strict=True)])
    return dict(codes=np.ascontiguousarray(codes, dtype=np.uint8),
                n_bins=np.array([len(u) for u in uppers], dtype=np.int32),
                upper=np.concatenate(uppers))


CALL_ARGUMENTS = ("count_root_tasks", "root_tasks", "root_solutions")


def core_fit(kind, X, y, w, cst, depth, splitter="exhaustive", budget=4, binned=False, **extra):
    params = dict(max_depth=depth, candidates=[budget] * depth, splitters=[splitter] * depth,
                  complexity="n_splits", max_states=10**7, n_threads=1, monotonic_cst=list(cst))
    params.update({k: v for k, v in extra.items() if k not in CALL_ARGUMENTS})
    arguments = {"n_classes": 2} if kind == "classifier" else {}
    arguments.update({k: v for k, v in extra.items() if k in CALL_ARGUMENTS})
    if kind == "newton":
        arguments.update(reg_lambda=1.0, gamma=0.0)
    if binned:
        arguments.update(every_value_binned(X))
    return call_core("fit", kind, np.ascontiguousarray(X), np.ascontiguousarray(y),
                     np.ascontiguousarray(w), params=params, **arguments)


class Arrays:
    """A tree of the core's arrays, as ``_monotone`` reads scikit-learn's ``tree_``."""

    def __init__(self, tree):
        for key, value in tree.items():
            setattr(self, key, value)


def leaves_of(tree, X):
    return _core.apply(tree["children_left"], tree["children_right"], tree["feature"],
                       tree["threshold"], tree["missing_go_to_left"], np.ascontiguousarray(X))


def tree_loss(kind, tree, X, y, w, reg_lambda=1.0):
    """The loss of the tree's outputs on the rows, from its arrays alone."""
    leaves = leaves_of(tree, X)
    value = np.asarray(tree["value"])
    if kind == "classifier":
        predicted = np.argmax(value[leaves], axis=1)
        return float(np.sum(w * (predicted != y)))
    if kind == "regressor":
        return float(np.sum(w * (y[:, 0] - value[leaves, 0]) ** 2))
    total = 0.0
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        v = value[leaf, 0]
        total += np.sum(y[rows, 0]) * v + 0.5 * (np.sum(y[rows, 1]) + reg_lambda) * v * v
    return float(total)


def check_front(kind, result, X, y, w, cst):
    """Every tree of the front is monotone and loses what the front says it does."""
    front = result["front"]
    assert front
    scale = np.sum(w) if kind != "newton" else max(1.0, float(np.sum(np.abs(y[:, 0]))))
    for point in front:
        tree = point["tree"]
        found = violations(Arrays(tree), cst, classifier=kind == "classifier")
        assert not found, f"{len(found)} leaf pairs break {cst}"
        loss = tree_loss(kind, tree, X, y, w)
        assert loss / np.sum(w) == pytest.approx(point["train_loss"], rel=1e-9, abs=1e-9 * scale)


SPLITTERS = [("cart", False), ("cart", True), ("exhaustive", False), ("exhaustive", True),
             ("topk", False), ("topk", True), ("topb", False), ("topb", True),
             ("quantile", False), ("screen", False), ("lookahead", False)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("splitter,binned", SPLITTERS)
@pytest.mark.parametrize("cst", [[1, 0, 0, 0], [1, -1, 0, 0], [0, -1, 1, 1], [-1, 1, -1, 1]])
def test_every_front_tree_is_monotone(kind, splitter, binned, cst):
    if splitter == "lookahead" and kind == "newton":
        return   # the lookahead needs a loss that grows with the samples (the core refuses)
    every_split = splitter in ("exhaustive", "topb")
    X, y, w = make_data(kind, seed=len(splitter) + sum(cst) + 3, n=60 if every_split else 120, p=4,
                        ties=binned)
    depth = 3 if every_split else 4
    result = core_fit(kind, X, y, w, cst, depth, splitter=splitter, binned=binned,
                      exact_depth2_work=10**6 if splitter == "cart" and not binned else 0)
    check_front(kind, result, X, y, w, cst)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 2])
def test_exhaustive_search_matches_brute_force(kind, seed, depth):
    X, y, w = make_data(kind, seed, n=9, p=3, ties=seed % 3 == 0)
    cst = [[1, -1, 0], [-1, 0, 1], [1, 1, 1]][seed % 3]
    task = Task(kind, y[:, 0] if kind == "regressor" else y, w)
    binned = seed % 2 == 1
    result = core_fit(kind, X, y, w, cst, depth, binned=binned)
    check_front(kind, result, X, y, w, cst)
    total = np.sum(w)
    for alpha in (0.0, 0.01, 0.05, 0.2):
        expected = best_objective(X, task, cst, depth, alpha_weight=alpha * total) / total
        found = min(p["train_loss"] + alpha * p["complexity"] for p in result["front"])
        assert found == pytest.approx(expected, rel=1e-9, abs=1e-12), alpha


def test_depth_three_matches_brute_force():
    X, y, w = make_data("regressor", 4, n=8, p=2)
    cst = [1, -1]
    result = core_fit("regressor", X, y, w, cst, 3)
    expected = best_objective(X, Task("regressor", y[:, 0], w), cst, 3)
    assert min(p["train_loss"] for p in result["front"]) == pytest.approx(expected / w.sum(),
                                                                           rel=1e-9)


def test_constraints_bind():
    """The constrained optimum is worse than the free one where the data break the constraint:
    a search that ignored the rule would not be caught by the brute force alone."""
    X = np.arange(8, dtype=np.float64).reshape(-1, 1)
    y = np.array([3, 2, 1, 0, 4, 5, 6, 7], dtype=np.float64).reshape(-1, 1)
    w = np.ones(8)
    free = core_fit("regressor", X, y, w, [0], 3)["front"][0]["train_loss"]
    constrained = core_fit("regressor", X, y, w, [1], 3)
    check_front("regressor", constrained, X, y, w, [1])
    assert constrained["front"][0]["train_loss"] > free + 0.1
    expected = best_objective(X, Task("regressor", y[:, 0], w), [1], 3)
    assert constrained["front"][0]["train_loss"] == pytest.approx(expected / 8, rel=1e-9)


def float32_exact(X):
    """X as scikit-learn's trees see it, so that both searches have the same thresholds."""
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def tictactoe():
    data = np.load(__file__.rsplit("/", 1)[0] + "/data/tictactoe.npz")
    return data["X"].astype(np.float64), data["y"].astype(np.int32)


def sets():
    cancer = load_breast_cancer()
    diabetes = load_diabetes()
    X, y, w = make_data("regressor", 11, n=400, p=5)
    yield ("cancer", "classifier", float32_exact(cancer.data), cancer.target.astype(np.int32),
           [0, 0, 0, 0, 0, 0, -1, -1] + [0] * 20 + [-1, 0])
    X_t, y_t = tictactoe()
    yield "tictactoe", "classifier", X_t, y_t, [1, 0, -1] + [0] * 24
    yield ("diabetes", "regressor", float32_exact(diabetes.data), diabetes.target,
           [1, 0, 1, 1] + [0] * 6)
    yield "synthetic", "regressor", float32_exact(X), y[:, 0], [1, -1, 0, 0, 0]


@pytest.mark.parametrize("name,kind,X,y,cst", list(sets()),
                         ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("budget", [1, 7])
def test_never_worse_than_monotone_cart(name, kind, X, y, cst, depth, budget):
    Model = DecisionTreeClassifier if kind == "classifier" else DecisionTreeRegressor
    cart = Model(max_depth=depth, monotonic_cst=cst, random_state=0).fit(X, y)
    w = np.ones(len(y))
    if kind == "classifier":
        cart_loss = float(np.mean(cart.predict(X) != y))
        target = y
    else:
        cart_loss = float(np.mean((cart.predict(X) - y) ** 2))
        # The core's tolerances are absolute: the estimators centre and scale y, and so do we.
        scale = np.std(y)
        target = ((y - y.mean()) / scale).reshape(-1, 1)
        cart_loss /= scale**2
    result = core_fit(kind, X, target, w, cst, depth, splitter="cart", budget=budget)
    check_front(kind, result, X, target, w, cst)
    best = min(p["train_loss"] for p in result["front"])
    assert best <= cart_loss + 1e-9 * max(1.0, cart_loss)


@pytest.mark.parametrize("kind", KINDS)
def test_zero_constraints_change_nothing(kind):
    X, y, w = make_data(kind, 5, n=200, p=3)
    fits = [core_fit(kind, X, y, w, cst, 3, splitter="cart", budget=5) for cst in ([], [0, 0, 0])]
    a, b = (f["front"] for f in fits)
    assert len(a) == len(b)
    for p, q in zip(a, b, strict=True):
        assert p["train_loss"] == q["train_loss"] and p["n_splits"] == q["n_splits"]
        for key in p["tree"]:
            np.testing.assert_array_equal(p["tree"][key], q["tree"][key])


@pytest.mark.parametrize("kind", KINDS)
def test_threads_do_not_change_a_constrained_fit(kind):
    X, y, w = make_data(kind, 7, n=3000, p=4)
    cst = [1, -1, 0, 0]
    one, two = (core_fit(kind, X, y, w, cst, 4, splitter="cart", budget=5, n_threads=t)["front"]
                for t in (1, 2))
    assert [p["train_loss"] for p in one] == [p["train_loss"] for p in two]
    for p, q in zip(one, two, strict=True):
        np.testing.assert_array_equal(p["tree"]["value"], q["tree"]["value"])


def test_single_alpha_is_served_by_the_front_search():
    """The bounded search knows no bounds: a constrained fit asking one alpha gets the front DP."""
    X, y, w = make_data("classifier", 2, n=150, p=3)
    result = core_fit("classifier", X, y, w, [1, -1, 0], 3, splitter="cart", single_alpha=0.01)
    check_front("classifier", result, X, y, w, [1, -1, 0])
    assert len(result["front"]) > 1


@pytest.mark.parametrize("cst,message", [([1, 0], "one entry per feature"),
                                         ([1, 0, 0, 0], "one entry per feature"),
                                         ([2, 0, 0], "-1, 0 or 1")])
def test_wrong_constraints_are_refused(cst, message):
    X, y, w = make_data("regressor", 0, n=30, p=3)
    with pytest.raises(ValueError, match=message):
        core_fit("regressor", X, y, w, cst, 2)


def test_what_has_no_scalar_value_refuses_constraints():
    X, y, w = make_data("regressor", 0, n=30, p=3)
    three = (np.arange(30) % 3).astype(np.int32)
    with pytest.raises(ValueError, match="monotonic_cst.*binary classification"):
        call_core("fit", "classifier", X, three, w, n_classes=3,
                  params=dict(max_depth=2, monotonic_cst=[1, 0, 0]))
    with pytest.raises(ValueError, match="multiple outputs"):
        core_fit("regressor", X, np.column_stack([y, y]), w, [1, 0, 0], 2)
    rewards = np.column_stack([y[:, 0], -y[:, 0]]) - np.minimum(y, -y)
    with pytest.raises(ValueError, match="not supported by the policy objective"):
        call_core("fit", "policy", X, np.ascontiguousarray(rewards), w,
                  params=dict(max_depth=2, monotonic_cst=[1, 0, 0]))
    # All zero constrains nothing: a multiclass fit goes on.
    call_core("fit", "classifier", X, three, w, n_classes=3,
              params=dict(max_depth=2, monotonic_cst=[0, 0, 0]))


def test_fits_over_machines_refuse_constraints():
    X, y, w = make_data("regressor", 0, n=30, p=3)
    binned = every_value_binned(X)
    mass = _core.quantity_mass("regressor", y, w, 1)
    params = core_params(_core.Params, dict(max_depth=2, monotonic_cst=[1, 0, 0]))
    with pytest.raises(ValueError, match="monotonic_cst is not supported by fits over machines"):
        _core.RemoteFit("regressor", params, binned["n_bins"], binned["upper"], 1, mass)


@pytest.mark.parametrize("kind", KINDS)
def test_a_fit_split_over_processes_keeps_the_bounds(kind):
    """dpdt.dask.fit's plan: the root's subproblems solved apart (in halves, as by two workers)
    and combined give the local fit, bit for bit, and its trees stay monotone."""
    X, y, w = make_data(kind, 9, n=300, p=4)
    cst = [1, -1, 0, 1]

    def fit(**arguments):
        return core_fit(kind, X, y, w, cst, 3, splitter="cart", budget=4, **arguments)

    n = fit(count_root_tasks=True)["root_tasks"]
    solutions = [s for tasks in (range(n // 2), range(n // 2, n))
                 for s in fit(root_tasks=list(tasks))["solutions"]]
    combined, local = fit(root_solutions=solutions), fit()
    check_front(kind, combined, X, y, w, cst)
    assert len(combined["front"]) == len(local["front"])
    for p, q in zip(combined["front"], local["front"], strict=True):
        assert p["train_loss"] == q["train_loss"]
        for key in p["tree"]:
            np.testing.assert_array_equal(p["tree"][key], q["tree"][key])
