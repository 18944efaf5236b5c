"""``python -m llamatest.load``: see ``llamatest.load.cli``."""

import sys

from llamatest.load.cli import main

sys.exit(main())
