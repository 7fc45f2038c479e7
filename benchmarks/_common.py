"""The benchmarks' shared helpers now live in dpdt.benchmarks._common."""

from dpdt.benchmarks._common import median_fit_seconds, progress, verdict  # noqa: F401
