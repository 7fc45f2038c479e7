"""Progress reports of long fits (``verbose=1``) through the ``dpdt`` logger."""

import logging
import sys

logger = logging.getLogger("dpdt")

# Seconds between two reports of a running fit.
REPORT_SECONDS = 1.0


def progress_reporter(verbose, what):
    """Return the core's progress callback for ``verbose``, or None when it is off.

    The callback logs the states solved, the root subproblems done out of the total, and the
    elapsed time, at INFO level on the ``dpdt`` logger. When logging is not configured at all, a
    handler on standard error is attached so that ``verbose=1`` is seen, as scikit-learn's
    ``verbose`` output is.
    """
    if not verbose:
        return None
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("[dpdt] %(message)s"))
        logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)

    def report(states, done, total, seconds):
        share = f"{done}/{total} root subproblems" if total else "expanding the root"
        logger.info("%s: %d states solved, %s, %.1f s", what, states, share, seconds)

    return report
