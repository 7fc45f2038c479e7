"""Runs dpdt.benchmarks.branches, as `dpdt bench branches` does."""

from dpdt.benchmarks.branches import main

if __name__ == "__main__":
    raise SystemExit(main())
