#!/usr/bin/env python3
"""contract 2e: the path-traced still agrees with Mitsuba 3 within Monte Carlo noise on scenes both
describe alike: matte and mirror grains on a matte floor under a uniform sky, without and with a
point sun (bench/mitsuba_compare.py --no-glass, Mitsuba's llvm_ad_rgb variant). The two images'
mean levels must agree to within a level and their pixels on average to within the noise.

Exit 77 (a skip, saying why) without Mitsuba, NumPy or libLLVM. Environment: GRANRAY_RENDER.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import numpy  # noqa: F401
        import mitsuba  # noqa: F401
    except ImportError as e:
        print(f"mitsuba_agreement: skipped: {e.name} is not installed (pip install mitsuba numpy)")
        return 77
    llvm = [p for p in ("/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1",
                        "/usr/lib/x86_64-linux-gnu/libLLVM-19.so") if os.path.exists(p)]
    if not llvm and "DRJIT_LIBLLVM_PATH" not in os.environ:
        print("mitsuba_agreement: skipped: no libLLVM for Mitsuba's llvm variant (apt install libllvm19)")
        return 77
    failures = 0
    for sun in ("0", "0.5"):
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "..", "bench", "mitsuba_compare.py"),
             "--granray", os.environ["GRANRAY_RENDER"], "--grains", "800", "--size", "160x90",
             "--samples", "256", "--no-glass", "--sun", sun],
            capture_output=True, text=True)
        print(run.stdout + run.stderr)
        if run.returncode != 0:
            print(f"mitsuba_agreement: the comparison failed (sun {sun})")
            return 1
        m = re.search(r"mean \|difference\| ([0-9.]+) levels.*mean level granray ([0-9.]+), "
                      r"mitsuba ([0-9.]+)", run.stdout)
        difference, ours, theirs = (float(v) for v in m.groups())
        if abs(ours - theirs) > 1.0:
            print(f"FAIL sun {sun}: mean levels {ours} and {theirs} differ by more than 1")
            failures += 1
        if difference > 5.0:
            print(f"FAIL sun {sun}: pixels differ by {difference} levels on average (noise: < 5)")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
