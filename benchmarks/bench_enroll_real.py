"""Teach each real deck of dev-real from ordinary photos; read its held-out photos, base vs taught.

Run from the repository root: ``python benchmarks/bench_enroll_real.py --help``. The work is done by
`cribtrain.measure.enroll_bench_real` (tested there); figures are printed, never asserted.
"""

from __future__ import annotations

import sys

from cribtrain.measure.enroll_bench_real import main

if __name__ == "__main__":
    sys.exit(main())
