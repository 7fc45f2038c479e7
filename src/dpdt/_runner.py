"""The one place where the DPDT estimators call the C++ core's fit functions.

By default :func:`call_core` calls ``dpdt._core`` directly. A runner set in :data:`RUNNER` (for
the current thread or task only, as it is a context variable) receives every such call instead:
``dpdt.dask`` installs one to split a fit over a cluster. The core function travels by name, so
that a runner can resolve it in another process.
"""

from contextvars import ContextVar

from . import _core

#: None, or a callable ``runner(name, args, options)`` that performs ``_core.<name>(*args,
#: **options)`` in its own way and returns the same result.
RUNNER = ContextVar("dpdt_core_runner", default=None)


def call_core(name, *args, **options):
    """Return ``_core.<name>(*args, **options)``, run by the current runner if one is set."""
    runner = RUNNER.get()
    if runner is None:
        return getattr(_core, name)(*args, **options)
    return runner(name, args, options)
