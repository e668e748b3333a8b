// granray-view's page: a time slider over the run's frames, the orbit's images dragged with the
// mouse (a Cinema database) or the views side by side (an HDF5 file), the frame's step, time
// and colour range, and the per-frame render and composite times. Everything comes from the
// server that serves this page (/run.json and the images): no network beyond it.
"use strict";

const state = { run: null, frame: 0, theta: 0, phi: 0, timer: null };
const $ = (id) => document.getElementById(id);

// The distinct values of a list of numbers, sorted.
function distinct(values) {
  return [...new Set(values)].sort((a, b) => a - b);
}

function currentFrame() {
  return state.run.frames[state.frame];
}

function showInfo(frame) {
  $("step").textContent = "step " + frame.step;
  $("time").textContent = "t = " + Number(frame.time).toPrecision(6);
  $("frame-count").textContent = (state.frame + 1) + " / " + state.run.frames.length;
  const bar = $("colour-bar");
  bar.hidden = !frame.color_range;
  if (frame.color_range) {
    $("colour-lo").textContent = Number(frame.color_range[0]).toPrecision(4);
    $("colour-hi").textContent = Number(frame.color_range[1]).toPrecision(4);
  }
}

// Cinema: the image of this frame nearest the dragged angle.
function showOrbit(frame) {
  const thetas = distinct(frame.images.map((i) => i.theta));
  const phis = distinct(frame.images.map((i) => i.phi));
  state.theta = Math.min(Math.max(state.theta, 0), thetas.length - 1);
  state.phi = ((state.phi % phis.length) + phis.length) % phis.length;
  const theta = thetas[state.theta], phi = phis[state.phi];
  const image = frame.images.find((i) => i.theta === theta && i.phi === phi) || frame.images[0];
  const img = $("orbit-image");
  img.src = "db/" + image.file;
  img.dataset.step = frame.step;
  img.dataset.theta = image.theta;
  img.dataset.phi = image.phi;
  $("angle").textContent = "theta " + image.theta + "\u00b0, phi " + image.phi + "\u00b0";
}

// HDF5: every view of this frame, each a canvas filled with its pixels.
async function showViews(frame) {
  const run = state.run;
  const box = $("views");
  if (box.children.length !== run.views.length) {
    box.textContent = "";
    for (const name of run.views) {
      const figure = document.createElement("figure");
      const canvas = document.createElement("canvas");
      canvas.width = run.width;
      canvas.height = run.height;
      canvas.dataset.view = name;
      const caption = document.createElement("figcaption");
      caption.textContent = name;
      figure.append(canvas, caption);
      box.append(figure);
    }
  }
  const index = state.frame;
  for (const canvas of box.querySelectorAll("canvas")) {
    const response = await fetch("rgb/" + index + "/" + encodeURIComponent(canvas.dataset.view));
    if (!response.ok || index !== state.frame) continue;
    const rgb = new Uint8Array(await response.arrayBuffer());
    const pixels = new ImageData(run.width, run.height);
    for (let p = 0, q = 0; p < rgb.length; p += 3, q += 4) {
      pixels.data[q] = rgb[p];
      pixels.data[q + 1] = rgb[p + 1];
      pixels.data[q + 2] = rgb[p + 2];
      pixels.data[q + 3] = 255;
    }
    canvas.getContext("2d").putImageData(pixels, 0, 0);
    canvas.dataset.step = frame.step;
  }
}

function show() {
  const frame = currentFrame();
  if (!frame) return;
  $("slider").value = state.frame;
  showInfo(frame);
  if (state.run.kind === "cinema") {
    showOrbit(frame);
  } else {
    showViews(frame);
  }
}

// The render and composite times of every frame as two lines.
function plotTimings(frames) {
  const series = ["render_ms", "composite_ms"].filter((k) => frames.some((f) => k in f));
  $("timings").hidden = series.length === 0 || frames.length === 0;
  if ($("timings").hidden) return;
  const values = frames.flatMap((f) => series.map((k) => f[k])).filter(Number.isFinite);
  const top = Math.max(1e-9, ...values);
  const svg = $("plot");
  svg.textContent = "";
  for (const key of series) {
    const points = frames.map((f, i) => {
      const x = frames.length > 1 ? (600 * i) / (frames.length - 1) : 300;
      const y = 160 - (150 * (Number.isFinite(f[key]) ? f[key] : 0)) / top;
      return x.toFixed(1) + "," + y.toFixed(1);
    });
    const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", key.replace("_ms", ""));
    svg.append(line);
  }
}

// Dragging sideways turns the orbit's azimuth, up and down its polar angle, a step of the
// database's angles per `pixelsPerStep` of mouse travel.
function followDrags() {
  const img = $("orbit-image");
  const pixelsPerStep = 20;
  let from = null;
  img.addEventListener("mousedown", (e) => {
    from = { x: e.clientX, y: e.clientY, theta: state.theta, phi: state.phi };
    e.preventDefault();
  });
  window.addEventListener("mousemove", (e) => {
    if (!from) return;
    state.phi = from.phi + Math.round((e.clientX - from.x) / pixelsPerStep);
    state.theta = from.theta + Math.round((e.clientY - from.y) / pixelsPerStep);
    show();
  });
  window.addEventListener("mouseup", () => {
    from = null;
  });
}

function play() {
  if (state.timer) {
    clearInterval(state.timer);
    state.timer = null;
    $("play").textContent = "Play";
    return;
  }
  $("play").textContent = "Pause";
  state.timer = setInterval(() => {
    state.frame = (state.frame + 1) % state.run.frames.length;
    show();
  }, 250);
}

async function start() {
  const response = await fetch("run.json", { cache: "no-store" });
  state.run = await response.json();
  const run = state.run;
  document.title = "granray-view: " + run.name;
  $("run-name").textContent = run.name;
  $("slider").max = Math.max(0, run.frames.length - 1);
  $("orbit").hidden = run.kind !== "cinema";
  $("views").hidden = run.kind === "cinema";
  $("slider").addEventListener("input", () => {
    state.frame = Number($("slider").value);
    show();
  });
  $("play").addEventListener("click", play);
  if (run.kind === "cinema") followDrags();
  plotTimings(run.frames);
  document.body.dataset.ready = "true";
  show();
}

start();
