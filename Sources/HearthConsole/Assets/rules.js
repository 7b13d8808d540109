// The rules view: the database's rules document with syntax highlighting, checked by the server
// as you type, published (Ctrl+Enter), its last versions with a diff and a rollback, and the simulator.
import { $, call, callText, clearAlert, element, onSubmitKey, settings, showAlert } from "./api.js";
import "./simulator.js";
import { highlightRules } from "./highlight.js";

let timer = null;
let published = "";

export async function showRules() {
  published = await callText(settings("/.settings/rules.json"));
  $("rules-text").value = published;
  render();
  await check();
  await showHistory();
}

// The highlighted copy under the textarea (highlight.js), redrawn at most once a frame:
// the lines in view and a screen's worth around them (the rest is plain text).
let frame = 0;
function render() {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(() => {
    const pre = $("rules-highlight"), textarea = $("rules-text");
    const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 16;
    const visible = Math.ceil(textarea.clientHeight / lineHeight);
    const first = Math.max(0, Math.floor(textarea.scrollTop / lineHeight) - visible);
    pre.innerHTML = highlightRules(textarea.value, first, visible * 3) + "\n";
    pre.scrollTop = textarea.scrollTop;
    pre.scrollLeft = textarea.scrollLeft;
  });
}

async function check() {
  const answer = await call(settings("/.settings/rules:check"), { method: "POST", body: $("rules-text").value });
  const list = $("rules-diagnostics");
  list.textContent = "";
  for (const d of answer.diagnostics) list.append(element("li", { class: "error" }, `${d.line}:${d.column}: ${d.message}`));
  const [text, kind] = answer.ok ? ($("rules-text").value === published ? ["in force", "good"] : ["valid draft", "warn"])
    : [`${answer.diagnostics.length} error${answer.diagnostics.length === 1 ? "" : "s"}: fix ${answer.diagnostics.length === 1 ? "it" : "them"} to publish`, "bad"];
  $("rules-status").textContent = text;
  $("rules-status").className = "status " + kind;
  $("rules-publish").disabled = !answer.ok;
}

async function showHistory() {
  const { versions } = await call(settings("/.settings/rules/history.json"));
  const list = $("rules-history");
  list.textContent = "";
  for (const version of versions) {
    const when = new Date(version.publishedAt).toLocaleString();
    list.append(element("li", {},
      element("span", { class: "version" }, `v${version.version}`),
      element("span", {}, `${version.origin} · ${when}`),
      element("button", { class: "small", title: "Compare with the editor: - only in this version, + only in the editor",
        onclick: () => { $("rules-diff").textContent = diff(version.text, $("rules-text").value); } }, "Diff"),
      element("button", { class: "small", title: "Put this version back in force (published again as a new version)",
        onclick: () => rollback(version.version).catch((error) => showAlert("rules-error", error)) }, "Roll back")));
  }
  if (versions.length === 0) {
    list.append(element("li", { class: "empty" }, "No version published yet: the rules in force are the ones the server started with."));
  }
}

async function rollback(version) {
  if (!confirm(`Put version ${version} back in force?`)) return;
  await call(settings("/.settings/rules:rollback"), { method: "POST", body: JSON.stringify({ version }) });
  await showRules();
}

/// A line diff (longest common subsequence): `- ` lines only in `a`, `+ ` only in `b`.
export function diff(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  const lengths = Array.from({ length: x.length + 1 }, () => new Array(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lengths[i][j] = x[i] === y[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { out.push("  " + x[i]); i++; j++; }
    else if (j < y.length && (i === x.length || lengths[i][j + 1] >= lengths[i + 1][j])) { out.push("+ " + y[j]); j++; }
    else { out.push("- " + x[i]); i++; }
  }
  return out.join("\n");
}

$("rules-text").addEventListener("input", () => {
  render();
  clearTimeout(timer);
  timer = setTimeout(() => check().then(() => clearAlert("rules-error"), (error) => showAlert("rules-error", error)), 250);
});
$("rules-text").addEventListener("scroll", () => {
  $("rules-highlight").scrollTop = $("rules-text").scrollTop;
  $("rules-highlight").scrollLeft = $("rules-text").scrollLeft;
  render();
});
$("rules-publish").addEventListener("click", async () => {
  clearAlert("rules-error");
  try {
    await callText(settings("/.settings/rules.json"), { method: "PUT", body: $("rules-text").value });
    await showRules();
  } catch (error) { showAlert("rules-error", new Error("Not published: " + error.message)); }
});
onSubmitKey($("rules-text"), () => { if (!$("rules-publish").disabled) $("rules-publish").click(); });
