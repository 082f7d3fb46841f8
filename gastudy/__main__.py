"""``python -m gastudy …`` (also what ``torchrun -m gastudy train …`` runs)."""

import sys

from gastudy.cli.main import main

sys.exit(main())
