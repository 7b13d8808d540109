// The health view: the server's own figures from GET /metrics every two seconds, as numbers
// and small charts of the last two minutes: the whole server (connections, requests, p99
// request latency, store size, memory), then a column for every database it has
// (GET /.settings/namespaces.json, plus any the metrics name): writes/s, deliveries/s,
// listeners, p99 write and delivery latency, rules denials. The database picked above
// comes first; at most `maxColumns` columns.
import { $, call, callText, element, namespace } from "./api.js";

const maxColumns = 12;
const history = new Map();
let timer = null;
let previous = null;
let listed = { at: 0, names: [] };

export function showHealth() {
  stopHealth();
  listed = { at: 0, names: [] };
  sample();
  timer = setInterval(sample, 2000);
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

async function sample() {
  let samples;
  try { samples = parse(await callText("/metrics")); $("health-error").textContent = ""; }
  catch (error) { $("health-error").textContent = error.message; return; }
  const at = Date.now();
  const seconds = previous ? (at - previous.at) / 1000 : null;
  const rate = (name, keep = () => true) =>
    seconds ? (sum(samples, name, keep) - sum(previous.samples, name, keep)) / seconds : null;
  const server = {
    "connections": sum(samples, "hearth_open_connections"),
    "realtime sessions": sum(samples, "hearth_realtime_sessions"),
    "requests/s": rate("hearth_http_requests_total"),
    "p99 request (ms)": p99("hearth_http_request_duration_seconds", samples, previous?.samples),
    "store (MB)": sum(samples, "hearth_store_size_bytes") / 1e6,
    "memory (MB)": sum(samples, "process_resident_memory_bytes") / 1e6,
  };
  const names = await databases(samples);
  const columns = names.slice(0, maxColumns).map((ns) => {
    const inNamespace = (labels) => labels.namespace === ns;
    return [ns, {
      [`${ns}: writes/s`]: rate("hearth_writes_total", inNamespace),
      [`${ns}: deliveries/s`]: rate("hearth_deliveries_total", inNamespace),
      [`${ns}: listeners`]: sum(samples, "hearth_listeners", inNamespace),
      [`${ns}: p99 write (ms)`]: p99("hearth_write_duration_seconds", samples, previous?.samples, inNamespace),
      [`${ns}: p99 delivery (ms)`]: p99("hearth_delivery_duration_seconds", samples, previous?.samples, inNamespace),
      [`${ns}: rules denials`]: sum(samples, "hearth_rules_denials_total", inNamespace),
      [`${ns}: store (MB)`]: sum(samples, "hearth_namespace_store_bytes", inNamespace) / 1e6,
    }];
  });
  previous = { at, samples };
  const grid = $("health-grid");
  grid.textContent = "";
  grid.append(element("h3", {}, "Server"), element("div", { class: "health-figures" }, ...figures(server, (name) => name)));
  const row = element("div", { class: "health-columns" });
  for (const [ns, figuresOf] of columns) {
    row.append(element("div", { class: "health-column", "data-namespace": ns },
      element("h3", {}, ns, ns === namespace() ? element("span", { class: "muted" }, " (picked)") : ""),
      ...figures(figuresOf, (name) => name.slice(ns.length + 2))));
  }
  grid.append(element("h3", {}, "Databases"), row);
  if (names.length > maxColumns) {
    grid.append(element("p", { class: "muted" }, `${names.length - maxColumns} more databases not shown: pick one above to see it first.`));
  }
}

/// A figure card per entry: its number and a chart of its last 60 values.
function figures(values, label) {
  return Object.entries(values).map(([name, value]) => {
    const points = history.get(name) ?? [];
    if (value !== null && Number.isFinite(value)) points.push(value);
    if (points.length > 60) points.shift();
    history.set(name, points);
    return element("div", { class: "figure", "data-name": name },
      element("div", { class: "muted" }, label(name)),
      element("div", { class: "number" },
        value === null || Number.isNaN(value) ? "…" : value === Infinity ? "> 1000" : String(Math.round(value * 10) / 10)),
      chart(points));
  });
}

function chart(points) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 120 30");
  svg.setAttribute("class", "chart");
  svg.setAttribute("preserveAspectRatio", "none");
  if (points.length > 1) {
    const max = Math.max(...points, 1e-9), min = Math.min(...points, 0);
    const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("points", points.map((p, i) => `${(i / 59) * 120},${28 - ((p - min) / (max - min || 1)) * 26}`).join(" "));
    svg.append(line);
  }
  return svg;
}
