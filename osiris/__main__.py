"""Allow `python -m osiris`."""

import sys

from osiris.cli import main

sys.exit(main())
