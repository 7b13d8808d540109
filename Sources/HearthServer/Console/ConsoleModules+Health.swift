extension ConsoleModules {
    /// `/console/health.js`: The health view: GET /metrics every two seconds as numbers and small charts.
    static let health = #"""
        // The health view: the server's own figures from GET /metrics every two seconds, as numbers
        // and small charts of the last two minutes.
        import { $, callText, element } from "./api.js";

        const history = new Map();
        let timer = null;
        let previous = null;

        export function showHealth() {
          stopHealth();
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

        /// The 99th percentile (seconds) of the requests counted between two scrapes, from the buckets.
        function p99(now, before) {
          const buckets = new Map();
          for (const s of now.get("hearth_http_request_duration_seconds_bucket") ?? []) {
            buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) + s.value);
          }
          for (const s of before?.get("hearth_http_request_duration_seconds_bucket") ?? []) {
            buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) - s.value);
          }
          const sorted = [...buckets].map(([le, n]) => [Number(le), n]).sort((a, b) => a[0] - b[0]);
          const total = sorted.length ? sorted[sorted.length - 1][1] : 0;
          if (!total) return null;
          return sorted.find(([, n]) => n >= total * 0.99)?.[0] ?? null;
        }

        async function sample() {
          let samples;
          try { samples = parse(await callText("/metrics")); $("health-error").textContent = ""; }
          catch (error) { $("health-error").textContent = error.message; return; }
          const at = Date.now();
          const seconds = previous ? (at - previous.at) / 1000 : null;
          const rate = (name) => (seconds ? (sum(samples, name) - sum(previous.samples, name)) / seconds : null);
          const figures = {
            "connections": sum(samples, "hearth_open_connections"),
            "realtime sessions": sum(samples, "hearth_realtime_sessions"),
            "writes/s": rate("hearth_writes_total"),
            "deliveries/s": rate("hearth_deliveries_total"),
            "requests/s": rate("hearth_http_requests_total"),
            "p99 request (ms)": (() => { const p = p99(samples, previous?.samples); return p === null ? null : p * 1000; })(),
            "rules denials": sum(samples, "hearth_rules_denials_total"),
            "store (MB)": sum(samples, "hearth_store_size_bytes") / 1e6,
            "memory (MB)": sum(samples, "process_resident_memory_bytes") / 1e6,
          };
          previous = { at, samples };
          const grid = $("health-grid");
          grid.textContent = "";
          for (const [name, value] of Object.entries(figures)) {
            const points = history.get(name) ?? [];
            if (value !== null) points.push(value);
            if (points.length > 60) points.shift();
            history.set(name, points);
            grid.append(element("div", { class: "figure", "data-name": name },
              element("div", { class: "muted" }, name),
              element("div", { class: "number" }, value === null ? "…" : String(Math.round(value * 10) / 10)),
              chart(points)));
          }
        }

        function chart(points) {
          const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
          svg.setAttribute("viewBox", "0 0 120 30");
          svg.setAttribute("class", "chart");
          if (points.length > 1) {
            const max = Math.max(...points, 1e-9), min = Math.min(...points, 0);
            const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
            line.setAttribute("points", points.map((p, i) => `${(i / 59) * 120},${28 - ((p - min) / (max - min || 1)) * 26}`).join(" "));
            svg.append(line);
          }
          return svg;
        }
        """#
}
