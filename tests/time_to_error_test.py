#!/usr/bin/env python3
"""bench/mitsuba_compare.py's time_to_error: on curves where the RMS error falls as a power of the
time (random exponents, scales and targets each run), the time it reads off between the two
counts that bracket a target is the power law's own; a curve that reaches the target at its first
count gives that count's time, and one that never reaches it gives None.

Exit 77 (a skip, saying why) without NumPy, which the script imports.
"""
import importlib.util
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("time_to_error_test: skipped: numpy is not installed")
        return 77
    spec = importlib.util.spec_from_file_location(
        "mitsuba_compare", os.path.join(HERE, "..", "bench", "mitsuba_compare.py"))
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    failures = 0
    for _ in range(200):
        slope = rng.uniform(0.3, 0.7)   # RMS ~ time^-slope (Monte Carlo: about 0.5)
        scale = rng.uniform(1.0, 100.0)
        first = rng.uniform(0.005, 0.05)
        times = [first * 2 ** k * rng.uniform(0.9, 1.1) for k in range(7)]
        curve = [(t, scale * t ** -slope) for t in times]
        k = rng.randrange(1, len(curve))
        target = math.exp(rng.uniform(math.log(curve[k][1]), math.log(curve[k - 1][1])))
        want = (target / scale) ** (-1.0 / slope)
        got = compare.time_to_error(curve, target)
        if got is None or abs(got - want) > 1e-9 * want:
            print(f"seed {seed}: target {target} between counts {k - 1} and {k}: {got}, want {want}")
            failures += 1
        if compare.time_to_error(curve, curve[0][1] * 1.5) != curve[0][0]:
            print(f"seed {seed}: a target the first count reaches is not its time")
            failures += 1
        if compare.time_to_error(curve, curve[-1][1] * 0.5) is not None:
            print(f"seed {seed}: a target no count reaches has a time")
            failures += 1
    print(f"time_to_error_test: seed {seed}, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
