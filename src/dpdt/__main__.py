"""``python -m dpdt``: the ``dpdt`` command line, where the console script is not on PATH."""

import sys

from ._cli import main

sys.exit(main())
