"""``python -m baiuv``: the ``baiuv`` command (:func:`baiuv.cli.main`)."""

import sys

from baiuv.cli import main

if __name__ == "__main__":
    sys.exit(main())
