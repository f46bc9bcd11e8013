"""``python -m kdsl.transpile`` runs ``kdsl-transpile`` (an alias of
``python -m kdsl.transpile.cli``)."""

import sys

from kdsl.transpile.cli.main import main

sys.exit(main())
