// The storage rules editor: the document in force (GET /.settings/storage.rules; without a file,
// an example to start from), highlighted (storage-highlight.js), checked by the server as you
// type (POST /.settings/storage.rules:check) with each diagnostic's line:col underlined in the
// text and listed below it (a click puts the cursor there), and saved (PUT, Ctrl+Enter): the
// server puts it in force, or refuses it naming each error's line and column, shown the same way.
import { $, call, callText, clearAlert, element, onSubmitKey, showAlert } from "./api.js";
import { highlightStorageRules, offsetOf } from "./storage-highlight.js";

const address = "/.settings/storage.rules";
const example = `rules_version = '2';

// Each user's own folder: images up to 5 MB, readable by every signed-in user.
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read: if request.auth != null;
      allow write: if request.auth != null && request.auth.uid == uid
        && request.resource.size <= 5 * 1024 * 1024
        && request.resource.contentType.matches('image/.*');
    }
  }
}
`;
const state = { inForce: null, diagnostics: [], timer: null, generation: 0 };

export async function showStorageRules() {
  clearAlert("storage-rules-error");
  try {
    state.inForce = await callText(address);
  } catch (error) {
    if (error.status !== 404) throw error;
    state.inForce = null;
  }
  $("storage-rules-none").hidden = state.inForce !== null;
  $("storage-rules-text").value = state.inForce ?? example;
  state.diagnostics = [];
  render();
  await check();
}

/// The draft in the editor (the simulator can judge with it).
export function draft() { return $("storage-rules-text").value; }

function render() {
  const textarea = $("storage-rules-text"), pre = $("storage-rules-highlight");
  pre.innerHTML = highlightStorageRules(textarea.value, state.diagnostics) + "\n";
  pre.scrollTop = textarea.scrollTop;
  pre.scrollLeft = textarea.scrollLeft;
}

async function check() {
  const mine = ++state.generation;
  const text = draft();
  const answer = await call(address + ":check", { method: "POST", body: text });
  if (mine !== state.generation) return;
  showDiagnostics(answer.diagnostics);
  const count = answer.diagnostics.length;
  const [label, kind] = answer.ok
    ? (text === state.inForce ? ["in force", "good"] : ["valid draft", "warn"])
    : [`${count} error${count === 1 ? "" : "s"}: fix ${count === 1 ? "it" : "them"} to save`, "bad"];
  $("storage-rules-status").textContent = label;
  $("storage-rules-status").className = "status " + kind;
}

/// Lists `diagnostics` ({line, column, message}) and marks them in the text.
function showDiagnostics(diagnostics) {
  state.diagnostics = diagnostics;
  $("storage-rules-diagnostics").replaceChildren(...diagnostics.map((d) =>
    element("li", { class: "error", title: "Put the cursor there", onclick: () => goTo(d.line, d.column) },
      `${d.line}:${d.column}: ${d.message}`)));
  render();
}

function goTo(line, column) {
  const textarea = $("storage-rules-text");
  const at = offsetOf(textarea.value, line, column);
  textarea.focus();
  textarea.setSelectionRange(at, at);
  const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 16;
  textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
  render();
}

/// The diagnostics in a refusal's message (`Invalid storage rules:\n<file>:<line>:<col>: message`).
export function refusalDiagnostics(message) {
  return [...message.matchAll(/^[^\n:]*:(\d+):(\d+): (.*)$/gm)].map((m) =>
    ({ line: Number(m[1]), column: Number(m[2]), message: m[3] }));
}

async function save() {
  clearAlert("storage-rules-error");
  const text = draft();
  try {
    await call(address, { method: "PUT", body: text });
    state.inForce = text;
    $("storage-rules-none").hidden = true;
    await check();
  } catch (error) {
    const found = refusalDiagnostics(error.message);
    if (found.length) showDiagnostics(found);
    showAlert("storage-rules-error", new Error("Not saved: " + error.message),
      found.length ? "The rules in force are unchanged. Fix the places underlined (a click on an error above puts the cursor there), then save again." : undefined);
  }
}

$("storage-rules-text").addEventListener("input", () => {
  render();
  clearTimeout(state.timer);
  state.timer = setTimeout(() => check().then(() => clearAlert("storage-rules-error"),
    (error) => showAlert("storage-rules-error", error)), 250);
});
$("storage-rules-text").addEventListener("scroll", () => {
  $("storage-rules-highlight").scrollTop = $("storage-rules-text").scrollTop;
  $("storage-rules-highlight").scrollLeft = $("storage-rules-text").scrollLeft;
});
$("storage-rules-save").addEventListener("click", save);
onSubmitKey($("storage-rules-text"), save);
