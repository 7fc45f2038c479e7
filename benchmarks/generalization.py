"""Runs dpdt.benchmarks.generalization, as `dpdt bench generalization` does."""

from dpdt.benchmarks.generalization import main

if __name__ == "__main__":
    raise SystemExit(main())
