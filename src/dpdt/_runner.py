"""The one place where dpdt calls the C++ core's fits, and the names the core gives its choices.

A fit's knobs travel as a plain dict, ``params``, keyed by the fields of the core's parameter
struct (``_core.Params``; ``_core.BranchesParams`` for BRANCHES), which
``cpp/include/dpdt/params.hpp`` declares and documents, one field each. The dict becomes that
struct only right before the core's call (:func:`run`), a string naming a member of the field's
enum, so that a call can be pickled to another process as it is.

By default :func:`call_core` runs the call here. A runner set in :data:`RUNNER` (for the current
thread or task only, as it is a context variable) receives every such call instead: ``dpdt.dask``
installs one to split a fit over a cluster. The core function travels by name, so that a runner
can resolve it in another process.

Fits that run side by side on threads (a cross-validation's, boosting's trees of one round) go
through :func:`map_threads`, which stops them together: the core calls made in its context share
one :class:`_core.Stop`, held in :data:`STOP`.
"""

import enum
import warnings
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar, copy_context

import numpy as np
from joblib import cpu_count, effective_n_jobs

from . import _core

#: None, or a callable ``runner(name, args, params, arguments)`` that performs
#: ``run(name, args, params, arguments)`` in its own way and returns the same result.
RUNNER = ContextVar("dpdt_core_runner", default=None)

#: None, or the ``_core.Stop`` every core call of the current context obeys (:func:`shared_stop`).
STOP = ContextVar("dpdt_stop", default=None)

# The core functions that run a loop, and so take a ``stop``.
_STOPPABLE = frozenset({"fit", "fit_branches", "prepare", "bin_uppers", "bin_codes"})

# The core's choices by the names the estimators take: its enums' members, in declaration order.
SPLITTERS = tuple(_core.Splitter.__members__)
CRITERIA = tuple(_core.Criterion.__members__)
COMPLEXITIES = tuple(_core.Complexity.__members__)
FRONTS = tuple(_core.Front.__members__)

# Beyond this many threads per CPU, threads only add contention and their own scratch memory:
# n_jobs=2**31 - 1 held 10 GB and ran 80 s before the system refused a thread.
THREADS_PER_CPU = 4


def n_threads(n_jobs):
    """Return the threads a fit uses for ``n_jobs``, read as joblib reads it, with a cap.

    None means 1 and -1 every CPU, as in joblib; more than ``THREADS_PER_CPU`` threads per
    CPU are capped, with a warning. The result never depends on it: a fit gives the same
    model on any number of threads.
    """
    requested = max(1, effective_n_jobs(n_jobs))
    if requested <= THREADS_PER_CPU:   # within the cap of any machine (reading it costs 0.2 ms)
        return requested
    cap = THREADS_PER_CPU * cpu_count()
    if requested > cap:
        warnings.warn(f"n_jobs={n_jobs} is more than {THREADS_PER_CPU} threads per CPU; "
                      f"using {cap} threads", UserWarning, stacklevel=3)
        return cap
    return requested


# The parameter struct of each core function that takes one.
_PARAMS = {
    "fit": _core.Params,
    "fit_branches": _core.BranchesParams,
}


def call_core(name, *args, params=None, **arguments):
    """Return ``_core.<name>(*args, params, **arguments)``, run by the current runner if one is set.

    ``params`` is the dict of the function's parameter struct (None for a function without one,
    such as ``prepare``); ``arguments`` are the function's other keyword arguments.
    """
    runner = RUNNER.get()
    if runner is None:
        return run(name, args, params, arguments)
    return runner(name, args, params, arguments)


def run(name, args, params=None, arguments=None):
    """Return ``_core.<name>(*args, core_params(params), **arguments)``, run in this process.

    A function that runs a loop runs it under the context's :data:`STOP`, if any.
    """
    core = getattr(_core, name)
    args = tuple(aligned(value) for value in args)
    arguments = {key: aligned(value) for key, value in (arguments or {}).items()}
    stop = STOP.get()
    if stop is not None and name in _STOPPABLE:
        arguments["stop"] = stop
    if params is None:
        return core(*args, **arguments)
    return core(*args, core_params(_PARAMS[name], params), **arguments)


def aligned(value):
    """Return ``value``, or an aligned copy of it if it is a misaligned ndarray.

    The core reads arrays through typed pointers, which must be aligned for their type (C++'s
    rule; UBSan reports it). numpy makes aligned arrays, but not every array is made by numpy
    here: one unpickled from a buffer (as dpdt.dask's workers receive theirs) can start at any
    byte.
    """
    if isinstance(value, np.ndarray) and not value.flags.aligned:
        return np.require(value, requirements=["A", "C"])
    return value


def core_params(kind, params):
    """Return the struct ``kind()`` with the fields named in the dict ``params`` set.

    A field whose default is an enum member (or a non-empty list of them) takes member names.

    Raises
    ------
    TypeError
        If a key is not a field of ``kind``.
    ValueError
        If a value is not of the field's type or out of its range.
    """
    struct = kind()
    for key, value in params.items():
        try:
            default = getattr(struct, key)
        except AttributeError:
            raise TypeError(f"{key} is not a field of {kind.__name__}") from None
        try:
            setattr(struct, key, _as_field(default, value))
        except (TypeError, KeyError) as error:
            raise ValueError(f"{kind.__name__}.{key}: {value!r} is not of the expected type or out "
                             "of range") from error
    return struct


def _as_field(default, value):
    """Return ``value`` as the core takes it for a field of this default: enums by member name."""
    if isinstance(default, enum.Enum):
        return type(default)[value]
    if isinstance(default, list) and default and isinstance(default[0], enum.Enum):
        return [type(default[0])[member] for member in value]
    return value


@contextmanager
def shared_stop(time_limit=None):
    """Run the block's core calls under one new ``_core.Stop``, and yield it.

    With ``time_limit`` (seconds), the Stop's deadline, counted from now, is that of every
    time-limited search of the block, however late it starts: the searches so end, together,
    within ``max(2 * time_limit, time_limit + 1)`` seconds (the core's grace, dpdt/run_loop.hpp).
    ``stop.remaining`` tells the block's Python code how much is left, on the core's clock.
    """
    stop = _core.Stop(0.0 if time_limit is None else float(time_limit))
    token = STOP.set(stop)
    try:
        yield stop
    finally:
        STOP.reset(token)


def map_threads(function, items, threads):
    """Return ``[function(item) for item in items]``, run on ``threads`` threads, stopped together.

    The calls share the context's :data:`STOP` (a new one if none). An exception of any call,
    or Ctrl-C (which Python delivers to the main thread only, where this waits), cancels it:
    every fit in progress stops within milliseconds and the calls not started are skipped. The
    threads are joined before the exception is re-raised, so that no thread is left running in
    the core (at the interpreter's exit, one would abort it).
    """
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    with shared_stop() if STOP.get() is None else nullcontext(STOP.get()) as stop:
        with ThreadPoolExecutor(min(threads, len(items))) as pool:
            # Each call runs in a copy of this context: it sees STOP (and RUNNER).
            futures = [pool.submit(copy_context().run, function, item) for item in items]
            try:
                wait(futures, return_when=FIRST_EXCEPTION)
                for future in futures:
                    if future.done() and future.exception() is not None:
                        raise future.exception()
                return [future.result() for future in futures]
            except BaseException:
                stop.cancel()
                for future in futures:
                    future.cancel()
                raise   # leaving the pool joins its threads
