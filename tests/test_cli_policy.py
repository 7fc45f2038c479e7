"""`dpdt policy`: the policy tree of a table's reward columns, or of a treatment and its outcome."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from dpdt import DPDTreePolicy, OneHotEncoded, doubly_robust_rewards, load
from dpdt._cli import main
from dpdt._export import export_text

ACTIONS = ["treat", "control", "other"]


def _rewards_table(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["age", "dose", "bmi"])
    R = pd.DataFrame({"treat": X.age + rng.normal(size=n), "control": -X.age + rng.normal(size=n),
                      "other": X.dose + 0.5 * rng.normal(size=n)})
    return X, R


def _causal_table(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["age", "dose", "bmi"])
    t = np.array(["placebo", "drug"])[rng.integers(0, 2, n)]
    y = np.where(t == "drug", X.age, -X.age) + rng.normal(size=n)
    return X, t, y


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("policy")
    X, R = _rewards_table(300, 0)
    pd.concat([X, R], axis=1).to_csv(d / "rewards.csv", index=False)
    X, R = _rewards_table(200, 1)
    pd.concat([X, R], axis=1).to_csv(d / "rewards_test.csv", index=False)
    X, t, y = _causal_table(400, 2)
    X.assign(arm=t, gain=y).to_csv(d / "causal.csv", index=False)
    X, t, y = _causal_table(300, 3)
    X.assign(arm=t, gain=y).to_csv(d / "causal_test.csv", index=False)
    return d


def _printed(out, prefix):
    """Return the numbers of the report's line that starts with ``prefix``, as printed."""
    line = next(line for line in out.splitlines() if line.startswith(prefix))
    return dict(part.strip().rsplit(" ", 1) for part in line[len(prefix):].split(","))


def test_reward_columns_give_the_python_policy(tables, tmp_path, capsys):
    out = tmp_path / "policy.json"
    assert main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control,other",
                 "--max-depth", "2", "--test", str(tables / "rewards_test.csv"),
                 "--out", str(out)]) == 0
    report = capsys.readouterr().out
    frame, test = pd.read_csv(tables / "rewards.csv"), pd.read_csv(tables / "rewards_test.csv")
    X, R = frame.drop(columns=ACTIONS), frame[ACTIONS]
    expected = DPDTreePolicy(max_depth=2).fit(X, R)
    assert "300 samples, 3 features, 3 actions (treat, control, other)" in report
    assert export_text(expected) in report
    values = _printed(report, "policy value (mean reward of its actions):")
    assert values == {"train": f"{expected.score(X, R):.6g}",
                      "test": f"{expected.score(test[X.columns], test[ACTIONS]):.6g}"}
    # Beside it, what giving everyone one action would earn, and the best actions' mean.
    assert ("one action for all: " + ", ".join(f"{a} {R[a].mean():.6g}" for a in ACTIONS)
            + f" (train); each sample's best action: {R.max(axis=1).mean():.6g}") in report
    assert "train regret" in report and "test regret" in report
    model = load(out)
    assert isinstance(model, DPDTreePolicy)
    assert_array_equal(model.pareto_front_, expected.pareto_front_)
    assert_array_equal(model.actions_, ACTIONS)

    # The saved policy predicts actions by name from the raw table, targets and all.
    assert main(["predict", str(out), str(tables / "rewards_test.csv")]) == 0
    predicted = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert_array_equal(predicted["prediction"], expected.predict(test[X.columns]))


def test_treatment_and_outcome_give_the_policy_of_doubly_robust_rewards(tables, capsys):
    assert main(["policy", str(tables / "causal.csv"), "--treatment", "arm", "--outcome",
                 "gain", "--max-depth", "2", "--folds", "3",
                 "--test", str(tables / "causal_test.csv")]) == 0
    report = capsys.readouterr().out
    frame, test = pd.read_csv(tables / "causal.csv"), pd.read_csv(tables / "causal_test.csv")
    X, X_test = frame.drop(columns=["arm", "gain"]), test.drop(columns=["arm", "gain"])
    actions = np.array(["drug", "placebo"])
    R = doubly_robust_rewards(X, frame.arm, frame.gain, actions=actions, cv=3, random_state=0)
    # The test split's rewards are cross-fitted on it alone.
    R_test = doubly_robust_rewards(X_test, test.arm, test.gain, actions=actions, cv=3,
                                   random_state=0)
    expected = DPDTreePolicy(max_depth=2).fit(X, R)
    assert "2 actions (drug, placebo), doubly robust rewards of 'arm' and 'gain'" in report
    assert export_text(expected) in report
    assert "action: drug" in report and "action: placebo" in report
    values = _printed(report, "policy value (mean reward of its actions):")
    assert values == {"train": f"{expected.score(X, R):.6g}",
                      "test": f"{expected.score(X_test, R_test):.6g}"}


def test_the_policy_value_is_the_score_at_any_alpha_and_splitter(tables, capsys):
    frame = pd.read_csv(tables / "rewards.csv")
    X, R = frame.drop(columns=ACTIONS), frame[ACTIONS[::-1]]
    for options in (["--alpha", "0.2"], ["--splitter", "exhaustive", "--max-depth", "2"]):
        assert main(["policy", str(tables / "rewards.csv"), "--rewards", "other,control,treat",
                     *options]) == 0
        report = capsys.readouterr().out
        params = {"alpha": 0.2} if "--alpha" in options else {"splitter": "exhaustive",
                                                              "max_depth": 2}
        expected = DPDTreePolicy(**params).fit(X, R)
        assert _printed(report, "policy value (mean reward of its actions):") == {
            "train": f"{expected.score(X, R):.6g}"}
        assert ("certified optimal" in report) == ("exhaustive" in options)


def test_options_reach_the_policy_and_other_models_options_are_refused(tables, tmp_path,
                                                                       capsys):
    out = tmp_path / "p.json"
    assert main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control",
                 "--max-depth", "2", "--splitter", "topk", "--candidates", "4", "--time-limit",
                 "30", "--n-jobs", "2", "--max-bins", "16", "--complexity", "n_splits",
                 "--features", "age,dose", "--out", str(out)]) == 0
    params = load(out).get_params()
    assert {k: params[k] for k in ("max_depth", "splitter", "candidates", "time_limit", "n_jobs",
                                   "max_bins", "complexity")} == {
        "max_depth": 2, "splitter": "topk", "candidates": (4,), "time_limit": 30.0, "n_jobs": 2,
        "max_bins": 16, "complexity": "n_splits"}
    assert load(out).feature_names_in_.tolist() == ["age", "dose"]
    capsys.readouterr()
    for option in (["--lam", "0.1"], ["--n-estimators", "3"], ["--target", "treat"]):
        with pytest.raises(SystemExit):
            main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control", *option])
        assert "unrecognized arguments" in capsys.readouterr().err


def test_the_options_are_the_policy_records(capsys):
    from dpdt import _params
    from dpdt._cli import MODEL_OPTIONS, build_parser

    parser = build_parser("policy")
    policy = next(a for a in parser._actions if hasattr(a, "choices") and a.choices)
    helps = {action.dest: action.help for action in policy.choices["policy"]._actions}
    records = {record.name: record for record in _params.POLICY}
    for name in MODEL_OPTIONS:
        assert (name in helps) == (name in records), name
        if name in records:
            default = records[name].default
            shown = ("none" if default is None else " ".join(map(str, default))
                     if isinstance(default, tuple) else str(default))
            assert f"(default: {shown})" in helps[name], name
    assert "rewards' unit" in helps["alpha"]   # the policy's own record, not the classifier's


def test_categorical_features_are_one_hot_encoded(tables, tmp_path, capsys):
    frame = pd.read_csv(tables / "rewards.csv")
    frame["site"] = np.where(frame.bmi > 0, "north", "south")
    frame.drop(columns="bmi").to_csv(tmp_path / "sites.csv", index=False)
    out = tmp_path / "p.json"
    assert main(["policy", str(tmp_path / "sites.csv"), "--rewards", "treat,control,other",
                 "--max-depth", "2", "--out", str(out)]) == 0
    assert "site one-hot encoded" in capsys.readouterr().out
    model = load(out)
    assert isinstance(model, OneHotEncoded)
    X, R = frame.drop(columns=[*ACTIONS, "bmi"]), frame[ACTIONS]
    expected = OneHotEncoded(DPDTreePolicy(max_depth=2)).fit(X, R)
    assert_array_equal(model.predict(X), expected.predict(X))


def test_explorer_page_of_the_front(tables, tmp_path, capsys):
    page = tmp_path / "page.html"
    assert main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control,other",
                 "--max-depth", "2", "--test", str(tables / "rewards_test.csv"),
                 "--explore", str(page)]) == 0
    assert f"explorer page written to {page}" in capsys.readouterr().out
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and '"control"' in html
    # To stdout, the report goes to stderr; two outputs cannot both go there.
    assert main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control",
                 "--max-depth", "1", "--explore", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("<!DOCTYPE html>") and "policy value" in captured.err
    assert main(["policy", str(tables / "rewards.csv"), "--rewards", "treat,control",
                 "--explore", "-", "--out", "-"]) == 2
    assert "--out and --explore both write to stdout" in capsys.readouterr().err


def test_costs_give_the_python_budget_front(tables, tmp_path, capsys):
    # One cost per action: a number for every sample, or a column for each sample's; the cost
    # column is no feature.
    frame = pd.read_csv(tables / "rewards.csv")
    frame["price"] = np.random.default_rng(5).random(len(frame))
    frame.to_csv(tmp_path / "priced.csv", index=False)
    out, page = tmp_path / "p.json", tmp_path / "page.html"
    assert main(["policy", str(tmp_path / "priced.csv"), "--rewards", "treat,control,other",
                 "--costs", "1.5, 0,price", "--max-depth", "2", "--max-cost", "40",
                 "--test", str(tables / "rewards_test.csv"), "--out", str(out),
                 "--explore", str(page)]) == 0
    report = capsys.readouterr().out
    X, R = frame[["age", "dose", "bmi"]], frame[ACTIONS]
    costs = np.column_stack([np.full(len(frame), 1.5), np.zeros(len(frame)), frame.price])
    expected = DPDTreePolicy(max_depth=2, max_cost=40).fit(X, R, action_costs=costs)
    model = load(out)
    assert model.feature_names_in_.tolist() == ["age", "dose", "bmi"]
    for name in ("cost", "value", "price_min", "price_max", "n_leaves"):
        assert_array_equal(model.cost_front_[name], expected.cost_front_[name])
    assert_array_equal(model.predict(X), expected.predict(X))
    assert "within max_cost = 40" in report and "Budget front" in report
    # The report's table is the front, dearest first, with each tree's test value.
    table = report.split("Budget front")[1].split("\n\n")[1].splitlines()[2:]
    assert [float(line.split("|")[1]) for line in table] == pytest.approx(
        expected.cost_front_["cost"], rel=1e-5)
    test = pd.read_csv(tables / "rewards_test.csv")
    probe = DPDTreePolicy(max_depth=2).fit(X, R, action_costs=costs)
    for line, cost in zip(table, expected.cost_front_["cost"], strict=True):
        score = probe.select_tree(max_cost=float(cost)).score(test[["age", "dose", "bmi"]],
                                                              test[ACTIONS])
        assert float(line.split("|")[3]) == pytest.approx(score, rel=1e-5)
    # The explorer page carries the budget front.
    html = page.read_text(encoding="utf-8")
    assert '"cost":{"rows":' in html


def test_costs_of_the_treatment_form_follow_its_sorted_actions(tables, capsys):
    # The actions of --treatment are its sorted values: drug, placebo.
    assert main(["policy", str(tables / "causal.csv"), "--treatment", "arm", "--outcome",
                 "gain", "--costs", "1,0", "--max-depth", "1"]) == 0
    report = capsys.readouterr().out
    assert "Budget front" in report
    last = report.split("Budget front")[1].split("\n\n")[1].splitlines()[-1]
    assert float(last.split("|")[1]) == 0.0   # the cheapest policy: placebo for all


@pytest.mark.parametrize("argv, message", [
    (["{d}/rewards.csv"], "name the rewards: --rewards A,B,..."),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--treatment", "arm"],
     "not both: --rewards and --treatment were given"),
    (["{d}/causal.csv", "--rewards", "age,dose", "--outcome", "gain"], "not both"),
    (["{d}/causal.csv", "--treatment", "arm"], "--treatment needs --outcome"),
    (["{d}/causal.csv", "--outcome", "gain"], "--outcome needs --treatment"),
    (["{d}/rewards.csv", "--rewards", "treat,nope"],
     "no column 'nope' for --rewards (columns: age, dose, bmi, treat, control, other)"),
    (["{d}/rewards.csv", "--rewards", "treat,nope,gone"], "no columns 'nope', 'gone'"),
    (["{d}/rewards.csv", "--rewards", "treat"],
     "--rewards names one column ('treat'): a policy chooses among at least two actions"),
    (["{d}/rewards.csv", "--rewards", "treat,,other"], "an empty column name"),
    (["{d}/rewards.csv", "--rewards", "treat,other,treat"], "names the column 'treat' twice"),
    (["{d}/text.csv", "--rewards", "treat,control"],
     "the reward column 'control' is not numeric (dtype"),
    (["{d}/text.csv", "--rewards", "treat,control"], "e.g. 'lots'"),
    (["{d}/holes.csv", "--rewards", "treat,control"],
     "the reward column 'treat' has missing values"),
    (["{d}/infinite.csv", "--rewards", "treat,control"],
     "column 'other' has infinite values; features are finite numbers"),
    (["{d}/infinite.csv", "--rewards", "treat,other"],
     "the reward column 'other' has infinite values"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--features", "age,treat"],
     "--features and --rewards both name 'treat'"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--features", "age,height"],
     "no column 'height' for --features"),
    (["{d}/only.csv", "--rewards", "treat,control,other"],
     "no feature columns besides those of --rewards"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "nope"], "no column 'nope' for "
                                                                    "--outcome"),
    (["{d}/causal.csv", "--treatment", "nope", "--outcome", "gain"], "no column 'nope' for "
                                                                     "--treatment"),
    (["{d}/causal.csv", "--treatment", "gain", "--outcome", "arm"],
     "the outcome column 'arm' is not numeric"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "arm"],
     "--treatment and --outcome name the same column 'arm'"),
    (["{d}/one_arm.csv", "--treatment", "arm", "--outcome", "gain"],
     "the treatment column 'arm' holds one action only ('drug')"),
    (["{d}/one_code.csv", "--treatment", "arm", "--outcome", "gain"],
     "the treatment column 'arm' holds one action only (2):"),
    (["{d}/no_arm.csv", "--treatment", "arm", "--outcome", "gain"],
     "the treatment column 'arm' has missing values"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "gain", "--features", "age,gain"],
     "--features and --outcome both name 'gain'"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "gain", "--test",
      "{d}/one_arm.csv"], "one_arm.csv: "),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--test", "{d}/only.csv"],
     "only.csv: no columns 'age', 'dose', 'bmi' for the features"),
    (["{d}/arrays.npz", "--rewards", "a,b"], "give a CSV or Parquet file"),
    (["{d}/header.csv", "--rewards", "treat,control"], "header.csv: no rows, only the columns"),
    (["{d}/spread.csv", "--rewards", "treat,control"],
     "the rewards of a sample differ by more than float64 holds"),
    (["{d}/few.csv", "--treatment", "arm", "--outcome", "gain"],
     "few.csv: Cannot have number of splits n_splits=5 greater than the number of samples"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "gain", "--folds", "1"],
     "causal.csv: cv must be an int >= 2"),
    (["{d}/absent.csv", "--rewards", "a,b"], "no such file"),
    (["{d}/rewards.csv", "--rewards", "treat,control,other", "--costs", "1,0"],
     "--costs gives 2 costs for 3 actions (treat, control, other): one per action, in that "
     "order"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,0,2"],
     "--costs gives 3 costs for 2 actions"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "gain", "--costs", "1"],
     "--costs gives 1 cost for 2 actions (drug, placebo)"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,,"], "an empty cost"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,-0.5"],
     "the cost -0.5 is not a finite number >= 0"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "inf,0"],
     "the cost inf is not a finite number >= 0"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "nan,0"],
     "the cost nan is not a finite number >= 0"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,fee"],
     "no column 'fee' for --costs (columns: age, dose, bmi, treat, control, other)"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,age"],
     "the cost column 'age' has negative values"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--costs", "1,treat"],
     "--costs and --rewards both name 'treat'"),
    (["{d}/causal.csv", "--treatment", "arm", "--outcome", "gain", "--costs", "1,gain"],
     "--costs and --outcome both name 'gain'"),
    (["{d}/priced.csv", "--rewards", "treat,control", "--costs", "1,price", "--features",
      "age,price"], "--features and --costs both name 'price'"),
    (["{d}/text.csv", "--rewards", "treat,other", "--costs", "1,control"],
     "the cost column 'control' is not numeric"),
    (["{d}/holes.csv", "--rewards", "control,other", "--costs", "treat,1"],
     "the cost column 'treat' has missing values"),
    (["{d}/rewards.csv", "--rewards", "treat,control", "--max-cost", "5"],
     "--max-cost is a budget on the costs of the actions: give them with --costs"),
])
def test_bad_input_names_the_problem(tables, capsys, argv, message):
    d = tables
    frame = pd.read_csv(d / "rewards.csv")
    frame.assign(control=np.where(np.arange(300) == 5, "lots", frame.control.astype(str))
                 ).to_csv(d / "text.csv", index=False)
    frame.assign(treat=np.where(np.arange(300) == 7, np.nan, frame.treat)).to_csv(
        d / "holes.csv", index=False)
    frame.assign(other=np.where(np.arange(300) == 9, np.inf, frame.other)).to_csv(
        d / "infinite.csv", index=False)
    frame[ACTIONS].to_csv(d / "only.csv", index=False)
    causal = pd.read_csv(d / "causal.csv")
    causal.assign(arm="drug").to_csv(d / "one_arm.csv", index=False)
    causal.assign(arm=2).to_csv(d / "one_code.csv", index=False)
    causal.assign(arm=causal.arm.where(np.arange(400) != 3)).to_csv(d / "no_arm.csv",
                                                                     index=False)
    np.savez(d / "arrays.npz", X=np.zeros((4, 2)), y=np.zeros(4))
    frame.iloc[:0].to_csv(d / "header.csv", index=False)
    frame.assign(treat=np.where(np.arange(300) == 4, 1.5e308, 0.0),
                 control=np.where(np.arange(300) == 4, -1.5e308, 0.0)).to_csv(
        d / "spread.csv", index=False)
    causal.iloc[:4].to_csv(d / "few.csv", index=False)
    frame.assign(price=1.0).to_csv(d / "priced.csv", index=False)
    capsys.readouterr()
    assert main(["policy", *[a.format(d=d) for a in argv]]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
