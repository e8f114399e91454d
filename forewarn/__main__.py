"""``python -m forewarn`` runs the command line."""

import sys

from forewarn.cli.main import main

sys.exit(main())
