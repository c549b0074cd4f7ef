"""``python -m s2sad ...``: the ``s2sad`` command, where the console script is not on PATH."""
import sys

from .command_line import main

if __name__ == "__main__":
    sys.exit(main())
