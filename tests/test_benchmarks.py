"""benchmarks/: the scripts run from a checkout, and report.py writes docs/benchmarks.md."""

import subprocess
import sys
from pathlib import Path

import report  # benchmarks/report.py (pyproject: pytest pythonpath)

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# A run of a few seconds: one small dataset, one depth, no resplits.
TINY = ("--datasets", "fish", "--depths", "3", "--repeats", "1", "--resplits", "0")


def test_a_script_runs_from_the_checkout():
    # As a user runs it: the script's folder, not pytest's pythonpath, finds its sibling modules.
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "regression.py"), *TINY],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "| fish | 726 | 6 | 1 | 3 |" in proc.stdout and "### targets" in proc.stdout


def test_every_section_of_the_page_names_a_script():
    for section in report.PAGE:
        assert (BENCHMARKS / f"{section.script}.py").is_file(), section
    assert len({section.name for section in report.PAGE}) == len(report.PAGE)
    assert len({section.heading() for section in report.PAGE}) == len(report.PAGE)


def test_report_writes_sections_and_keeps_the_others(tmp_path):
    page = tmp_path / "benchmarks.md"
    tiny = report.Section("regression", "regression", TINY)
    other = report.Section("optimality", "optimality", ("--datasets", "bank", "--repeats", "1"))
    report.write_page(page, sections=(tiny, other), only={"regression"}, note="A shared machine.",
                      log=sys.stdout)
    text = page.read_text()
    assert text.startswith("# Benchmarks") and "A shared machine." in text
    assert "## DPDT against scikit-learn's CART on the bundled regression" in text
    assert "| fish | 726 | 6 | 1 | 3 |" in text
    # Under the tables: the command, the date, the machine.
    command = ("`python benchmarks/regression.py --datasets fish --depths 3 --repeats 1 "
               "--resplits 0`: 20")
    assert command in text and " UTC, " in text and "logical cores" in text
    assert "Not generated yet: `python benchmarks/report.py --only optimality`" in text

    # Rerunning another section (here: one that fails) keeps the regression section as it was.
    broken = report.Section("optimality", "optimality", ("--no-such-option",))
    report.write_page(page, sections=(tiny, broken), only={"optimality"}, log=sys.stdout)
    again = page.read_text()
    assert report.existing_sections(again)["regression"] == report.existing_sections(text)[
        "regression"]
    assert "The run failed (exit status 2)" in again and "--no-such-option" in again
    assert "A shared machine." in again   # the note stays until replaced
    assert again.count("<!-- section: regression -->") == 1 and again.count("A shared") == 1
