// The rules simulator: read or write, a path, an auth (none, a uid or JSON) and a value; the
// server's decision, every rule that ran (the deciding one highlighted) and, under each rule
// (▸), the value of every part of its expression as a tree, short-circuited parts greyed.
// Ctrl+Enter in the form simulates.
import { $, call, clearAlert, element, onSubmitKey, settings, showAlert } from "./api.js";
import { evaluationRow } from "./evaluation-tree.js";

async function simulate() {
  clearAlert("sim-error");
  const request = { op: $("sim-op").value, path: $("sim-path").value || "/" };
  try {
    const auth = $("sim-auth").value.trim();
    request.auth = auth ? (auth.startsWith("{") ? JSON.parse(auth) : { uid: auth }) : null;
    if (request.op !== "read") request.value = JSON.parse($("sim-value").value || "null");
  } catch (error) {
    showAlert("sim-error", new Error("Not valid JSON: " + error.message),
      'Auth is a uid (amy) or a JSON object ({"uid": "amy", "token": {"admin": true}}); the value is JSON ("text", 3, {"a": 1}).');
    return;
  }
  if ($("sim-draft").checked) request.rules = $("rules-text").value;
  try {
    const decision = await call(settings("/.settings/rules:simulate"), { method: "POST", body: JSON.stringify(request) });
    showDecision(decision);
  } catch (error) { showAlert("sim-error", error); }
}

function showDecision(decision) {
  const decided = decision.decidedBy;
  $("sim-decision").textContent = (decision.allowed ? "allowed" : "denied") +
    (decided ? ` by ${decided.rule} at ${decided.path} (line ${decided.line}, column ${decided.column})` : decision.allowed ? "" : ": no rule granted access");
  $("sim-decision").className = decision.allowed ? "allowed" : "denied";
  $("sim-empty").hidden = true;
  if (decision.evaluationTruncated) {
    $("sim-decision").append(element("span", { class: "muted" }, " (values of some rules left out: a simulation records at most 1,000)"));
  }
  const rows = $("sim-trace");
  rows.textContent = "";
  // Opened at first: the deciding rule's values, or every rule's when none decided (a few).
  const openAll = !decided && decision.trace.length <= 5;
  for (const entry of decision.trace) {
    const deciding = Boolean(decided) && entry.rule === decided.rule && entry.path === decided.path;
    const { values, toggle } = evaluationRow(entry, deciding, deciding || openAll);
    rows.append(element("tr", { class: deciding ? "deciding" : "" },
      element("td", {}, toggle, " ", entry.rule), element("td", {}, entry.path), element("td", {}, `${entry.line}:${entry.column}`),
      element("td", { class: "code" }, entry.expression),
      element("td", {}, entry.error ? "error: " + entry.error : String(entry.outcome))));
    if (values) rows.append(values);
  }
}

$("sim-run").addEventListener("click", simulate);
onSubmitKey($("sim-form"), simulate);
