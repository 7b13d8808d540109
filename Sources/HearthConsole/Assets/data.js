// The data view: the tree (`tree.js`: a virtualised list of shallow pages, followed live), the
// breadcrumb of the selected node's path (each segment opens that node), and the selected node's
// value, followed live, to set (Ctrl+Enter), push, delete, export, import.
import { $, api, clearAlert, element, namespace, onSubmitKey, showAlert, stream, url } from "./api.js";
import { pageSize } from "./tree-pages.js";
import { selectPath, showTree as startTree, stopTree } from "./tree.js";

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
  clearAlert("editor-error");
  breadcrumb(path);
  follow(path, isObject);
}

// The path as segments: the database, then each key; all but the last open their node (an
// ancestor of a node always has children).
function breadcrumb(path) {
  const keys = path.split("/").filter(Boolean);
  const segment = (label, target, extra = "") => {
    const current = target === path;
    return element("button", {
      class: extra, title: current ? target : "Open " + target, "data-path": target,
      ...(current ? { "aria-current": "page" } : {}),
      onclick: () => { if (!current) selectPath(target); },
    }, label);
  };
  const items = [segment(namespace(), "/", "database")];
  keys.forEach((key, index) => {
    items.push(element("span", { class: "separator", "aria-hidden": "true" }, "/"));
    items.push(segment(key, "/" + keys.slice(0, index + 1).join("/")));
  });
  $("breadcrumb").replaceChildren(...items);
}

// An object is followed through the admin's shallow stream of its first children (each a
// leaf's value, or `true` for a child with children of its own): no subtree is downloaded,
// however large. A leaf is followed as it is.
function follow(path, isObject) {
  state.live?.abort();
  let value = null;
  state.shown = null;
  state.partial = isObject;
  live("connecting…", "");
  const params = isObject ? { shallow: "true", limitToFirst: String(pageSize) } : {};
  state.live = stream(url(path, params), (event, change) => {
    value = apply(value, change.path, change.data, event === "patch");
    state.shown = value;
    if (!state.dirty) $("value").value = JSON.stringify(value, null, 2);
    $("value").classList.remove("flash");
    void $("value").offsetWidth;
    $("value").classList.add("flash");
  }, (status) => {
    if (status === "live") live(isObject ? `live · first ${pageSize} children` : "live", "live");
    else live(status, status === "ended" ? "warn" : "bad");
    $("value-hint").hidden = !isObject;
  });
}

function live(text, kind) {
  $("live").textContent = text;
  $("live").className = "status " + kind;
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

function showError(error) { showAlert("editor-error", error); }

function editedValue() {
  try { return JSON.stringify(JSON.parse($("value").value)); }
  catch (error) {
    throw Object.assign(new Error("Not valid JSON: " + error.message), {
      hint: 'Fix the value and try again: keys and strings in double quotes, no trailing commas, e.g. {"name": "Ada", "age": 36}.',
    });
  }
}

async function run(action) {
  clearAlert("editor-error");
  try { await action(); } catch (error) { showError(error); }
}

$("value").addEventListener("input", () => { state.dirty = true; });
// A leaf's new value replaces it. An object's editor shows its first children shallow: only
// the children whose text changed are written (one PATCH; a child taken out is deleted),
// so the children not shown and the subtrees behind `true` stay as they are. Replacing
// the whole object with a value that is not an object asks first.
onSubmitKey($("value"), () => $("save").click());
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
  live("pushed " + answer.name, "good");
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
