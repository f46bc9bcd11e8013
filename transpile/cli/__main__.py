"""``python -m kdsl.transpile.cli`` runs ``kdsl-transpile``."""

import sys

from kdsl.transpile.cli.main import main

sys.exit(main())
