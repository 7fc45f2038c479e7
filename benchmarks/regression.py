"""Runs dpdt.benchmarks.regression, as `dpdt bench regression` does."""

from dpdt.benchmarks.regression import main

if __name__ == "__main__":
    raise SystemExit(main())
