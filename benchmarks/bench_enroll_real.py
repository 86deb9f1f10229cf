"""Teach the reader each real capture group of dev-real, read its held-out photos before and after.

Run from the repository root: ``python benchmarks/bench_enroll_real.py --help``. The work is done by
`cribtrain.measure.enroll_bench_real` (tested there); figures are printed, never asserted.
"""

from __future__ import annotations

import sys

from cribtrain.measure.enroll_bench_real import main

if __name__ == "__main__":
    sys.exit(main())
