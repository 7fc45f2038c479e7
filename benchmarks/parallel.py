"""Runs dpdt.benchmarks.parallel, as `dpdt bench parallel` does."""

from dpdt.benchmarks.parallel import main

if __name__ == "__main__":
    raise SystemExit(main())
