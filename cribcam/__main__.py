import sys

from cribcam.cli import main

sys.exit(main())
