"""A treatment policy under a budget: from a trial's (X, treatment, outcome) to a plotted tree.

A randomised trial gives each unit a treatment (or not) and records its outcome. The doubly
robust rewards estimate what each unit would gain from each action; the policy tree chooses who
to treat. Treating costs 1 a unit and the control 0, so the fit also finds the budget front:
the best policy for each total number of treated units. The figure draws the tree that treats at
most 600 of the 3000 training units, and the front, with each policy's value on the held-out
units.

Run ``python examples/policy_budget.py [--out DIR]``; it writes ``policy_budget.png`` (the user
guide shows ``docs/img/policy_budget.png``, made with ``--out docs/img``).
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dpdt import DPDTreePolicy, doubly_robust_rewards, plot_cost_front, plot_tree  # noqa: E402

FEATURES = ["age", "dose", "bmi"]


def main(out="."):
    """Fit the policy and its budget front, draw both; return the figure's path."""
    rng = np.random.default_rng(0)
    X = rng.random((4000, 3))
    treatment = rng.integers(0, 2, 4000)                      # a randomised trial
    effect = 2 * X[:, 0] - 1 + (X[:, 1] > 0.7)                # who gains from the treatment
    outcome = effect * treatment + rng.normal(size=4000)
    train, test = slice(0, 3000), slice(3000, None)
    # Held-out rewards are estimated on the held-out units alone.
    rewards = doubly_robust_rewards(X[train], treatment[train], outcome[train], random_state=0)
    rewards_test = doubly_robust_rewards(X[test], treatment[test], outcome[test],
                                         random_state=0)
    policy = DPDTreePolicy(max_depth=2).fit(X[train], rewards, action_costs=[0.0, 1.0])
    budget = 600
    policy.select_tree(max_cost=budget)                       # treat at most 600 units
    treated = int((policy.predict(X[train]) == 1).sum())
    print(f"{len(policy.cost_front_)} policies on the budget front; within {budget} units: "
          f"{treated} treated, value {policy.score(X[train], rewards):.3f} (train), "
          f"{policy.score(X[test], rewards_test):.3f} (test)")
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8),
                                      gridspec_kw={"width_ratios": [1.1, 1]})
    plot_tree(policy, ax=left, feature_names=FEATURES)
    left.set_title(f"the policy within a budget of {budget} treated units", fontsize=10)
    plot_cost_front(policy, ax=right, X_test=X[test], rewards_test=rewards_test)
    right.set_xlabel("treated units (training sample of 3000)")
    path = Path(out) / "policy_budget.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="folder to write policy_budget.png in")
    print(main(parser.parse_args().out))
