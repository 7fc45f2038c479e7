"""Progress reports of long fits (``verbose >= 1``): log lines on the ``dpdt`` logger, or a bar.

Every estimator reports through one :class:`Reporter`: a count of units done (root subproblems,
fits, rounds, branches) out of a total when one is known, notes (states solved, a loss), and the
seconds elapsed. On a terminal with tqdm installed (``pip install "dpdt[progress]"``) it draws
a tqdm bar on standard error; otherwise it logs at INFO level on the ``dpdt`` logger, at most one
line every :data:`REPORT_SECONDS` and a final line, as scikit-learn's ``verbose`` output is seen
without configuring anything.
"""

import logging
import sys
import threading
import time

logger = logging.getLogger("dpdt")

# Seconds between two log lines of a running fit.
REPORT_SECONDS = 1.0
# Seconds between two calls of the core's progress callback: often enough for a bar to move
# smoothly; the log lines are thinned out to REPORT_SECONDS by the reporter.
BAR_SECONDS = 0.1


def core_seconds():
    """Return the interval to ask of the core's progress callback (its ``progress_seconds``)."""
    return min(REPORT_SECONDS, BAR_SECONDS)


def _to_terminal():
    """Whether standard error is a terminal, where a bar can redraw itself."""
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except ValueError:   # a closed stream
        return False


def _tqdm():
    """Return tqdm's bar class, or None when tqdm is not installed."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class Reporter:
    """Reports the progress of one fit: ``done`` units of ``total``, notes and elapsed seconds.

    Calls from several threads are safe (the CV estimators' fits finish on their own threads).

    Parameters
    ----------
    what : str
        Who reports, the estimator's class name: every line starts with it.
    unit : str
        What is counted, plural ("fits", "rounds").
    total : int or None, default=None
        How many units there are; None or 0 while unknown.
    pending : str or None, default=None
        What the count reads while the total is unknown (else the units done alone).
    """

    def __init__(self, what, unit, total=None, pending=None):
        self.what, self.unit, self.pending = what, unit, pending
        self.done, self.total, self.notes = 0, total, ()
        self._lock = threading.Lock()
        self._start = self._last = time.perf_counter()
        tqdm = _tqdm() if _to_terminal() else None
        self._bar = None
        self._uses_bar = tqdm is not None   # a bar, even once closed, stands for the log lines
        if tqdm is not None:
            self._bar = tqdm(total=total or None, desc=what, unit=f" {unit}", file=sys.stderr,
                             dynamic_ncols=True, leave=True)
            return
        # As scikit-learn's verbose output is seen without configuring logging: a handler on
        # standard error when logging is not configured at all.
        if not logger.handlers and not logging.getLogger().handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("[dpdt] %(message)s"))
            logger.addHandler(handler)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)

    def update(self, done=None, total=None, notes=None, *, advance=0):
        """Record the progress, and report it if the last report is old enough.

        Parameters
        ----------
        done : int or None, default=None
            Units done; None keeps the count (plus ``advance``).
        total : int or None, default=None
            The total, when it becomes known or changes; None keeps it.
        notes : sequence of str or None, default=None
            What else to report ("1234 states"); None keeps the last notes.
        advance : int, default=0
            Units to add to the count.
        """
        with self._lock:
            self._record(done, total, notes, advance)
            now = time.perf_counter()
            if self._bar is not None:
                self._draw(force=False)
            elif not self._uses_bar and now - self._last >= REPORT_SECONDS:
                self._last = now
                self._log(now)

    def finish(self, done=None, total=None, notes=None):
        """Report the final state (always, the log line unthrottled) and close the bar."""
        with self._lock:
            self._record(done, total, notes, 0)
            if self._bar is not None:
                self._draw(force=True)
                self._close_bar()
            elif not self._uses_bar:
                self._log(time.perf_counter(), final=True)

    def close(self):
        """Close the bar, if any, without a final report (a fit that raised)."""
        with self._lock:
            self._close_bar()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        # A fit that raised leaves its bar where it stopped; one that did not calls finish.
        if exc_type is not None:
            self.close()

    def tree_callback(self, states, done, total, seconds):
        """Report a DPDT search as the core's progress callback: root subproblems, states."""
        self.update(done, total, [f"{states} states"])

    def _record(self, done, total, notes, advance):
        if done is not None:
            self.done = done
        self.done += advance
        if total is not None:
            self.total = total
        if notes is not None:
            self.notes = tuple(notes)

    def _line(self, now, final):
        if self.total:
            count = f"{self.done}/{self.total} {self.unit}"
        elif self.pending and not final:
            count = self.pending
        else:
            count = f"{self.done} {self.unit}"
        return ", ".join([count, *self.notes, f"{now - self._start:.1f} s"])

    def _log(self, now, final=False):
        logger.info("%s: %s", self.what, self._line(now, final))

    def _draw(self, force):
        bar = self._bar
        bar.set_postfix_str(", ".join(self.notes), refresh=False)
        if (self.total or None) != bar.total:
            bar.total = self.total or None
            force = True
        if force:
            bar.n = self.done
            bar.refresh()
        else:   # tqdm redraws at most every mininterval
            bar.update(self.done - bar.n)

    def _close_bar(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class _Silent:
    """The reporter of ``verbose=0``: does nothing, and gives the core no callback."""

    tree_callback = None
    total = None

    def update(self, *args, **kwargs):
        pass

    def finish(self, *args, **kwargs):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


SILENT = _Silent()


def reporter(verbose, what, unit, total=None, pending=None):
    """Return a :class:`Reporter` when ``verbose`` is 1 or more, else one that does nothing.

    The arguments after ``verbose`` are those of :class:`Reporter`.
    """
    if not verbose:
        return SILENT
    return Reporter(what, unit, total=total, pending=pending)
