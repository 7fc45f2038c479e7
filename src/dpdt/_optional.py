"""Imports of the optional dependencies: a missing one names the extra that installs it."""

import importlib

#: The extra of dpdt's ``pyproject.toml`` that installs each optional package.
EXTRAS = {
    "matplotlib": "plot",
    "pandas": "cli",
    "pyarrow": "cli",
    "dask": "dask",
    "distributed": "dask",
    "tqdm": "progress",
}


def require(module, purpose):
    """Import ``module`` (a dotted name) and return it, or say which extra to install.

    Parameters
    ----------
    module : str
        The module to import, such as ``"matplotlib.pyplot"``; its package must be in
        :data:`EXTRAS`.
    purpose : str
        What needs it, the start of the message: ``"plot_tree"`` gives "plot_tree needs
        matplotlib: pip install "dpdt[plot]"".

    Returns
    -------
    module : module
        The imported module.

    Raises
    ------
    ImportError
        If the package is not installed, with the command that installs it.
    """
    package = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f'{purpose} needs {package}: pip install "dpdt[{EXTRAS[package]}]"'
                          ) from error
