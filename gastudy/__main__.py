"""``python -m gastudy …`` (also what ``torchrun -m gastudy train …`` runs)."""

import sys

from gastudy.cli import main

sys.exit(main())
