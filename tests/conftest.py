"""Test-session setup shared by every pytest process, xdist workers included."""

import os
import sys

# .ci/sanitize puts an instrumented build first on PYTHONPATH and names it here. A developer's
# editable install (scikit-build-core) puts an import hook ahead of PYTHONPATH, and every xdist
# worker reads it again at start-up: drop the hook in each process, so that the sanitized build is
# the one imported, and refuse to run the tests against any other.
_expected_core = os.environ.get("DPDT_EXPECT_CORE")
if _expected_core:
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if "Editable" not in type(finder).__name__
                        and "ScikitBuild" not in type(finder).__name__]
    import dpdt._core

    if not dpdt._core.__file__.startswith(_expected_core):
        raise RuntimeError(f"the sanitized build is not the one imported: {dpdt._core.__file__}")

