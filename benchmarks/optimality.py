"""Runs dpdt.benchmarks.optimality, as `dpdt bench optimality` does."""

from dpdt.benchmarks.optimality import main

if __name__ == "__main__":
    raise SystemExit(main())
