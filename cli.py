"""Run the s2sad command from a checkout: ``python cli.py show examples/quickstart.py:loss``."""
import sys

from s2sad.command_line import main

if __name__ == "__main__":
    sys.exit(main())
