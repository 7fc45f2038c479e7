"""User documentation speaks to users: no issue numbers, work sessions or dated notes.

The user docs (README, docs/*.md but the generated benchmarks page, which records when and how
its figures were measured) and every docstring of the package, those the parameter records
compose included, are checked, so that the development diary cannot drift back into them.
"""

import ast
import inspect
import re
from pathlib import Path

import pytest

import dpdt
import dpdt.datasets

ROOT = Path(__file__).parents[1]
SOURCE = ROOT / "src" / "dpdt"

# What a development diary leaves behind: tracker references, work sessions, dated notes.
DIARY = re.compile(
    r"\bissues?\s*#?\d+"               # "issue 35", "issue #35", "issues 6"
    r"|(?<![\w&])#\d{2,}\b"            # "#35" (not an HTML entity or a colour)
    r"|\bsession\s*\d+|\bthis session\b|\bwork session"
    r"|\b20\d\d-[01]\d(-[0-3]\d)?\b"   # "2026-11" and "2026-11-27"
    r"|\bwe measured\b|\bearlier today\b",
    re.IGNORECASE)

USER_DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "benchmarks.md")


def diary_lines(text):
    return [line.strip() for line in text.splitlines() if DIARY.search(line)]


@pytest.mark.parametrize("path", [ROOT / "README.md", *USER_DOCS], ids=lambda p: p.name)
def test_user_docs_keep_no_diary(path):
    assert diary_lines(path.read_text(encoding="utf-8")) == []


def source_docstrings():
    """Every module, class and function docstring of the package's source files."""
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    yield f"{path.relative_to(SOURCE)}:{getattr(node, 'name', '')}", doc


def public_docstrings():
    """The docstrings users read: the public names' and their members', as composed."""
    for module in (dpdt, dpdt.datasets):
        for name in module.__all__:
            obj = getattr(module, name)
            yield name, inspect.getdoc(obj) or ""
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    doc = inspect.getdoc(value) if not member.startswith("_") else None
                    if doc:
                        yield f"{name}.{member}", doc


def test_docstrings_keep_no_diary():
    found = {where: diary_lines(doc) for where, doc in [*source_docstrings(),
                                                         *public_docstrings()]}
    assert {where: lines for where, lines in found.items() if lines} == {}


@pytest.mark.parametrize("text", [
    "as in issue 35's table", "see Issue #8", "fixed in #123", "session 23: threads",
    "until 2026-11-26 the cap", "measured 2026-11", "figures we measured", "0.8x earlier today"])
def test_the_check_finds_a_diary(text):
    assert diary_lines(text) == [text]


@pytest.mark.parametrize("text", [
    "max_depth=3 in the tissue", "colour #ccc", "&#8594;", "the 1se rule", "depth 10 (2**10)",
    "a session of fits"])
def test_the_check_leaves_plain_text(text):
    assert diary_lines(text) == []
