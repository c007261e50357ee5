"""``python -m privbayes.cli``: the same as the ``privbayes`` command."""

import sys

from privbayes.cli import main

sys.exit(main())
