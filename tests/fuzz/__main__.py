"""``python -m tests.fuzz --programs 10000``: the long fuzz profile (see run.py)."""
import sys

from .run import main

sys.exit(main())
