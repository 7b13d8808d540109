// The health view: the server's own figures from GET /metrics every two seconds, as numbers
// with their unit and charts with axes over a time window (1, 5 or 15 minutes): the whole server
// (connections, requests, p99 request latency, store size, memory), then a column for every
// database it has (GET /.settings/namespaces.json, plus any the metrics name): writes/s,
// deliveries/s, listeners, p99 write and delivery latency, rules denials, store size. The
// database picked comes first; at most `maxColumns` columns. The samples are kept while the
// console is open (the longest window's worth), so a wider window shows what came before.
import { $, call, callText, clearAlert, element, namespace, remedy, showAlert } from "./api.js";
import { chart } from "./chart.js";

const maxColumns = 12;
const interval = 2000;
const windows = [60, 300, 900];
const history = new Map();
let timer = null;
let previous = null;
let listed = { at: 0, names: [] };
let shown = null; // the last figures drawn, drawn again when the window changes
let seconds = Number(sessionStorage.getItem("hearth.window")) || 300;

export function showHealth() {
  stopHealth();
  listed = { at: 0, names: [] };
  markWindow();
  sample();
  timer = setInterval(sample, interval);
}

export function stopHealth() { clearInterval(timer); timer = null; }

/// Prometheus text → {name → [{labels, value}]}.
export function parse(text) {
  const samples = new Map();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!samples.has(match[1])) samples.set(match[1], []);
    samples.get(match[1]).push({ labels, value: Number(match[3]) });
  }
  return samples;
}

const sum = (samples, name, keep = () => true) =>
  (samples.get(name) ?? []).filter((s) => keep(s.labels)).reduce((total, s) => total + s.value, 0);

/// The 99th percentile (milliseconds) of histogram `name` between two scrapes, from its
/// buckets (the samples whose labels `keep` accepts); null when nothing was recorded.
function p99(name, now, before, keep = () => true) {
  const buckets = new Map();
  for (const s of (now.get(name + "_bucket") ?? []).filter((s) => keep(s.labels))) {
    buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) + s.value);
  }
  for (const s of (before?.get(name + "_bucket") ?? []).filter((s) => keep(s.labels))) {
    buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) - s.value);
  }
  const sorted = [...buckets].map(([le, n]) => [Number(le), n]).sort((a, b) => a[0] - b[0]);
  const total = sorted.length ? sorted[sorted.length - 1][1] : 0;
  if (!total) return null;
  const p = sorted.find(([, n]) => n >= total * 0.99)?.[0] ?? null;
  // Past the last bucket (1 s) it is +Inf: shown as "> 1000".
  return p === null || Number.isNaN(p) ? null : p * 1000;
}

/// The databases to show: the listed ones and those the metrics name, the picked one first.
async function databases(samples) {
  if (Date.now() - listed.at > 30000) {
    try { listed = { at: Date.now(), names: (await call("/.settings/namespaces.json")).namespaces ?? [] }; }
    catch { listed.at = Date.now(); }
  }
  const names = new Set(listed.names);
  for (const list of samples.values()) for (const s of list) if (s.labels.namespace) names.add(s.labels.namespace);
  const picked = namespace();
  names.delete(picked);
  return [picked, ...[...names].sort()];
}

// Figures: [key, label, unit, value]; the key (`data-name`) names the series in `history`.
async function sample() {
  let samples;
  try { samples = parse(await callText("/metrics")); clearAlert("health-error"); }
  catch (error) {
    showAlert("health-error", new Error("The metrics did not load: " + error.message), remedy(error));
    $("health-status").textContent = "not updated since " + (previous ? new Date(previous.at).toLocaleTimeString() : "opening");
    return;
  }
  const at = Date.now();
  const elapsed = previous ? (at - previous.at) / 1000 : null;
  const rate = (name, keep = () => true) =>
    elapsed ? (sum(samples, name, keep) - sum(previous.samples, name, keep)) / elapsed : null;
  const server = [
    ["connections", "Open connections", "", sum(samples, "hearth_open_connections")],
    ["realtime sessions", "Realtime sessions", "", sum(samples, "hearth_realtime_sessions")],
    ["requests/s", "HTTP requests", "/s", rate("hearth_http_requests_total")],
    ["p99 request (ms)", "p99 request latency", "ms", p99("hearth_http_request_duration_seconds", samples, previous?.samples)],
    ["store (MB)", "Store on disk", "MB", sum(samples, "hearth_store_size_bytes") / 1e6],
    ["memory (MB)", "Resident memory", "MB", sum(samples, "process_resident_memory_bytes") / 1e6],
  ];
  const names = await databases(samples);
  const columns = names.slice(0, maxColumns).map((ns) => {
    const inNamespace = (labels) => labels.namespace === ns;
    return [ns, [
      [`${ns}: writes/s`, "Writes", "/s", rate("hearth_writes_total", inNamespace)],
      [`${ns}: deliveries/s`, "Deliveries to listeners", "/s", rate("hearth_deliveries_total", inNamespace)],
      [`${ns}: listeners`, "Listeners", "", sum(samples, "hearth_listeners", inNamespace)],
      [`${ns}: p99 write (ms)`, "p99 write latency", "ms",
        p99("hearth_write_duration_seconds", samples, previous?.samples, inNamespace)],
      [`${ns}: p99 delivery (ms)`, "p99 delivery latency", "ms",
        p99("hearth_delivery_duration_seconds", samples, previous?.samples, inNamespace)],
      [`${ns}: rules denials`, "Rules denials (total)", "", sum(samples, "hearth_rules_denials_total", inNamespace)],
      [`${ns}: store (MB)`, "Store on disk", "MB", sum(samples, "hearth_namespace_store_bytes", inNamespace) / 1e6],
    ]];
  });
  previous = { at, samples };
  for (const [key, , , value] of [...server, ...columns.flatMap(([, figures]) => figures)]) record(key, at, value);
  shown = { at, server, columns, more: names.length - maxColumns };
  draw();
}

/// Keeps a sample of series `key` (null: none this time, a gap in its chart).
function record(key, at, value) {
  const points = history.get(key) ?? [];
  points.push({ t: at, v: value === null || Number.isNaN(value) ? null : value });
  const oldest = at - windows.at(-1) * 1000 - interval;
  while (points.length && points[0].t < oldest) points.shift();
  history.set(key, points);
}

function draw() {
  if (!shown) return;
  const { at, server, columns, more } = shown;
  $("health-status").textContent = `every 2 s · updated ${new Date(at).toLocaleTimeString()}`;
  const grid = $("health-grid");
  grid.textContent = "";
  grid.append(element("h2", {}, "Server"), element("div", { class: "health-figures" }, ...server.map((f) => figure(f, at))));
  const row = element("div", { class: "health-columns" });
  for (const [ns, figures] of columns) {
    row.append(element("div", { class: "health-column", "data-namespace": ns },
      element("h3", {}, ns, ns === namespace() ? element("span", { class: "status" }, "picked") : ""),
      ...figures.map((f) => figure(f, at))));
  }
  grid.append(element("h2", {}, "Databases"), row);
  if (more > 0) {
    grid.append(element("p", { class: "muted" }, `${more} more databases not shown: pick one in the sidebar to see it first.`));
  }
}

/// A figure's card: its label, number and unit, and its chart over the window.
function figure([key, label, unit, value], at) {
  const number = value === null || Number.isNaN(value) ? "…" : value === Infinity ? "> 1000" : String(Math.round(value * 10) / 10);
  return element("div", { class: "figure", "data-name": key },
    element("div", { class: "label" }, label),
    element("div", {}, element("span", { class: "number" }, number), unit ? element("span", { class: "unit" }, unit) : ""),
    chart(history.get(key) ?? [], { seconds, now: at, unit, label }));
}

function markWindow() {
  for (const button of $("health-window").querySelectorAll("button")) {
    button.setAttribute("aria-checked", String(Number(button.dataset.seconds) === seconds));
  }
}

for (const button of $("health-window").querySelectorAll("button")) {
  button.addEventListener("click", () => {
    seconds = Number(button.dataset.seconds);
    sessionStorage.setItem("hearth.window", String(seconds));
    markWindow();
    draw();
  });
}
