"""`python -m spiqa_demo ...` runs the CLI."""

import sys

from spiqa_demo.cli import main

sys.exit(main())
