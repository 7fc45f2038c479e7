"""Runs dpdt.benchmarks.boosting, as `dpdt bench boosting` does."""

from dpdt.benchmarks.boosting import main

if __name__ == "__main__":
    raise SystemExit(main())
