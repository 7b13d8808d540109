// The storage rules simulator: a method, an object's path in the bucket picked, who asks (a uid,
// an auth JSON, or signed out) and, for a write, the new file's size and content type; the
// object as stored, when there is one, is the request's `resource`. The server's decision
// (POST /.settings/storage.rules:simulate, against the rules in force or the draft in the
// editor), the deciding `allow`, and every `allow` that ran with its match's wildcards and
// what its condition came to; under each (▸) the value of every part of its condition as a
// tree. Ctrl+Enter in the form simulates.
import { $, call, clearAlert, element, onSubmitKey, showAlert } from "./api.js";
import { evaluationRow } from "./evaluation-tree.js";
import { draft } from "./storage-rules.js";
import { metadata } from "./storage-api.js";

const writes = new Set(["create", "update"]);

async function simulate() {
  clearAlert("storage-sim-error");
  const method = $("storage-sim-method").value;
  const path = $("storage-sim-path").value.trim().replace(/^\/+/, "");
  const bucket = $("files-bucket").value.trim();
  const request = { method, path, bucket };
  try {
    const auth = $("storage-sim-auth").value.trim();
    request.auth = auth ? (auth.startsWith("{") ? JSON.parse(auth) : { uid: auth }) : null;
  } catch (error) {
    showAlert("storage-sim-error", new Error("Auth is not valid JSON: " + error.message),
      'Auth is a uid (alice) or a JSON object ({"uid": "alice", "token": {"admin": true}}); empty: signed out.');
    return;
  }
  if (!path) {
    showAlert("storage-sim-error", new Error("Type the object's path."), "E.g. users/alice/avatar.png (no bucket, no leading slash).");
    return;
  }
  if (writes.has(method)) {
    const size = Number($("storage-sim-size").value || 0);
    request.newResource = { name: path, size, contentType: $("storage-sim-type").value.trim() || null };
  }
  const stored = method === "create" || method === "list" ? null : await storedObject(bucket, path);
  if (stored) request.resource = stored;
  if ($("storage-sim-draft").checked) request.rules = draft();
  try {
    showDecision(await call("/.settings/storage.rules:simulate", { method: "POST", body: JSON.stringify(request) }));
    $("storage-sim-resource").textContent = method === "create" || method === "list" ? ""
      : stored ? `resource: the stored object (${stored.size} bytes, ${stored.contentType ?? "no type"})`
        : "resource: null (no such object in this bucket)";
  } catch (error) {
    for (const id of ["storage-sim-decision", "storage-sim-resource", "storage-sim-trace"]) $(id).replaceChildren();
    showAlert("storage-sim-error", error, /no storage rules file/i.test(error.message)
      ? "Tick “with the draft on the left” to try the draft, or save rules first." : undefined);
  }
}

/// The object at `path` as the rules see `resource`, or null when there is none.
async function storedObject(bucket, path) {
  try {
    const object = await metadata(bucket, path);
    const ms = (text) => (text ? Date.parse(text) : null);
    return {
      name: object.name, size: Number(object.size), contentType: object.contentType ?? null,
      metadata: object.metadata ?? {}, md5Hash: object.md5Hash ?? "",
      generation: Number(object.generation) || 1, timeCreated: ms(object.timeCreated), updated: ms(object.updated),
    };
  } catch { return null; }
}

function showDecision(decision) {
  const decided = decision.decidedBy;
  $("storage-sim-decision").textContent = decision.allowed
    ? `allowed by ${decided.rule} at line ${decided.line}, column ${decided.column} (match ${decided.match})`
    : "denied: no allow granted it";
  $("storage-sim-decision").className = decision.allowed ? "allowed" : "denied";
  $("storage-sim-empty").hidden = true;
  if (decision.evaluationTruncated) {
    $("storage-sim-decision").append(element("span", { class: "muted" }, " (values of some conditions left out: a simulation records at most 1,000)"));
  }
  // Opened at first: the deciding condition's values, or every one's when none decided (a few).
  const openAll = !decided && decision.trace.length <= 5;
  const rows = decision.trace.flatMap((entry) => {
    const deciding = Boolean(decided) && entry.line === decided.line && entry.column === decided.column;
    const bindings = Object.entries(entry.bindings ?? {}).map(([name, value]) => `${name} = ${value}`).join(", ");
    const { values, toggle } = evaluationRow(entry, deciding, deciding || openAll);
    const row = element("tr", { class: deciding ? "deciding" : "" },
      element("td", { class: "code" }, toggle, " ", entry.rule),
      element("td", { class: "code" }, entry.match, bindings ? element("div", { class: "muted small" }, bindings) : ""),
      element("td", {}, `${entry.line}:${entry.column}`),
      element("td", { class: "code" }, entry.expression || "(no condition)"),
      element("td", { class: entry.error ? "value-error" : entry.outcome ? "value-true" : "value-false" },
        entry.error ? "error: " + entry.error : entry.value));
    return values ? [row, values] : [row];
  });
  if (rows.length === 0) {
    rows.push(element("tr", {}, element("td", { colspan: "5", class: "muted" },
      "No allow applies to this method at this path: no match covers it, so it is denied.")));
  }
  $("storage-sim-trace").replaceChildren(...rows);
}

function showWriteFields() {
  $("storage-sim-write").hidden = !writes.has($("storage-sim-method").value);
}

$("storage-sim-method").addEventListener("change", showWriteFields);
$("storage-sim-run").addEventListener("click", simulate);
onSubmitKey($("storage-sim-form"), simulate);
showWriteFields();
