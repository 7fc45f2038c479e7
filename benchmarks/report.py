"""Regenerate ``docs/benchmarks.md``: run each benchmark that belongs on the page, keep its output.

Each section of the page is one script of this folder run in a fresh interpreter with the
arguments of :data:`PAGE`: its docstring's first line is the heading, its printed tables and
verdicts are the body, and a line under them says when, on which machine (CPU, cores, load) and
from which commit, and gives the command that reproduces it. ``--only`` reruns some sections and
keeps the others as the page already has them, so the page can be rebuilt piece by piece; a
section never run says so, with its command. ``--note`` puts a sentence under the page's title,
kept by later runs (say there whether the machine was shared: timings are only comparable within
one section).

Run ``python benchmarks/report.py [--only optimality regression ...] [--note TEXT] [--data DIR]``
from the root of a checkout, with dpdt installed (or ``PYTHONPATH=src``); ``--data`` names the
wide corpus for the sections that read it.
"""

import argparse
import ast
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Section:
    """One benchmark run on the page: ``python benchmarks/<script>.py <args>``.

    The heading is ``title``, or else the first line of the script's docstring.
    """

    name: str
    script: str
    args: tuple = ()
    title: str = ""

    def heading(self):
        """Return the section's heading."""
        if self.title:
            return self.title
        source = (HERE / f"{self.script}.py").read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(source)) or self.script
        return doc.splitlines()[0].rstrip(".")


# What the page shows, in this order; each script's --help gives the longer runs (more repeats,
# table1's depth-4 and binary tables, the scaling grid's million-row cells). The whole page is
# long: on a 2-core machine shared with other jobs it took about 1.5 h, half of it table1's
# exhaustive column (fault alone 18 min); the scaling grid is meant to take under 15 min; --only
# reruns one section at a time.
PAGE = (
    Section("optimality", "optimality", ("--repeats", "3")),
    Section("table1", "table1", ("--table", "1", "--repeats", "3", "--depth4")),
    Section("fronts", "fronts"),
    Section("regression", "regression", ("--repeats", "3")),
    Section("boosting", "boosting"),
    Section("branches", "branches", ("--time-limit", "60")),
    # The exact anchors on the continuous and CP4IM binary sets, and with --data on the wide
    # corpus's classification sets (shared/datasets/wide beside the checkout, as the wide
    # section reads it) at depth 3: up to 120 s per fit, and about 10 cells where both dpdt and
    # ConTree take the whole limit (about an hour in all on a shared 2-core machine).
    Section("exact", "exact", ("--time-limit", "120", "--data")),
    # The same check on the corpus's regression sets (target above its median) and causal sets
    # (the treatment) made classification problems, which the exact solver was never measured
    # or tuned on (about 12 minutes on a 2-core machine).
    Section("exact-heldout", "exact", ("--time-limit", "120", "--heldout"),
            "Exact solvers on held-out problems: data the exact solver was never tuned on"),
    Section("generalization", "generalization"),
    Section("generalization-nested", "generalization", ("--nested",),
            "Generalisation: the nested cross-validation that chose the defaults"),
    # Issue 31's grid at its default sizes (10^3 to 10^5 training rows), depths 3 to 8.
    Section("scaling", "scaling"),
    # The wide corpus (shared/datasets/wide beside the checkout), depths 3 to 6, sets of at most
    # 60 000 training rows; then the study that chose DPDT-CV's defaults on its train splits
    # (3 outer folds of 5-fold DPDT-CV per rule: about 10 minutes).
    Section("wide", "wide", ("--max-rows", "60000")),
    Section("wide-selection", "wide", ("--selection-study", "--outer-folds", "3",
                                       "--max-rows", "60000"),
            "Defaults on data nobody tuned them to: DPDT-CV's defaults chosen on the train "
            "splits"),
    # Policy trees, led by the wide corpus's causal sets (shared/datasets/wide beside the
    # checkout), then synthetic sets up to 10^6 rows: about 45 minutes on a shared 2-core
    # machine, most of it the exact fits' 60 s limits and the 10^6-row fits.
    Section("policy", "policy"),
    # The same causal section on causal sets outside the corpus, which no default was chosen on
    # (policy_heldout.py): a check of the policy trees' defaults (a few minutes).
    Section("policy-heldout", "policy", ("--heldout", "--sections", "causal", "--solvers",
                                         "dpdt", "dpdt-cv", "econml"),
            "Policy trees on held-out causal sets: data no default was chosen on"),
    # The wide corpus's sets with the constraints a domain expert would set, at depths 3 and 5,
    # 10 random splits each (about 3 minutes of one core, most of it the two CV columns).
    Section("monotone", "monotone", ("--depths", "3", "5")),
)

# The scripts that read the wide corpus (shared/datasets/wide beside the checkout by default):
# --data DIR points them elsewhere, e.g. from a git worktree, which has nothing beside it.
CORPUS_SCRIPTS = frozenset({"wide", "exact", "policy", "monotone"})

HEADER = """# Benchmarks

Generated by `python benchmarks/report.py` from the scripts in `benchmarks/`, which are part of
the repository, not of the installed package: run them from a checkout (`python
benchmarks/NAME.py --help` lists each one's options; `pip install ".[bench]"` adds the optional
competitors, shown as skipped when missing). Every section gives the command that produced it,
with the date, the machine and the commit. Timings are measured, never asserted: compare them
within a section, where every method ran on the same machine at the same time. Two scripts are
not on the page: `published.py` (reruns the published DPDT code to check the paper's accuracies)
and `parallel.py` (the speed-up of `n_jobs=2`, which only an idle machine measures).
"""

_BEGIN = "<!-- section: {} -->"
_END = "<!-- end of section: {} -->"


def command(section):
    """Return the shell command that runs a section from the root of a checkout."""
    return shlex.join(["python", f"benchmarks/{section.script}.py", *section.args])


def machine():
    """Return the CPU model and the number of logical cores, as one phrase."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            models = [line.split(":", 1)[1].strip() for line in info
                      if line.startswith("model name")]
        cpu = models[0] if models else cpu
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {platform.system()}"


def commit():
    """Return the checkout's short commit hash, marked when the tree has local changes."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True,
                              check=False).stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown commit"
    return head + (" with local changes" if git("status", "--porcelain", "--", ".", "../src",
                                                 "../cpp") else "")


def run_section(section):
    """Run one section's script and return its markdown block, output and provenance."""
    started = datetime.datetime.now(datetime.timezone.utc)
    code = commit()
    load = f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "n/a"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / f"{section.script}.py"), *section.args],
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    body = proc.stdout.strip()
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        body += f"\n\n**The run failed (exit status {proc.returncode}):**\n\n```\n{tail}\n```"
    provenance = (f"`{command(section)}`: {started:%Y-%m-%d %H:%M} UTC, {seconds:.0f} s; "
                  f"{machine()}, load average {load} at the start; commit {code}.")
    return "\n".join([_BEGIN.format(section.name), f"## {section.heading()}", "",
                      body, "", f"*{provenance}*", _END.format(section.name)])


def not_run(section):
    """Return the markdown block of a section that has not been generated yet."""
    return "\n".join([_BEGIN.format(section.name), f"## {section.heading()}", "",
                      f"Not generated yet: `python benchmarks/report.py --only {section.name}` "
                      f"runs `{command(section)}`.", _END.format(section.name)])


def existing_sections(text):
    """Return the blocks of a page written by this script, by section name."""
    pattern = re.compile(r"^<!-- section: (\S+) -->$.*?^<!-- end of section: \1 -->$",
                         re.MULTILINE | re.DOTALL)
    return {match.group(1): match.group(0) for match in pattern.finditer(text)}


def with_data(sections, data):
    """Return ``sections`` with ``--data DIR`` added to those that read the wide corpus."""
    if data is None:
        return tuple(sections)
    return tuple(replace(s, args=(*s.args, "--data", str(data))) if s.script in CORPUS_SCRIPTS
                 else s for s in sections)


def write_page(out, sections=PAGE, only=None, note=None, log=sys.stderr):
    """Run the selected sections and write the page, keeping the others as they were.

    Parameters
    ----------
    out : path-like
        The page to write; its sections are kept when not rerun.
    sections : sequence of Section, default=PAGE
        The page's sections, in order.
    only : collection of str or None, default=None
        Names of the sections to run; None runs them all.
    note : str or None, default=None
        A sentence printed under the page's title; None keeps the page's.
    log : file, default=sys.stderr
        Where the progress lines go.
    """
    out = Path(out)
    text = out.read_text(encoding="utf-8") if out.is_file() else ""
    kept = existing_sections(text)
    if note is None and text.startswith(HEADER.rstrip()):
        note = text[len(HEADER.rstrip()):].split(_BEGIN.split("{")[0], 1)[0].strip() or None
    blocks = {}
    for section in sections:
        if only is None or section.name in only:
            print(f"report: {command(section)}", file=log, flush=True)
            blocks[section.name] = run_section(section)
        else:
            blocks[section.name] = kept.get(section.name) or not_run(section)
        # Written after every section: an interrupted run keeps what it finished.
        parts = [HEADER.rstrip() + (f"\n\n{note}" if note else "")]
        parts += [blocks.get(s.name) or kept.get(s.name) or not_run(s) for s in sections]
        out.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def main(argv=None):
    """Regenerate the page from the command line."""
    names = [section.name for section in PAGE]
    parser = argparse.ArgumentParser(prog="report", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=names, metavar="NAME",
                        help=f"sections to rerun (default: all of {', '.join(names)})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the page to write (default: docs/benchmarks.md)")
    parser.add_argument("--note", help="a sentence under the page's title, e.g. about the machine")
    parser.add_argument("--list", action="store_true", help="print the sections' commands and exit")
    parser.add_argument("--data", type=Path, metavar="DIR",
                        help="the wide corpus, for the sections that read it (default: "
                             "shared/datasets/wide beside the checkout)")
    args = parser.parse_args(argv)
    sections = with_data(PAGE, args.data)
    if args.list:
        for section in sections:
            print(f"{section.name}: {command(section)}")
        return 0
    write_page(args.out, sections=sections, only=args.only, note=args.note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
