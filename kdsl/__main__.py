"""``python -m kdsl`` runs ``kdsl-transpile`` (the same command as
``python -m kdsl.transpile``)."""

import sys

from kdsl.transpile.cli.main import main

sys.exit(main())
