"""Runs dpdt.benchmarks.scaling, as `dpdt bench scaling` does."""

from dpdt.benchmarks.scaling import main

if __name__ == "__main__":
    raise SystemExit(main())
