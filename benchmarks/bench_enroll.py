"""Enrol the held-out deck designs, tune the reader, read game scenes before and after.

Run from the repository root: ``python benchmarks/bench_enroll.py --help``. The work is done by
`cribtrain.measure.enroll_bench` (tested there); figures are printed, never asserted.
"""

from __future__ import annotations

import sys

from cribtrain.measure.enroll_bench import main

if __name__ == "__main__":
    sys.exit(main())
