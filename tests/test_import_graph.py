"""The modules of src/dpdt import each other without a cycle, function-level imports included."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules():
    """Return {dotted name: path} of every module of the dpdt package (packages as their name)."""
    modules = {}
    for path in sorted((SRC / "dpdt").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _bound_names(path):
    """Return the names a module binds at its top level (assignments, imports, defs)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def _imported(name, path, modules):
    """Return the modules of the package that module ``name`` imports, wherever in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
            if node.module:   # `from ._io import load` runs _io
                found.add(source)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:   # `from . import _tree`
                    found.add(f"{source}.{alias.name}")
                elif source in modules and alias.name in _bound_names(modules[source]):
                    found.add(source)   # `from . import __version__` runs the package
                # else a compiled submodule, such as `from . import _core`
    return found & set(modules) - {name}


def import_graph():
    """Return {module: set of the package's modules it imports}."""
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def find_cycle(graph):
    """Return a cycle of ``graph`` as a list of nodes (first repeated last), or None."""
    state = {}   # absent: unvisited, 1: on the current path, 2: done

    def visit(node, path):
        state[node] = 1
        for successor in sorted(graph[node]):
            if state.get(successor) == 1:
                return path[path.index(successor):] + [node, successor]
            if successor not in state:
                cycle = visit(successor, path + [node])
                if cycle:
                    return cycle
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert "dpdt._tree" in graph["dpdt"]              # from ._tree import Tree
    assert "dpdt._core" not in graph                  # the extension is no Python module
    assert "dpdt._plot" in graph["dpdt._cli"]         # a function-level import
    assert "dpdt.datasets" in graph["dpdt._cli"]      # from . import datasets
    assert "dpdt" not in graph["dpdt._tree"]          # from . import _core, compiled


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": set(), "c": {"a", "b"}}, None),
])
def test_find_cycle(graph, cycle):
    assert find_cycle(graph) == cycle


def test_persistence_depends_on_no_estimator():
    # Classes register with _io; it imports none of them.
    assert import_graph()["dpdt._io"] <= {"dpdt._version"}


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_public_names_are_imported_on_first_use_and_listed_for_tools():
    """The package imports its names lazily; the imports that tools read list the same ones."""
    import subprocess
    import sys

    tree = ast.parse((SRC / "dpdt" / "__init__.py").read_text(encoding="utf-8"))
    (listed,) = [node for node in tree.body if isinstance(node, ast.If)]   # TYPE_CHECKING
    for_tools = {alias.asname or alias.name for node in listed.body for alias in node.names}
    code = ("import sys, dpdt\nheavy = 'sklearn' in sys.modules\n"
            "print(heavy, sorted(n for n in dpdt.__all__ if getattr(dpdt, n) is not None))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    heavy, names = proc.stdout.split(" ", 1)
    assert heavy == "False"
    assert ast.literal_eval(names) == sorted(for_tools)
