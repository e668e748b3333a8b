#!/usr/bin/env python3
"""granray-view RUN: explore a run afterwards in a browser.

RUN is a Cinema database (a NAME.cdb folder, [insitu.orbit] cinema) or a granray HDF5 frames
file ([insitu] output). The viewer is a static page (plain HTML, CSS and JavaScript beside this
script); this server hands it the run: /run.json, read again on every request so that a run
still being written shows its new frames after a reload, and the images. It serves on the local
machine only and opens nothing else: point a browser at the address it prints.

Python's standard library serves; an HDF5 file needs h5py (Debian: python3-h5py).
"""
import argparse
import csv
import http.server
import json
import os
import re
import socketserver
import sys
import urllib.parse

HERE = os.path.dirname(os.path.realpath(__file__))
if not os.path.isfile(os.path.join(HERE, "index.html")):  # installed: bin/ beside share/
    HERE = os.path.join(HERE, os.pardir, "share", "granray", "viewer")
PAGE_FILES = {"/": "index.html", "/index.html": "index.html", "/viewer.js": "viewer.js",
              "/viewer.css": "viewer.css"}
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".png": "image/png", ".ppm": "image/x-portable-pixmap",
         ".json": "application/json"}


def cinema_run(folder):
    """Frames of a Cinema spec D database: rows grouped by step, in the file's order."""
    frames, by_step = [], {}
    with open(os.path.join(folder, "data.csv"), newline="") as f:
        for row in csv.DictReader(f):
            try:
                step = int(row["step"])
                image = {"theta": float(row["theta"]), "phi": float(row["phi"]),
                         "file": row["FILE"]}
                time = float(row["time"])
            except (KeyError, TypeError, ValueError):
                continue  # a row cut short while the run writes it
            if step not in by_step:
                by_step[step] = {"step": step, "time": time, "images": []}
                frames.append(by_step[step])
            by_step[step]["images"].append(image)
    return {"kind": "cinema", "name": os.path.basename(folder.rstrip("/")), "frames": frames}


def natural_order(name):
    """orbit_t30_p72 before orbit_t30_p144: numbers compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def hdf5_run(path):
    import h5py  # only for HDF5 runs
    with h5py.File(path, "r") as f:
        frames_group = f["frames"]
        count = min(frames_group[name].shape[0] for name in frames_group)
        height, width = frames_group["rgb"].shape[1:3]
        views = ["main"] + (sorted(f["views"].keys(), key=natural_order) if "views" in f else [])
        series = {name: frames_group[name][:count].tolist()
                  for name in ("step", "time", "render_ms", "composite_ms", "frame_ms")
                  if name in frames_group}
        ranges = frames_group["color_range"][:count].tolist() if "color_range" in frames_group \
            else [[None, None]] * count
    frames = []
    for k in range(count):
        frame = {key: values[k] for key, values in series.items()}
        lo, hi = ranges[k]
        frame["color_range"] = None if lo != lo or hi != hi else [lo, hi]  # NaN: uncoloured
        frames.append(frame)
    return {"kind": "hdf5", "name": os.path.basename(path), "width": int(width),
            "height": int(height), "views": views, "frames": frames}


def hdf5_rgb(path, index, view):
    import h5py
    with h5py.File(path, "r") as f:
        dataset = f["frames/rgb"] if view == "main" else f["views/" + view + "/rgb"]
        return dataset[index].tobytes()


class Handler(http.server.BaseHTTPRequestHandler):
    run_path = ""

    def log_message(self, *args):  # quiet: the terminal shows the address only
        pass

    def send(self, body, content_type, status=200):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def fail(self, status, why):
        self.send((why + "\n").encode(), "text/plain; charset=utf-8", status)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        path = urllib.parse.unquote(url.path)
        try:
            if path in PAGE_FILES:
                name = PAGE_FILES[path]
                with open(os.path.join(HERE, name), "rb") as f:
                    self.send(f.read(), TYPES[os.path.splitext(name)[1]])
            elif path == "/run.json":
                run = cinema_run(self.run_path) if os.path.isdir(self.run_path) \
                    else hdf5_run(self.run_path)
                self.send(json.dumps(run).encode(), TYPES[".json"])
            elif path.startswith("/db/") and os.path.isdir(self.run_path):
                root = os.path.realpath(self.run_path)
                file = os.path.realpath(os.path.join(root, path[len("/db/"):]))
                if not file.startswith(root + os.sep) or not os.path.isfile(file):
                    return self.fail(404, "no such image in the database")
                with open(file, "rb") as f:
                    self.send(f.read(), TYPES.get(os.path.splitext(file)[1],
                                                  "application/octet-stream"))
            elif path.startswith("/rgb/") and not os.path.isdir(self.run_path):
                _, _, index, view = path.split("/", 3)
                self.send(hdf5_rgb(self.run_path, int(index), view), "application/octet-stream")
            else:
                self.fail(404, "not found")
        except (OSError, KeyError, ValueError, IndexError) as e:
            self.fail(500, f"granray-view: {e}")


def main():
    parser = argparse.ArgumentParser(prog="granray-view", description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a Cinema database (NAME.cdb) or a granray HDF5 frames file")
    parser.add_argument("--port", type=int, default=8000, help="0: any free port")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    run = os.path.abspath(args.run)
    if os.path.isdir(run):
        if not os.path.isfile(os.path.join(run, "data.csv")):
            sys.exit(f"granray-view: {args.run}: a folder without data.csv is no Cinema database")
    elif not os.path.isfile(run):
        sys.exit(f"granray-view: {args.run}: no such file or folder")
    else:
        try:
            hdf5_run(run)
        except ImportError:
            sys.exit("granray-view: reading an HDF5 run needs h5py (apt install python3-h5py)")
        except (OSError, KeyError) as e:
            sys.exit(f"granray-view: {args.run}: not a granray frames file ({e})")
    Handler.run_path = run
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer((args.host, args.port), Handler) as server:
        print(f"granray-view: {args.run} at http://{args.host}:{server.server_address[1]}/",
              flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
