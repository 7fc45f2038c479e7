"""Runs dpdt.benchmarks.table1, as `dpdt bench table1` does."""

from dpdt.benchmarks.table1 import main

if __name__ == "__main__":
    raise SystemExit(main())
