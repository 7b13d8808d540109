// The data view: the tree (`tree.js`: a virtualised list of shallow pages, followed live), and
// the selected node's value, followed live, to set, push, delete, export, import.
import { $, api, stream, url } from "./api.js";
import { pageSize } from "./tree-pages.js";
import { showTree as startTree, stopTree } from "./tree.js";

// `shown`: the value last shown; `partial`: it is an object's first children, shallow.
const state = { selected: "/", live: null, dirty: false, shown: null, partial: false };

/// Shows the tree from the root, the root in the editor.
export function showTree() {
  startTree(select, showError);
}

// The editor: the selected node's value (an object's first children, shallow), kept live.
async function select(path, isObject) {
  state.selected = path;
  state.dirty = false;
  $("editor-path").textContent = path;
  $("editor-error").textContent = "";
  follow(path, isObject);
}

// An object is followed through the admin's shallow stream of its first children (each a
// leaf's value, or `true` for a child with children of its own): no subtree is downloaded,
// however large. A leaf is followed as it is.
function follow(path, isObject) {
  state.live?.abort();
  let value = null;
  state.shown = null;
  state.partial = isObject;
  $("live").textContent = "connecting…";
  const params = isObject ? { shallow: "true", limitToFirst: String(pageSize) } : {};
  state.live = stream(url(path, params), (event, change) => {
    value = apply(value, change.path, change.data, event === "patch");
    state.shown = value;
    if (!state.dirty) $("value").value = JSON.stringify(value, null, 2);
    $("value").classList.remove("flash");
    void $("value").offsetWidth;
    $("value").classList.add("flash");
  }, (status) => {
    $("live").textContent = status === "live" && isObject
      ? `live: its first ${pageSize} children (true: a child with children of its own); Set value writes the children you change`
      : status;
  });
}

function apply(base, path, data, merge) {
  const keys = path.split("/").filter(Boolean);
  if (keys.length === 0) {
    if (!merge) return data;
    const merged = base && typeof base === "object" ? { ...base } : {};
    for (const [key, child] of Object.entries(data)) {
      if (child === null) delete merged[key]; else merged[key] = child;
    }
    return merged;
  }
  const root = base && typeof base === "object" ? { ...base } : {};
  let node = root;
  for (const key of keys.slice(0, -1)) {
    node[key] = node[key] && typeof node[key] === "object" ? { ...node[key] } : {};
    node = node[key];
  }
  const last = keys[keys.length - 1];
  node[last] = merge ? { ...(node[last] ?? {}), ...data } : data;
  if (node[last] === null) delete node[last];
  return root;
}

function showError(error) { $("editor-error").textContent = error.message; }

function editedValue() {
  try { return JSON.stringify(JSON.parse($("value").value)); }
  catch (error) { throw new Error("Not valid JSON: " + error.message); }
}

async function run(action) {
  $("editor-error").textContent = "";
  try { await action(); } catch (error) { showError(error); }
}

$("value").addEventListener("input", () => { state.dirty = true; });
// A leaf's new value replaces it. An object's editor shows its first children shallow: only
// the children whose text changed are written (one PATCH; a child taken out is deleted),
// so the children not shown and the subtrees behind `true` stay as they are. Replacing
// the whole object with a value that is not an object asks first.
$("save").addEventListener("click", () => run(async () => {
  const text = editedValue();
  const edited = JSON.parse(text);
  if (state.partial && edited !== null && typeof edited === "object") {
    const shown = state.shown && typeof state.shown === "object" ? state.shown : {};
    const changes = {};
    for (const [key, child] of Object.entries(edited)) {
      const before = Object.hasOwn(shown, key) ? shown[key] : undefined;
      if (JSON.stringify(child) !== JSON.stringify(before)) changes[key] = child;
    }
    for (const key of Object.keys(shown)) if (!Object.hasOwn(edited, key)) changes[key] = null;
    if (Object.keys(changes).length > 0) await api(state.selected, { method: "PATCH", body: JSON.stringify(changes) });
  } else {
    if (state.partial && !confirm(`Replace ${state.selected} and everything below it with this value?`)) return;
    await api(state.selected, { method: "PUT", body: text });
  }
  // The live value again (a change may have arrived while the edit was being saved).
  state.dirty = false;
  $("value").value = JSON.stringify(state.shown, null, 2);
}));
$("push").addEventListener("click", () => run(async () => {
  const answer = await api(state.selected, { method: "POST", body: editedValue() });
  $("live").textContent = "pushed " + answer.name;
}));
$("remove").addEventListener("click", () => run(async () => {
  if (!confirm(`Delete ${state.selected} and everything below it?`)) return;
  await api(state.selected, { method: "DELETE" });
}));
$("export").addEventListener("click", () => run(async () => {
  const value = await api(state.selected, { params: { format: "export" } });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: "application/json" }));
  link.download = (state.selected === "/" ? "root" : state.selected.split("/").pop()) + ".json";
  link.click();
  URL.revokeObjectURL(link.href);
}));
$("import").addEventListener("change", (event) => run(async () => {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  const text = await file.text();
  JSON.parse(text);
  if (!confirm(`Replace ${state.selected} with ${file.name}?`)) return;
  await api(state.selected, { method: "PUT", body: text });
}));

/// Stops following the selected node and the tree's pages (signing out).
export function stopData() {
  state.live?.abort();
  stopTree();
}
