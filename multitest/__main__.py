"""``python -m multitest``: the command line (:func:`multitest.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
