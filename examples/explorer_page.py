"""The explorer page: a whole Pareto front and every tree of it, in one offline HTML file.

A depth-6 front on scikit-learn's breast cancer data (named features), with the held-out
samples for the test curve and the sample picker, and the training data for CART's pruning
path. Open the page in any browser: click the front or press the arrow keys to see each tree.

Run ``python examples/explorer_page.py [--out DIR]``; it writes ``explorer.html``. With
``--png FILE`` it also takes the page's picture in headless Chromium at 1400 x 900, as the
documentation shows it (``--png docs/img/explorer.png``; needs selenium, chromium and
chromium-driver).
"""

import argparse
import shutil
from pathlib import Path

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from dpdt import DPDTreeClassifier, export_html


def main(out="."):
    """Fit, write the page; return its path."""
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    y = y.map({0: "malignant", 1: "benign"})
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    clf = DPDTreeClassifier(max_depth=6, front="pareto").fit(X_train, y_train)
    path = Path(out) / "explorer.html"
    export_html(clf, path, X_test, y_test, X=X_train, y=y_train)
    print(f"{len(clf.pareto_front_)} trees on the front, page of "
          f"{path.stat().st_size / 1e3:.0f} kB")
    return path


def screenshot(page, png, sample=1):
    """Save the page as a browser at 1400 x 900 first shows it, test sample ``sample`` chosen."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        browser.get(Path(page).resolve().as_uri())
        browser.execute_script(f"dpdtExplorer.setSample({sample})")
        browser.save_screenshot(str(png))
    finally:
        browser.quit()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the page")
    parser.add_argument("--png", default=None, help="also save the page's picture here")
    args = parser.parse_args()
    page = main(args.out)
    print("wrote", page)
    if args.png is not None:
        screenshot(page, args.png)
        print("wrote", args.png)
