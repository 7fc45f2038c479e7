"""Runs dpdt.benchmarks.published, as `dpdt bench published` does."""

from dpdt.benchmarks.published import main

if __name__ == "__main__":
    raise SystemExit(main())
