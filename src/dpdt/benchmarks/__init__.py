"""The benchmarks, runnable from the installed package: ``dpdt bench NAME [options]``.

Each module prints markdown tables and one verdict line per target; timings are reported,
never asserted. ``python benchmarks/NAME.py`` in a source checkout runs the same code.
"""

import importlib

BENCHMARKS = ("optimality", "table1", "regression", "boosting", "branches", "generalization",
              "published", "parallel", "scaling")


def run(name, argv=()):
    """Run one benchmark with its own command-line options.

    Parameters
    ----------
    name : str
        One of :data:`BENCHMARKS`.
    argv : sequence of str, default=()
        The benchmark's options, e.g. ``["--datasets", "bank", "--repeats", "1"]``.

    Returns
    -------
    status : int
        The benchmark's exit status (0).
    """
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(BENCHMARKS)}")
    module = importlib.import_module(f"{__name__}.{name}")
    return module.main(list(argv)) or 0
