// A figure's chart: its samples over a time window as SVG, with a y axis from 0 (or the lowest
// sample, when below) to a round maximum, labelled with the unit, gridlines, a time axis ("−5 min",
// "−2.5 min", "now") and the last sample marked. A gap in the samples (none, or none for longer than
// `gap`: the view was closed) is a gap in the line.
const svgNamespace = "http://www.w3.org/2000/svg";
const size = { width: 260, height: 100 };
const plot = { left: 38, right: 8, top: 8, bottom: 18 };
const gap = 5000; // ms

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/// The smallest of 1, 2, 2.5, 5 times a power of ten at or above `value`.
export function roundUp(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((step) => step * power).find((limit) => value <= limit * (1 + 1e-9));
}

/// A short number: 1234 → "1.2k", 0.25 → "0.25", 12.5 → "12.5".
export function short(value) {
  const size = Math.abs(value);
  if (size >= 1e9) return trim(value / 1e9) + "G";
  if (size >= 1e6) return trim(value / 1e6) + "M";
  if (size >= 1e4) return trim(value / 1e3) + "k";
  return trim(value);
}

function trim(value) { return String(Math.round(value * 100) / 100); }

/// The time before now, for the time axis: "−30 s", "−2.5 min", "now".
function ago(seconds) {
  if (seconds === 0) return "now";
  return seconds < 120 ? `−${seconds} s` : `−${trim(seconds / 60)} min`;
}

/// `points` ([{t: ms, v: number or null}]) over the `seconds` before `now`, in `unit`.
export function chart(points, { seconds, now, unit, label }) {
  const start = now - seconds * 1000;
  const shown = points.filter((p) => p.t >= start);
  const values = shown.map((p) => p.v).filter((v) => v !== null && Number.isFinite(v));
  const low = Math.min(0, ...values);
  const high = roundUp(Math.max(...values, 0) - low) + low;
  const width = size.width - plot.left - plot.right, height = size.height - plot.top - plot.bottom;
  const x = (t) => plot.left + ((t - start) / (seconds * 1000)) * width;
  const y = (v) => plot.top + (1 - (v - low) / (high - low || 1)) * height;
  const root = svg("svg", { viewBox: `0 0 ${size.width} ${size.height}`, class: "chart", role: "img",
    "aria-label": `${label} over the last ${ago(seconds).slice(1)}, from ${short(low)} to ${short(high)}${unit ? " " + unit : ""}` });
  for (const [index, v] of [low, (low + high) / 2, high].entries()) {
    root.append(svg("line", { class: index === 0 ? "axis" : "grid", x1: plot.left, x2: size.width - plot.right, y1: y(v), y2: y(v) }));
    const text = short(v) + (index === 2 && unit ? " " + unit : "");
    root.append(svg("text", { x: plot.left - 4, y: y(v) + 3, "text-anchor": "end", class: "tick-y" }, text));
  }
  root.append(svg("line", { class: "axis", x1: plot.left, x2: plot.left, y1: plot.top, y2: plot.top + height }));
  for (const fraction of [0, 0.5, 1]) {
    const at = plot.left + fraction * width;
    root.append(svg("line", { class: "axis", x1: at, x2: at, y1: plot.top + height, y2: plot.top + height + 3 }));
    root.append(svg("text", { x: at, y: size.height - 3, "text-anchor": fraction === 0 ? "start" : fraction === 1 ? "end" : "middle",
      class: "tick-x" }, ago(Math.round((1 - fraction) * seconds))));
  }
  // The line in runs between gaps, the area under it.
  const runs = [];
  let run = [];
  for (const p of shown) {
    const missing = p.v === null || !Number.isFinite(p.v);
    if (run.length && (missing || p.t - run.at(-1).t > gap)) { runs.push(run); run = []; }
    if (!missing) run.push(p);
  }
  if (run.length) runs.push(run);
  if (values.length < 2) {
    root.append(svg("text", { x: plot.left + width / 2, y: plot.top + height / 2 + 3, "text-anchor": "middle", class: "nodata" },
      "waiting for samples (every 2 s)"));
  }
  for (const points of runs) {
    const line = points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" L");
    if (points.length > 1) {
      root.append(svg("path", { class: "area",
        d: `M${x(points[0].t).toFixed(1)},${y(low)} L${line} L${x(points.at(-1).t).toFixed(1)},${y(low)} Z` }));
      root.append(svg("path", { class: "line", d: "M" + line }));
    }
  }
  const last = shown.at(-1);
  if (last && last.v !== null && Number.isFinite(last.v)) root.append(svg("circle", { class: "last", cx: x(last.t), cy: y(last.v), r: 2.5 }));
  return root;
}
