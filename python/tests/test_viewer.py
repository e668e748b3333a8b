"""granray-view in a real browser: Playwright (PyPI) driving Chromium headless.

A small run is made here by the example DEM (an orbit with its Cinema database, a further view
and an HDF5 file), granray-view serves it, and the page must show the right image for the
frame and angle as the slider moves and the orbit is dragged, show a frame appended to the
database after a reload, and show an HDF5 run's views side by side with its times plotted.
Exit 77 (a skip, saying why) without Chromium or Playwright. Environment: GRANRAY_DEM and
GRANRAY_VIEW name the programs.
"""
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

SEED = int(os.environ.get("GRANRAY_TEST_SEED", time.time_ns() % 2**32))
print(f"test_viewer: seed {SEED}", flush=True)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRAG_STEP = 20  # the page's pixels of mouse travel per angle


def rows_of(cdb):
    with open(os.path.join(cdb, "data.csv"), newline="") as f:
        return list(csv.DictReader(f))


def expected_file(rows, step, theta_index, phi_index):
    frame = [r for r in rows if int(r["step"]) == step]
    thetas = sorted({float(r["theta"]) for r in frame})
    phis = sorted({float(r["phi"]) for r in frame})
    theta = thetas[min(max(theta_index, 0), len(thetas) - 1)]
    phi = phis[phi_index % len(phis)]
    return next(r["FILE"] for r in frame if float(r["theta"]) == theta and float(r["phi"]) == phi)


class Server:
    def __init__(self, run):
        self.process = subprocess.Popen([os.environ["GRANRAY_VIEW"], run, "--port", "0"],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        self.url = line.split(" at ")[-1].strip()
        if not self.url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"granray-view printed {line!r}")

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.process.terminate()
        self.process.wait()


def main():
    if CHROMIUM is None:
        print("test_viewer: skipped: no Chromium (apt install chromium)")
        return 77
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("test_viewer: skipped: no Playwright in this Python (pip install playwright)")
        return 77
    try:  # granray-view runs on this Python too, and reads the HDF5 run with h5py
        import h5py  # noqa: F401
    except ImportError:
        print("test_viewer: skipped: no h5py in this Python (pip install h5py)")
        return 77
    rng = random.Random(SEED)
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL:", what, flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        phi_count = rng.randint(3, 6)
        thetas = sorted(rng.sample([30.0, 45.0, 60.0, 90.0, 120.0], 2))
        subprocess.run(
            [os.environ["GRANRAY_DEM"], "--set", "simulation.particles=200",
             "--set", "simulation.steps=300", "--set", "insitu.every=100",
             "--set", "insitu.width=96", "--set", "insitu.height=72",
             "--set", "insitu.backend=\"cpu\"", "--set", "simulation.backend=\"cpu\"",
             "--set", "insitu.png=\"\"", "--set", "insitu.output=\"run.h5\"",
             "--set", f"insitu.orbit={{theta={thetas}, phi_count={phi_count}, cinema=\"run.cdb\"}}",
             "--set", "insitu.views=[{name=\"top\", theta=0.0}]"],
            cwd=tmp, check=True, capture_output=True)
        cdb = os.path.join(tmp, "run.cdb")
        rows = rows_of(cdb)
        steps = sorted({int(r["step"]) for r in rows})
        check(steps == [0, 100, 200, 300], f"the run wrote steps {steps}")
        with sync_playwright() as p, Server(cdb) as server:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 900, "height": 700})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url)
            page.wait_for_selector("body[data-ready=true]")
            image = page.locator("#orbit-image")

            def shows(step, theta_index, phi_index, what):
                want = "db/" + expected_file(rows, step, theta_index, phi_index)
                got = image.get_attribute("src")
                check(got == want, f"{what}: shows {got}, not {want}")
                page.wait_for_function(
                    "document.getElementById('orbit-image').complete")
                check(page.evaluate("document.getElementById('orbit-image').naturalWidth") == 96,
                      f"{what}: the image did not load")

            shows(0, 0, 0, "the first frame")
            frame = rng.randrange(len(steps))
            page.locator("#slider").fill(str(frame))
            shows(steps[frame], 0, 0, f"the slider at frame {frame}")
            check(f"step {steps[frame]}" in page.locator("#step").inner_text(), "the step shown")
            across, down = rng.randint(1, 2 * phi_count), rng.randint(0, 1)
            box = image.bounding_box()
            x, y = box["x"] + 10, box["y"] + 10
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + across * DRAG_STEP + 2, y + down * DRAG_STEP + 2, steps=5)
            page.mouse.up()
            shows(steps[frame], down, across, f"dragged {across} across and {down} down")
            # The run goes on: a frame appended to the database shows after a reload.
            with open(os.path.join(cdb, "data.csv"), "a") as f:
                for r in [r for r in rows if int(r["step"]) == steps[-1]]:
                    name = r["FILE"].replace(f"images/{steps[-1]}_", "images/999_")
                    shutil.copy(os.path.join(cdb, r["FILE"]), os.path.join(cdb, name))
                    f.write(f"9.99,999,{r['theta']},{r['phi']},{name}\n")
            page.reload()
            page.wait_for_selector("body[data-ready=true]")
            check(page.locator("#slider").get_attribute("max") == str(len(steps)),
                  "the appended frame is not on the slider after a reload")
            page.locator("#slider").fill(str(len(steps)))
            rows = rows_of(cdb)
            shows(999, 0, 0, "the appended frame")
            check(not errors, f"page errors: {errors}")
            browser.close()
        # Neither a database nor a frames file: said, and a non-zero exit.
        bogus = os.path.join(tmp, "notes.txt")
        with open(bogus, "w") as f:
            f.write("not a run\n")
        for wrong in (bogus, tmp):
            out = subprocess.run([os.environ["GRANRAY_VIEW"], wrong, "--port", "0"],
                                 capture_output=True, text=True, timeout=30)
            check(out.returncode != 0 and wrong in out.stderr,
                  f"granray-view {wrong}: exit {out.returncode}, said {out.stderr!r}")
        with sync_playwright() as p, Server(os.path.join(tmp, "run.h5")) as server:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(server.url)
            page.wait_for_selector("body[data-ready=true]")
            views = 1 + len(thetas) * phi_count + 1  # main, the ring, top
            canvases = page.locator("#views canvas")
            check(canvases.count() == views, f"{canvases.count()} views shown, not {views}")
            page.locator("#slider").fill("2")
            page.wait_for_function(
                "[...document.querySelectorAll('#views canvas')].every(c => c.dataset.step == '200')")
            shot = os.environ.get("GRANRAY_VIEWER_SCREENSHOT")
            if shot:  # the README's picture of the viewer
                page.screenshot(path=shot, full_page=True)
            lines = page.locator("#plot polyline")
            check(lines.count() == 2, "render and composite times are not both plotted")
            points = lines.first.get_attribute("points").split()
            check(len(points) == len(steps), f"{len(points)} points for {len(steps)} frames")
            browser.close()
    print(f"test_viewer: {'failed' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
