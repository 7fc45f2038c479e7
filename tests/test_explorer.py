"""The explorer page (export_html, `dpdt explore`, notebooks' HTML repr).

Without a browser: the page is one self-contained document, its data rebuild every tree of the
front exactly (thresholds to the bit), the test curve and the "select it" code are right, and
unfitted estimators keep scikit-learn's HTML repr. In a real browser (headless Chromium driven
by Selenium): clicks and keys show the tree the estimator holds, a test sample's path is the
estimator's decision path, the text of the drawings never overlaps, nothing is logged to the
console as an error and a screenshot shows both the front and the tree.

The browser tests need Debian's ``chromium`` and ``chromium-driver``: without them they skip, with
one line saying so, unless ``DPDT_REQUIRE_BROWSER=1`` (set by ``.ci/run``, which installs them)
makes a missing browser a failure. ``DPDT_NO_BROWSER=1`` skips them even where a browser is found.
"""

import copy
import io
import json
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context
from sklearn.datasets import load_iris, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.utils import estimator_html_repr

import dpdt
from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
    export_html,
)
from dpdt._cli import main
from dpdt._explorer import explorer_data

IRIS_NAMES = ["sepal length", "sepal width", "petal length", "petal width"]


def _iris():
    X, y = load_iris(return_X_y=True)
    X = pd.DataFrame(X, columns=IRIS_NAMES)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    return X, y


def _categorical(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                      "size": rng.choice(["S", "M", "L", "XL"], n),
                      "shape": rng.choice(["round", "square"], n)})
    y = np.where((X["colour"] == "red") | ((X["size"] == "XL") & (X["shape"] == "round")),
                 "yes", "no")
    return X, y


def _page_data(page):
    found = re.search(r'<script type="application/json" id="dpdt-data">(.*?)</script>', page,
                      re.S)
    return json.loads(found.group(1))


def _rebuild(nodes, root):
    """Return the preorder arrays of the tree at ``root`` of the page's node table."""
    tree = {key: [] for key in ("feature", "threshold", "left", "right", "n", "value")}

    def visit(g):
        k = len(tree["feature"])
        leaf = nodes["f"][g] < 0
        tree["feature"].append(-2 if leaf else nodes["f"][g])
        tree["threshold"].append(-2.0 if leaf else nodes["t"][g])
        tree["n"].append(nodes["n"][g])
        tree["value"].append(nodes["v"][g])
        tree["left"].append(-1)
        tree["right"].append(-1)
        if not leaf:
            tree["left"][k] = visit(nodes["l"][g])
            tree["right"][k] = visit(nodes["r"][g])
        return k

    visit(root)
    return {key: np.array(value) for key, value in tree.items()}


def _front_order(estimator):
    return np.argsort(estimator.pareto_front_, order="complexity", kind="stable")


def _model(estimator):
    return getattr(estimator, "best_estimator_", estimator)


# ---- without a browser ----

def _fitted():
    X, y = _iris()
    Xr, yr = make_regression(n_samples=80, n_features=3, n_targets=2, noise=5.0, random_state=0)
    Xc, yc = _categorical()
    return {
        "classifier": (DPDTreeClassifier(max_depth=3).fit(X, y), X, y),
        "pareto": (DPDTreeClassifier(max_depth=3, front="pareto").fit(X, y), X, y),
        "regressor": (DPDTreeRegressor(max_depth=3).fit(Xr[:, :1], yr[:, 0]), Xr[:, :1],
                      yr[:, 0]),
        "multi-output": (DPDTreeRegressor(max_depth=2).fit(Xr, yr), Xr, yr),
        "classifier CV": (DPDTreeClassifierCV(max_depths=[2, 3], cv=3).fit(X, y), X, y),
        "one tree": (DPDTreeClassifier(max_depth=2, full_front=False).fit(X, y), X, y),
        # The tree's defaults: a front whose trees share subtrees, which the page's table
        # holds once.
        "regressor CV": (DPDTreeRegressorCV(max_depth=2, cv=3, min_samples_leaf=1,
                                            complexity="expected_tests").fit(
            Xr, yr[:, 0]), Xr, yr[:, 0]),
        "branches": (BranchesClassifier(lam=0.01).fit(Xc, yc), Xc, yc),
        "greedy multiway": (MultiwayGreedyClassifier(max_depth=2).fit(Xc, yc), Xc, yc),
    }


@pytest.fixture(scope="module")
def fitted():
    return _fitted()


def test_page_is_one_document_with_nothing_to_fetch(fitted):
    clf, X, y = fitted["classifier"]
    page = export_html(clf, X_test=X, y_test=y, X=X, y=y)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<script") == 2 and page.count("<style>") == 1
    # No resource outside the file: no src= at all, one link (the empty data: icon).
    assert not re.search(r"\ssrc\s*=", page)
    assert re.findall(r"<link[^>]*>", page) == ['<link rel="icon" href="data:,">']
    assert not re.search(r"(?<![\w.])(https?:)?//[\w.-]+\.\w+/", page.split("<script type")[0])
    assert "http://www.w3.org/2000/svg" in page    # the SVG namespace, a name and no fetch


def test_feature_names_cannot_end_the_script(tmp_path):
    X, y = _iris()
    X.columns = ["</script><b>x", "a&b", "<!--", "ok"]
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    path = tmp_path / "page.html"
    assert export_html(clf, path) is None
    page = path.read_text(encoding="utf-8")
    assert page.count("</script>") == 2
    assert _page_data(page)["features"] == list(X.columns)


@pytest.mark.parametrize("name", ["classifier", "pareto", "regressor", "multi-output",
                                  "classifier CV", "regressor CV", "one tree"])
def test_data_rebuild_every_tree_of_the_front(fitted, name):
    estimator, X, y = fitted[name]
    data = _page_data(export_html(estimator, X_test=X, y_test=y))
    model = _model(estimator)
    order = _front_order(estimator)
    rows = data["rows"]
    assert len(rows["root"]) == len(model.trees_)
    assert_array_equal(rows["n_leaves"], estimator.pareto_front_["n_leaves"][order])
    for k, index in enumerate(order):
        tree, shown = model.trees_[index], _rebuild(data["nodes"], rows["root"][k])
        assert_array_equal(shown["feature"], tree.feature)
        assert_array_equal(shown["threshold"], tree.threshold)   # every bit: samples are routed
        assert_array_equal(shown["left"], tree.children_left)
        assert_array_equal(shown["right"], tree.children_right)
        assert_array_equal(shown["n"], tree.n_node_samples)
        assert_allclose(shown["value"], tree.value.reshape(tree.node_count, -1), rtol=1e-5)
    # The table holds each shared subtree once.
    assert len(data["nodes"]["f"]) < sum(tree.node_count for tree in model.trees_) or \
        len(model.trees_) == 1
    # The chosen tree is the one the estimator predicts with.
    assert order[data["chosen"]] == model._front_index(model.alpha, model.max_complexity)


@pytest.mark.parametrize("name", ["classifier", "regressor", "multi-output", "classifier CV"])
def test_test_curve_is_each_trees_score(fitted, name):
    estimator, X, y = fitted[name]
    data = explorer_data(estimator, X, y)
    model = copy.copy(_model(estimator))
    order = _front_order(estimator)
    for k, index in enumerate(order):
        model.set_params(**model._selecting_params(index))
        predicted = model.predict(X)
        if dpdt._explorer.is_classifier(model):
            expected = np.mean(predicted == y)
        else:
            expected = np.sum(np.mean((np.reshape(predicted, np.shape(y)) - y) ** 2, axis=0))
        assert data["rows"]["test"][k] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("name", ["classifier", "pareto", "regressor"])
def test_code_selects_the_tree(fitted, name):
    estimator, _, _ = fitted[name]
    data = explorer_data(estimator)
    order = _front_order(estimator)
    variable = "clf" if name != "regressor" else "reg"
    for k, index in enumerate(order):
        code = data["rows"]["code"][k]
        assert code.startswith(f"{variable}.set_params(alpha=")
        for line in code.splitlines():
            if line.startswith("#"):
                continue
            probe = copy.copy(estimator)
            exec(line, {variable: probe})   # noqa: S102 - the page's own code, run as a user would
            assert probe.tree_ is estimator.trees_[index]


def test_cv_page_has_the_validation_curve_and_the_refit_front(fitted):
    cv, X, y = fitted["classifier CV"]
    data = explorer_data(cv, X, y)
    assert [curve["depth"] for curve in data["curves"]] == [2, 3]
    curve = cv.validation_curve_[cv.validation_curve_["max_depth"] == 3]
    assert sorted(data["curves"][1]["mean"]) == pytest.approx(sorted(curve["mean_score"]))
    assert data["rows"]["code"][0].startswith("cv.best_estimator_.set_params(alpha=")
    assert data["same_scale"]


@pytest.mark.parametrize("name", ["branches", "greedy multiway"])
def test_multiway_page_holds_its_one_tree_and_the_paths(fitted, name):
    estimator, X, y = fitted[name]
    data = explorer_data(estimator, X, y)
    tree = estimator.tree_
    assert "rows" not in data
    assert data["multiway"]["f"] == tree.feature.tolist()
    assert [len(c) for c in data["multiway"]["children"]] == np.diff(tree.edge_begin).tolist()
    leaves = estimator.apply(X)
    assert [path[-1] for path in data["samples"]["paths"]] == leaves.tolist()


def test_max_samples_limits_the_samples_not_the_test_curve(fitted):
    clf, X, y = fitted["classifier"]
    full = explorer_data(clf, X, y)
    assert len(explorer_data(clf, X, y, max_samples=7)["samples"]["y"]) == 7
    none = explorer_data(clf, X, y, max_samples=0)
    assert none["samples"] is None and none["rows"]["test"] == full["rows"]["test"]


def test_cart_path_needs_the_training_data(fitted):
    clf, X, y = fitted["classifier"]
    assert explorer_data(clf)["cart"] is None
    cart = explorer_data(clf, X=X, y=y)["cart"]
    assert cart is not None and len(cart) >= 2


def test_bad_calls_are_clear_errors(fitted):
    X, y = _iris()
    with pytest.raises(NotFittedError):
        export_html(DPDTreeClassifier())
    boosting = DPDTGradientBoostingClassifier(n_estimators=2, max_depth=1).fit(X, y)
    with pytest.raises(TypeError, match="no single tree"):
        export_html(boosting)
    with pytest.raises(ValueError, match="y_test needs X_test"):
        export_html(fitted["classifier"][0], y_test=y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        export_html(fitted["classifier"][0], X_test=X, y_test=y[:10])
    with pytest.raises(ValueError, match="max_samples must be an int >= 0"):
        export_html(fitted["classifier"][0], X_test=X, max_samples=-1)
    with pytest.raises(ValueError, match="feature names should match"):
        export_html(fitted["classifier"][0], X_test=pd.DataFrame({"a": [1.0], "b": [2.0]}))


def _same_ids(html):
    return re.sub(r"sk-(container|estimator)-id-\d+", r"sk-\1-id", html)


def test_notebook_repr_of_a_fitted_estimator_is_the_compact_page(fitted):
    clf, _, _ = fitted["classifier"]
    unfitted = DPDTreeClassifier(max_depth=3)
    # Unfitted: scikit-learn's own diagram, through both of its entry points (which number
    # their containers, one more at each call).
    assert _same_ids(unfitted._repr_html_()) == _same_ids(estimator_html_repr(unfitted))
    assert (_same_ids(unfitted._repr_mimebundle_()["text/html"])
            == _same_ids(estimator_html_repr(unfitted)))
    fitted_html = _same_ids(clf._repr_html_())
    assert fitted_html.startswith(_same_ids(estimator_html_repr(clf)))
    assert "<iframe" in fitted_html and 'sandbox="allow-scripts"' in fitted_html
    assert "dpdt-explorer compact" in fitted_html
    assert _same_ids(clf._repr_mimebundle_()["text/html"]) == fitted_html
    # The text display keeps its meaning: no HTML at all.
    with config_context(display="text"):
        assert not hasattr(clf, "_repr_html_")
        assert "text/html" not in clf._repr_mimebundle_()
    for name in ("classifier CV", "branches"):
        assert "<iframe" in fitted[name][0]._repr_html_()


def test_explore_command_writes_the_page(fitted, tmp_path, capsys):
    clf, X, y = fitted["classifier"]
    model = tmp_path / "model.json"
    clf.save(model)
    test = tmp_path / "test.csv"
    X.assign(species=y).to_csv(test, index=False)
    out = tmp_path / "page.html"
    assert main(["explore", str(model), "--test", str(test), "--target", "species",
                 "--out", str(out)]) == 0
    data = _page_data(out.read_text(encoding="utf-8"))
    assert data["rows"]["test"] == explorer_data(clf, X, y)["rows"]["test"]
    assert len(data["samples"]["X"]) == len(X)
    assert str(out) in capsys.readouterr().out
    assert main(["explore", str(model), "--test", str(test), "--out", str(out)]) == 2
    assert "--target" in capsys.readouterr().err
    assert main(["explore", str(tmp_path / "missing.json"), "--out", str(out)]) == 2
    boosting = tmp_path / "boosting.json"
    DPDTGradientBoostingClassifier(n_estimators=2, max_depth=1).fit(X, y).save(boosting)
    capsys.readouterr()
    assert main(["explore", str(boosting), "--out", str(out)]) == 2
    assert "not a single tree" in capsys.readouterr().err


def test_explore_command_on_categorical_columns(fitted, tmp_path):
    clf, X, y = fitted["branches"]
    model, test = tmp_path / "model.json", tmp_path / "test.csv"
    clf.save(model)
    X.assign(label=y).to_csv(test, index=False)
    out = tmp_path / "page.html"
    assert main(["explore", str(model), "--test", str(test), "--target", "label", "--train",
                 str(test), "--out", str(out)]) == 0
    data = _page_data(out.read_text(encoding="utf-8"))
    assert [path[-1] for path in data["samples"]["paths"]] == clf.apply(X).tolist()


# ---- in a browser ----

def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _browser_missing(reason):
    """Skip the browser tests, or fail them where they are required (CI must never skip them)."""
    if os.environ.get("DPDT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and DPDT_REQUIRE_BROWSER=1 requires the browser tests")
    pytest.skip(reason)


def _browser_parts():
    """Find selenium, Chromium and its driver; skip or fail naming what is missing."""
    if os.environ.get("DPDT_NO_BROWSER") == "1":
        _browser_missing("DPDT_NO_BROWSER=1 switches the browser tests off")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _browser_missing("the explorer's browser tests need selenium: pip install selenium")
    chromium, driver = _chromium(), shutil.which("chromedriver")
    if chromium is None or driver is None:
        _browser_missing("the explorer's browser tests need Chromium and its driver, not found: "
                         "apt-get install chromium chromium-driver")
    return webdriver, Options, Service, chromium, driver


@pytest.fixture(scope="module")
def browser():
    webdriver, Options, Service, chromium, driver = _browser_parts()
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=Service(driver), options=options)
    yield session
    session.quit()


def _fake_browser(folder):
    for name in ("chromium", "chromedriver"):
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)


@pytest.mark.parametrize("required", [False, True])
def test_a_missing_browser_skips_unless_required(monkeypatch, tmp_path, required):
    # An empty PATH: no Chromium and no driver, as on a newcomer's machine.
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("DPDT_NO_BROWSER", raising=False)
    monkeypatch.setenv("DPDT_REQUIRE_BROWSER", "1" if required else "0")
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome, match=r"(Chromium and its driver|selenium)") as raised:
        _browser_parts()
    assert "\n" not in str(raised.value)
    pytest.importorskip("selenium")
    _fake_browser(tmp_path)
    assert _browser_parts()[3:] == (str(tmp_path / "chromium"), str(tmp_path / "chromedriver"))
    # Switched off explicitly: skipped though a browser is found, unless the tests are required.
    monkeypatch.setenv("DPDT_NO_BROWSER", "1")
    with pytest.raises(outcome, match="DPDT_NO_BROWSER=1"):
        _browser_parts()


def _open(browser, page, tmp_path, name="page.html"):
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    browser.get(path.as_uri())
    browser.execute_script("return document.readyState")
    return path


def _errors(browser):
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def _shown_tree(browser):
    return browser.execute_script("return window.dpdtExplorer.tree()")


def _assert_shows(browser, tree):
    shown = _shown_tree(browser)
    assert shown["node_count"] == tree.node_count
    assert_array_equal(shown["feature"], np.where(tree.feature < 0, -1, tree.feature))
    assert shown["threshold"][0] == tree.threshold[0]
    leaves = tree.children_left < 0
    assert_allclose(np.array(shown["value"])[leaves],
                    tree.value.reshape(tree.node_count, -1)[leaves], rtol=1e-5)
    # The drawing: one SVG group per node shown, the root's with its feature and threshold.
    root = browser.execute_script(
        "const g = document.querySelector('#x-tree [data-node=\"0\"]');"
        "return [g.getAttribute('data-feature'), g.getAttribute('data-threshold')]")
    assert int(root[0]) == (tree.feature[0] if tree.feature[0] >= 0 else -1)
    if tree.feature[0] >= 0:
        assert float(root[1]) == tree.threshold[0]


def _overlaps(boxes):
    """Return the pairs of (x, y, width, height) boxes that overlap by more than half a pixel."""
    b = np.array(boxes, dtype=float).reshape(-1, 4)
    x0, y0, x1, y1 = b[:, 0], b[:, 1], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    dx = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :])
    dy = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :])
    hit = (dx > 0.5) & (dy > 0.5)
    np.fill_diagonal(hit, False)
    return np.argwhere(np.triu(hit))


TEXT_BOXES = """
const tree = Array.from(document.querySelectorAll('#x-tree text'))
  .filter(t => t.textContent.length).map(t => { const b = t.getBBox();
    return [b.x, b.y, b.width, b.height]; });
const front = Array.from(document.querySelectorAll('#x-front text'))
  .filter(t => t.textContent.length).map(t => { const b = t.getBoundingClientRect();
    return [b.x, b.y, b.width, b.height]; });
return [tree, front];
"""


def _grey(png):
    """Return a PNG as an array of grey levels in [0, 255]."""
    try:
        import PIL.Image
    except ImportError:
        import matplotlib.image

        rgb = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
        return 255 * rgb.mean(axis=2)
    return np.asarray(PIL.Image.open(io.BytesIO(png)).convert("L"), dtype=float)


def _screenshot_regions(browser):
    image = _grey(browser.get_screenshot_as_png())
    ratio = browser.execute_script("return window.devicePixelRatio")
    regions = {}
    for name in ("x-front", "x-tree"):
        r = browser.execute_script(
            f"const r = document.getElementById('{name}').getBoundingClientRect();"
            "return [r.left, r.top, r.right, r.bottom]")
        x0, y0, x1, y1 = (int(v * ratio) for v in r)
        regions[name] = image[max(y0, 0):min(y1, image.shape[0]),
                              max(x0, 0):min(x1, image.shape[1])]
    return regions


@pytest.fixture(scope="module")
def iris_page(fitted):
    clf, X, y = fitted["classifier"]
    # Missing values go the side each node's missing_go_to_left says, in the page as in dpdt.
    X_test = X.copy()
    X_test.iloc[[60, 77], :] = np.nan
    X_test.iloc[149, 2] = np.nan
    return clf, X_test, y, export_html(clf, X_test=X_test, y_test=y, X=X, y=y)


def test_clicks_and_keys_show_the_estimators_trees(browser, iris_page, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    clf, _, _, page = iris_page
    _open(browser, page, tmp_path)
    order = _front_order(clf)
    # At first: the tree the estimator predicts with.
    _assert_shows(browser, clf.tree_)
    # A click on a point of the front shows its tree.
    points = browser.find_elements(By.CSS_SELECTOR, "#x-front circle.x-point")
    assert len(points) == len(order)
    ActionChains(browser).move_to_element(points[1]).click().perform()
    assert browser.execute_script("return dpdtExplorer.selected()") == 1
    _assert_shows(browser, clf.trees_[order[1]])
    # Keys: right, left, Home, End.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    _assert_shows(browser, clf.trees_[order[2]])
    body.send_keys(Keys.HOME)
    _assert_shows(browser, clf.trees_[order[0]])
    body.send_keys(Keys.END)
    _assert_shows(browser, clf.trees_[order[-1]])
    # The slider.
    slider = browser.find_element(By.ID, "x-slider")
    slider.send_keys(Keys.ARROW_LEFT)
    assert browser.execute_script("return dpdtExplorer.selected()") == len(order) - 2
    code = browser.find_element(By.ID, "x-code").get_attribute("value")
    probe = copy.copy(clf)
    exec(code.splitlines()[0], {"clf": probe})   # noqa: S102 - the page's own code
    assert probe.tree_ is clf.trees_[order[-2]]
    browser.find_element(By.ID, "x-copy").click()
    assert browser.find_element(By.ID, "x-copied").text in ("copied", "selected: press Ctrl+C")
    # A click on a split node folds it, another unfolds it.
    browser.execute_script("dpdtExplorer.setDepth(null)")
    shown = browser.execute_script("return dpdtExplorer.shownNodes().length")
    root = browser.find_element(By.CSS_SELECTOR, '#x-tree g[data-node="0"] rect')
    root.click()
    assert browser.execute_script("return dpdtExplorer.shownNodes()") == [0]
    browser.find_element(By.CSS_SELECTOR, '#x-tree g[data-node="0"] rect').click()
    assert browser.execute_script("return dpdtExplorer.shownNodes().length") == shown
    # + zooms in, 0 fits again.
    scale = "return +document.querySelector('#x-tree > g').getAttribute('transform')" \
        ".match(/scale\\(([^)]+)\\)/)[1]"
    before = browser.execute_script(scale)
    body.send_keys("+")
    assert browser.execute_script(scale) == pytest.approx(before * 1.25)
    body.send_keys("0")   # the whole tree in view
    inside = browser.execute_script(
        "const t = document.querySelector('#x-tree > g').getBoundingClientRect(),"
        " v = document.getElementById('x-tree').getBoundingClientRect();"
        "return t.left >= v.left && t.right <= v.right && t.top >= v.top && t.bottom <= v.bottom")
    assert inside
    assert not browser.find_element(By.ID, "x-overview").is_displayed()   # nothing to show
    assert _errors(browser) == []


def test_sample_paths_are_the_estimators_decision_paths(browser, iris_page, tmp_path):
    clf, X, _, page = iris_page
    _open(browser, page, tmp_path)
    order = _front_order(clf)
    probe = copy.copy(clf)
    for k in (len(order) - 1, 1):
        browser.execute_script(f"dpdtExplorer.select({k})")
        probe.set_params(**probe._selecting_params(order[k]))
        for sample in (0, 60, 77, 149):
            browser.execute_script(f"dpdtExplorer.setSample({sample})")
            path = browser.execute_script("return dpdtExplorer.path()")
            assert path == probe.decision_path(X.iloc[[sample]]).indices.tolist()
            highlighted = browser.execute_script(
                "return Array.from(document.querySelectorAll('#x-tree g.x-on-path'))"
                ".map(g => +g.getAttribute('data-node'))")
            assert sorted(highlighted) == sorted(path)
    assert _errors(browser) == []


def test_depth_8_text_never_overlaps_and_screenshot_shows_both(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    data = dpdt.datasets.load("raisin")
    clf = DPDTreeClassifier(max_depth=8).fit(data.X_train, data.y_train)
    assert clf.trees_[np.argmax(clf.pareto_front_["complexity"])].max_depth == 8
    _open(browser, export_html(clf, X_test=data.X_test, y_test=data.y_test), tmp_path)
    end = len(clf.trees_) - 1
    browser.execute_script(f"dpdtExplorer.select({end})")
    # Folded at first (readable), the whole tree on demand: neither has overlapping text.
    for depth in ("null", "3", "undefined"):   # all, 3, the page's own choice
        browser.execute_script(f"dpdtExplorer.setDepth({depth})")
        tree_boxes, front_boxes = browser.execute_script(TEXT_BOXES)
        assert len(tree_boxes) > 10 and len(front_boxes) > 10
        assert _overlaps(tree_boxes).tolist() == []
        assert _overlaps(front_boxes).tolist() == []
    browser.execute_script("dpdtExplorer.setDepth(null)")
    shown = browser.execute_script("return dpdtExplorer.shownNodes().length")
    assert shown == clf.trees_[_front_order(clf)[end]].node_count
    # Wider than the view: the overview shows, and a click on its left end moves the view there.
    overview = browser.find_element(By.ID, "x-overview")
    assert overview.is_displayed()
    transform = "return document.querySelector('#x-tree > g').getAttribute('transform')"
    before = browser.execute_script(transform)
    ActionChains(browser).move_to_element_with_offset(
        overview, -overview.size["width"] // 2 + 6, 0).click().perform()
    after = browser.execute_script(transform)
    assert float(re.search(r"translate\(([-\d.e]+)", after).group(1)) > \
        float(re.search(r"translate\(([-\d.e]+)", before).group(1))
    regions = _screenshot_regions(browser)
    for name, region in regions.items():
        assert region.size > 10_000, name
        assert region.std() > 10, f"{name} looks blank"
    assert _errors(browser) == []


@pytest.mark.parametrize("name", ["multi-output", "regressor CV", "branches", "one tree"])
def test_other_estimators_pages_show_their_trees(browser, fitted, tmp_path, name):
    estimator, X, y = fitted[name]
    _open(browser, export_html(estimator, X_test=X, y_test=y), tmp_path)
    assert _shown_tree(browser)["node_count"] == estimator.tree_.node_count
    if name == "branches":
        leaves = estimator.apply(X)
        for sample in (0, 5):
            browser.execute_script(f"dpdtExplorer.setSample({sample})")
            assert browser.execute_script("return dpdtExplorer.path()")[-1] == leaves[sample]
    else:
        _assert_shows(browser, estimator.tree_)
    assert _errors(browser) == []
    regions = _screenshot_regions(browser)
    assert regions["x-tree"].std() > 10
    if name != "branches":
        assert regions["x-front"].std() > 10


def test_notebook_output_runs_in_its_iframe(browser, fitted, tmp_path):
    from selenium.webdriver.common.by import By

    clf, _, _ = fitted["classifier"]
    _open(browser, f"<!DOCTYPE html><html><body>{clf._repr_html_()}</body></html>", tmp_path)
    browser.switch_to.frame(browser.find_element(By.TAG_NAME, "iframe"))
    try:
        assert _shown_tree(browser)["node_count"] == clf.tree_.node_count
        assert browser.execute_script("return document.body.className") == "dpdt-explorer compact"
    finally:
        browser.switch_to.default_content()
    assert _errors(browser) == []


def test_the_docstring_example_runs():
    import doctest

    import dpdt._explorer

    assert doctest.testmod(dpdt._explorer, raise_on_error=False).failed == 0


def test_a_pipelines_page_is_its_last_steps():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = _iris()
    pipe = make_pipeline(StandardScaler(), DPDTreeClassifier(max_depth=3)).fit(X, y)
    scaled = pipe[:-1].transform(X)
    data = explorer_data(pipe, X, y, X=X, y=y)
    direct = explorer_data(pipe[-1], scaled, y, X=scaled, y=y)
    # The samples reach the trees scaled; the features keep the names the scaler gives them.
    assert data["features"] == list(pipe[:-1].get_feature_names_out()) == IRIS_NAMES
    assert data["samples"] == direct["samples"] and data["rows"]["test"] == direct["rows"]["test"]
    assert data["cart"] == direct["cart"]
    # The code selects the tree on the pipeline's last step.
    assert all(code.startswith("pipe[-1].set_params(") for code in data["rows"]["code"])
    other = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    with pytest.raises(TypeError, match="Pipeline whose last step is a LogisticRegression"):
        export_html(other)


FIRST_VIEW = """
const pane = document.getElementById('x-tree').getBoundingClientRect();
const boxes = Array.from(document.querySelectorAll('#x-tree g.x-node rect.x-box'))
  .map(r => r.getBoundingClientRect());
const inside = boxes.every(b => b.left >= pane.left - 0.5 && b.right <= pane.right + 0.5
  && b.top >= pane.top - 0.5 && b.bottom <= pane.bottom + 0.5);
const root = document.querySelector('#x-tree g[data-node="0"] rect').getBoundingClientRect();
const left = document.querySelector('.x-left');
const copy = document.getElementById('x-copy').getBoundingClientRect();
return {inside: inside, root: root.left >= pane.left && root.right <= pane.right,
  cut: Array.from(document.querySelectorAll('#x-tree text.x-head'))
    .filter(t => t.textContent.endsWith('…')).length,
  copy: copy.bottom <= left.getBoundingClientRect().bottom && left.scrollTop === 0,
  shown: dpdtExplorer.shownNodes().length,
  curves: Array.from(document.querySelectorAll('#x-front .x-curve'))
    .map(c => c.getAttribute('stroke') + ' ' + c.getAttribute('stroke-dasharray')),
  swatches: Array.from(document.querySelectorAll('#x-legend i'))
    .map(i => getComputedStyle(i).backgroundColor)};
"""


@pytest.mark.parametrize("cv", [False, True], ids=["front", "CV"])
def test_first_view_fits_the_tree_and_the_panels(browser, tmp_path, cv):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    y = y.map({0: "malignant", 1: "benign"})
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    estimator = (DPDTreeClassifierCV(max_depths=[2, 3, 4, 5], cv=3) if cv else
                 DPDTreeClassifier(max_depth=6, front="pareto")).fit(X_train, y_train)
    _open(browser, export_html(estimator, X_test=X_test, y_test=y_test, X=X_train, y=y_train),
          tmp_path)
    view = browser.execute_script(FIRST_VIEW)
    # The tree shown, root included, lies in the pane, its tests' names whole, and the code
    # that selects it is in view without scrolling the left pane.
    assert view["inside"] and view["root"] and view["cut"] == 0, view
    assert view["copy"]
    # A tree with room to spare is shown whole (sized to the pane, not folded).
    leaves = browser.execute_script("return dpdtExplorer.data.rows.n_leaves")
    for k in [k for k, n in enumerate(leaves) if 5 <= n <= 8]:
        browser.execute_script(f"dpdtExplorer.select({k})")
        again = browser.execute_script(FIRST_VIEW)
        tree = _model(estimator).trees_[_front_order(estimator)[k]]
        assert again["shown"] == tree.node_count and again["inside"], k
    # Every curve of the front in a style of its own; classes in the palette of plot_tree.
    assert len(set(view["curves"])) == len(view["curves"]) >= (6 if cv else 3)
    import matplotlib.colors

    import dpdt._palette

    rgb = ["rgb({}, {}, {})".format(*(round(255 * c) for c in matplotlib.colors.to_rgb(colour)))
           for colour in dpdt._palette.CLASS_COLOURS[:2]]
    assert view["swatches"] == rgb
    assert _errors(browser) == []


# ---- a policy's budget front ----

def _policy_with_costs():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((300, 3)), columns=["age", "dose", "bmi"])
    R = pd.DataFrame({"control": np.zeros(300), "drug": 2 * X.age - 0.8 + rng.normal(size=300),
                      "surgery": 3 * X.dose - 1.5 + rng.normal(size=300)})
    costs = pd.Series({"surgery": 2.0, "control": 0.0, "drug": 1.0})
    policy = dpdt.DPDTreePolicy(max_depth=2).fit(X[:200], R[:200], action_costs=costs)
    return policy, X[:200], R[:200], X[200:], R[200:]


@pytest.fixture(scope="module")
def policy_page():
    policy, X, R, X_test, R_test = _policy_with_costs()
    return policy, X_test, R_test, export_html(policy, X_test=X_test, y_test=R_test)


def test_policy_page_carries_the_cost_front(policy_page):
    policy, X_test, R_test, page = policy_page
    data = _page_data(page)
    cost = data["cost"]
    order = np.argsort(policy.cost_front_["cost"])
    front = policy.cost_front_[order]
    assert len(front) > 2
    rows = cost["rows"]
    assert rows["cost"] == front["cost"].tolist()
    assert_allclose(rows["train"], front["value"], rtol=1e-5)
    assert rows["n_leaves"] == front["n_leaves"].tolist()
    # Cheapest first: the cheapest tree is the best for every price from its lowest up.
    assert rows["price_max"][0] == "inf" and rows["price_min"][-1] == 0.0
    assert rows["price_max"][1:] == front["price_max"][1:].tolist()
    for k, root in enumerate(rows["root"]):
        tree = policy.cost_trees_[order[k]]
        rebuilt = _rebuild(data["nodes"], root)
        assert_array_equal(rebuilt["feature"], np.where(tree.feature < 0, -2, tree.feature))
        assert_array_equal(rebuilt["threshold"], np.where(tree.feature < 0, -2.0,
                                                          tree.threshold))
        assert_allclose(rebuilt["value"], tree.value.reshape(tree.node_count, -1), rtol=1e-5)
        # The test value of each tree is the policy's score with that tree.
        probe = copy.copy(policy)
        exec(rows["code"][k], {"policy": probe})   # noqa: S102 - the page's own code
        assert probe.tree_ is tree
        assert rows["test"][k] == pytest.approx(probe.score(X_test, R_test), rel=1e-5)
    # No budget set: no tree of the cost front is the estimator's.
    assert cost["chosen"] is None
    budgeted = copy.copy(policy).select_tree(max_cost=float(front["cost"][1]) + 0.5)
    chosen = explorer_data(budgeted)["cost"]
    assert chosen["chosen"] == 1 and "max_cost" in chosen["chosen_label"]
    # Estimators without costs: no cost front.
    plain = dpdt.DPDTreePolicy(max_depth=1).fit(X_test, R_test)
    assert explorer_data(plain)["cost"] is None
    assert _page_data(export_html(DPDTreeClassifier(max_depth=1).fit(*_iris())))["cost"] is None


def test_the_pages_script_reads_the_cost_front():
    # Without a browser: the script reads the fields the data writes, and the page has the
    # switch it wires (the browser test below runs them).
    from dpdt._explorer import _asset

    script, body = _asset("explorer.js"), _asset("explorer.html")
    policy, *_ = _policy_with_costs()
    cost = explorer_data(policy)["cost"]
    for field in cost["rows"]:
        if field not in ("depth",):
            assert f"rows.{field}" in script or f"c.rows.{field}" in script, field
    for field in ("chosen", "chosen_label", "xlabel", "ylabel"):
        assert f"c.{field}" in script, field
    assert 'id="x-front-switch"' in body and "x-front-switch" in script
    assert set(re.findall(r'name="x-front-kind" value="(\w+)"', body)) == {"complexity", "cost"}


def test_clicks_on_the_cost_front_show_its_trees(browser, policy_page, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    policy, _, _, page = policy_page
    order = np.argsort(policy.cost_front_["cost"])
    _open(browser, page, tmp_path)
    assert browser.execute_script("return dpdtExplorer.front()") == "complexity"
    _assert_shows(browser, policy.tree_)
    switch = browser.find_element(By.ID, "x-front-switch")
    assert switch.is_displayed()
    switch.find_element(By.CSS_SELECTOR, 'input[value="cost"]').click()
    assert browser.execute_script("return dpdtExplorer.front()") == "cost"
    points = browser.find_elements(By.CSS_SELECTOR, "#x-front circle.x-point")
    assert len(points) == len(order)
    # The dearest tree first (the best value), then a click on each point shows its tree.
    _assert_shows(browser, policy.cost_trees_[order[-1]])
    for k in (0, 1, len(order) - 2):
        ActionChains(browser).move_to_element(points[k]).click().perform()
        assert browser.execute_script("return dpdtExplorer.selected()") == k
        _assert_shows(browser, policy.cost_trees_[order[k]])
        code = browser.find_element(By.ID, "x-code").get_attribute("value")
        probe = copy.copy(policy)
        exec(code, {"policy": probe})   # noqa: S102 - the page's own code
        assert probe.tree_ is policy.cost_trees_[order[k]]
    summary = browser.find_element(By.ID, "x-summary").text
    assert "total cost" in summary and "price" in summary
    browser.execute_script("dpdtExplorer.select(0)")   # the cheapest: fitted at infinite price
    assert "minus the mean cost" in browser.find_element(By.ID, "x-summary").text
    # Keys move along the cost front.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    _assert_shows(browser, policy.cost_trees_[order[1]])
    body.send_keys(Keys.END)
    _assert_shows(browser, policy.cost_trees_[order[-1]])
    # Back to the complexity front, at the tree shown there before.
    switch.find_element(By.CSS_SELECTOR, 'input[value="complexity"]').click()
    _assert_shows(browser, policy.tree_)
    assert _errors(browser) == []
    # A policy predicting within a budget opens on the cost front, its tree starred.
    budgeted = copy.copy(policy).select_tree(max_cost=float(policy.cost_front_["cost"][1]))
    _open(browser, export_html(budgeted), tmp_path, "budget.html")
    assert browser.execute_script("return dpdtExplorer.front()") == "cost"
    _assert_shows(browser, budgeted.tree_)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#x-front .x-chosen-star")) == 1
    assert _errors(browser) == []
