"""Size of the explorer page and the time it takes to show a new tree, in headless Chromium.

Depth-8 fronts of bundled datasets (``front="pareto"``: hundreds of trees) are written with
``dpdt.export_html`` (the test split as test samples), and opened in headless Chromium driven by
Selenium (Debian's ``chromium`` and ``chromium-driver``). For a sample of the trees of each front
the page's own clock (``performance.now()``) times ``dpdtExplorer.select(k)``: the tree is
rebuilt from the shared node table, laid out and drawn as SVG, the panels filled ("build"), and
then, to the next animation frame, the browser lays out and paints it ("to paint"). The trees
are shown as the page shows them at first (folded below the levels that fit the view at a
readable size) and fully unfolded. Targets: a page under 5 MB, a tree shown in under 100 ms
(the median over the trees timed; the maximum is printed beside it). Run
``python benchmarks/explorer.py [--datasets raisin ...] [--trees 40]``.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import dpdt
from _common import verdict
from dpdt import DPDTreeClassifier, export_html

SIZE_LIMIT_MB = 5.0
SHOW_LIMIT_MS = 100.0

_TIME_SELECT = """
const done = arguments[arguments.length - 1];
const k = arguments[0];
const start = performance.now();
dpdtExplorer.select(k);
document.getElementById('x-tree').getBBox();   // layout now, inside the measured time
const built = performance.now() - start;
requestAnimationFrame(() => setTimeout(() => done([built, performance.now() - start]), 0));
"""


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise SystemExit("needs Chromium and its driver: apt-get install chromium chromium-driver")
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(driver), options=options)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["raisin", "occupancy", "page", "fault"])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--trees", type=int, default=40,
                        help="trees of each front timed (spread evenly over it)")
    args = parser.parse_args(argv)

    browser = _browser()
    rows, failures = [], []
    try:
        with tempfile.TemporaryDirectory() as folder:
            for name in args.datasets:
                data = dpdt.datasets.load(name)
                clf = DPDTreeClassifier(max_depth=args.depth, front="pareto").fit(
                    data.X_train, data.y_train)
                start = time.perf_counter()
                page = Path(folder) / f"{name}.html"
                export_html(clf, page, data.X_test, data.y_test, X=data.X_train, y=data.y_train)
                write_s = time.perf_counter() - start
                size_mb = page.stat().st_size / 1e6
                browser.get(page.as_uri())
                n = len(clf.trees_)
                picks = sorted({round(i * (n - 1) / max(1, args.trees - 1))
                                for i in range(min(n, args.trees))})
                timings = {}
                for unfold in (False, True):
                    if unfold:   # the reader's choice of depth holds for the next trees
                        browser.execute_script("dpdtExplorer.setDepth(null)")
                    built, painted = zip(*(browser.execute_async_script(_TIME_SELECT, k)
                                           for k in picks), strict=True)
                    timings[unfold] = (statistics.median(built), max(built),
                                       statistics.median(painted), max(painted))
                nodes = sum(tree.node_count for tree in clf.trees_)
                deepest = max(tree.max_depth for tree in clf.trees_)
                rows.append((name, n, deepest, nodes, size_mb, write_s, timings))
                if size_mb >= SIZE_LIMIT_MB:
                    failures.append(f"{name}: {size_mb:.2f} MB")
                typical = max(t[2] for t in timings.values())
                if typical >= SHOW_LIMIT_MS:
                    failures.append(f"{name}: {typical:.0f} ms")
    finally:
        browser.quit()

    print(f"### Explorer page: depth-{args.depth} Pareto fronts (front=\"pareto\")\n")
    print("| dataset | trees | depth | nodes (all trees) | page MB | write s | shown as opened: "
          "build ms median / max | to paint ms median / max | unfolded: build ms median / max "
          "| to paint ms median / max |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, n, deepest, nodes, size_mb, write_s, timings in rows:
        cells = []
        for unfold in (False, True):
            b_med, b_max, p_med, p_max = timings[unfold]
            cells += [f"{b_med:.1f} / {b_max:.1f}", f"{p_med:.1f} / {p_max:.1f}"]
        print(f"| {name} | {n} | {deepest} | {nodes} | {size_mb:.2f} | {write_s:.1f} | "
              + " | ".join(cells) + " |")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nTargets: page < {SIZE_LIMIT_MB:g} MB, a new tree shown (median to paint) < "
          f"{SHOW_LIMIT_MS:g} ms: {verdict(not failures, failures)}. The maxima are single "
          f"draws, a garbage collection or the machine's other work included (load average "
          f"{load:.1f} on {os.cpu_count()} logical cores).")
    return 0 if not failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
