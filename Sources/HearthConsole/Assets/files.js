// The Files view (loaded when first shown): a bucket (typed, or the server's default one), its
// folders as a breadcrumb, a folder's subfolders and files a page at a time (size, type, updated;
// "Load more" follows nextPageToken), the picked file's details (files-detail.js), uploads by the
// file picker or drag and drop (files-upload.js), and the storage rules with their simulator
// (storage-rules.js, storage-simulator.js) under "Storage rules". In the list: ↑ ↓ Home End move,
// Enter opens a folder or a file, Backspace goes up a folder, Delete deletes a file (asking first).
import { $, clearAlert, element, remedy, showAlert } from "./api.js";
import { closeDetail, showDetail } from "./files-detail.js";
import { initUploads } from "./files-upload.js";
import { deleteObject, download, formatSize, keepBucket, learnDefaultBucket, listFolder, metadata, pickedBucket } from "./storage-api.js";
import { showStorageRules } from "./storage-rules.js";
import "./storage-simulator.js";

/// Files a page; the server answers at most 1,000.
const pageSize = 100;
const state = { bucket: "", prefix: "", next: null, focused: 0, generation: 0, mode: "browse", buckets: new Set() };

export async function showFiles() {
  if (!state.bucket) {
    state.bucket = pickedBucket() || (await learnDefaultBucket());
    $("files-bucket").value = state.bucket;
  }
  await showMode(state.mode);
}

/// The bucket picked (the Files view's, also the simulator's default).
export function bucket() { return state.bucket; }

async function showMode(mode) {
  state.mode = mode;
  for (const button of $("files-mode").querySelectorAll("button")) {
    button.setAttribute("aria-checked", String(button.dataset.mode === mode));
  }
  $("files-browse").hidden = mode !== "browse";
  $("files-rules").hidden = mode !== "rules";
  clearAlert("files-error");
  if (mode === "rules") await showStorageRules();
  else await open(state.prefix);
}

/// Keeps `name` for the tab and offers it again in the field's list (once it was listed).
function remember(name) {
  keepBucket(name);
  state.buckets.add(name);
  $("files-buckets").replaceChildren(...[...state.buckets].sort().map((b) => element("option", { value: b })));
}

/// Shows the folder `prefix` ("" is the bucket's top, else it ends with "/") from its first page.
export async function open(prefix) {
  state.prefix = prefix;
  state.next = null;
  state.focused = 0;
  breadcrumb();
  $("files-drop-target").textContent = state.bucket + "/" + prefix;
  await more(true);
}

async function more(fresh = false) {
  const mine = fresh ? ++state.generation : state.generation;
  $("files-status").textContent = "loading…";
  clearAlert("files-error");
  let page;
  try {
    page = await listFolder(state.bucket, state.prefix, state.next, pageSize);
  } catch (error) {
    if (mine !== state.generation) return;
    $("files-status").textContent = "";
    if (fresh) $("files-rows").replaceChildren();
    showAlert("files-error", new Error(`The folder did not load: ${error.message}`), listingRemedy(error));
    return;
  }
  if (mine !== state.generation) return;
  remember(state.bucket);
  const rows = $("files-rows");
  if (fresh) rows.replaceChildren();
  for (const prefix of page.prefixes ?? []) rows.append(folderRow(prefix));
  for (const item of page.items ?? []) rows.append(fileRow(item));
  state.next = page.nextPageToken ?? null;
  $("files-more").hidden = !state.next;
  const folders = rows.querySelectorAll("tr.folder").length, files = rows.querySelectorAll("tr.file").length;
  const plural = (n, word) => `${n}${state.next ? "+" : ""} ${word}${n === 1 ? "" : "s"}`;
  $("files-status").textContent = `${plural(folders, "folder")}, ${plural(files, "file")}`;
  emptyState(folders + files === 0);
  focus(Math.min(state.focused, rows.children.length - 1), false);
}

function listingRemedy(error) {
  if (error.status === 400) return "Type the bucket as the app's config names it: <project-id>.appspot.com (this server's: hearth.appspot.com unless started with --project-id).";
  return remedy(error);
}

function emptyState(empty) {
  const box = $("files-empty");
  box.hidden = !empty;
  if (!empty) return;
  if (state.prefix === "") {
    box.replaceChildren(element("strong", {}, `No files in ${state.bucket} yet.`),
      element("p", {}, "Press Upload (U) or drop files on this card. Apps upload with the Firebase Storage SDK after ",
        element("code", {}, `connectStorageEmulator(storage, "${location.hostname}", ${location.port || 80})`),
        ". Another project's files are in its own bucket: type its name above."));
  } else {
    box.replaceChildren(element("strong", {}, `Nothing in ${state.prefix} yet.`),
      element("p", {}, "A folder exists while it holds files: upload or drop files to put them here, or go up with Backspace."));
  }
}

function folderRow(prefix) {
  const name = prefix.slice(state.prefix.length);
  return element("tr", { class: "folder", "data-name": prefix, onclick: () => open(prefix).catch(showError) },
    element("td", { class: "name" }, element("span", { class: "icon", "aria-hidden": "true" }, "▸ "), name),
    element("td", { class: "number muted" }, "—"), element("td", { class: "muted" }, "folder"), element("td", {}, ""),
    element("td", {}, ""));
}

function fileRow(item) {
  const name = item.name.slice(state.prefix.length);
  const updated = item.updated ? new Date(item.updated) : null;
  return element("tr", { class: "file", "data-name": item.name, onclick: () => select(item.name) },
    element("td", { class: "name" }, name),
    element("td", { class: "number", title: `${Number(item.size).toLocaleString()} bytes` }, formatSize(item.size)),
    element("td", { class: "code small" }, item.contentType ?? ""),
    element("td", { title: item.updated ?? "" }, updated ? updated.toLocaleString() : ""),
    element("td", {}, element("div", { class: "actions" },
      element("button", { class: "small", title: "Download the file",
        onclick: (event) => { event.stopPropagation(); saveAs(item.name); } }, "Download"),
      element("button", { class: "small danger", title: "Delete the file (asks first)",
        onclick: (event) => { event.stopPropagation(); remove(item.name); } }, "Delete"))));
}

function breadcrumb() {
  const folders = state.prefix.split("/").filter(Boolean);
  const segment = (label, target, extra = "") => {
    const current = target === state.prefix;
    return element("button", {
      class: extra, title: current ? (target || "the bucket's top") : "Open " + (target || "the bucket's top"),
      "data-prefix": target, ...(current ? { "aria-current": "page" } : {}),
      onclick: () => { if (!current) open(target).catch(showError); },
    }, label);
  };
  const items = [segment(state.bucket, "", "database")];
  folders.forEach((folder, index) => {
    items.push(element("span", { class: "separator", "aria-hidden": "true" }, "/"));
    items.push(segment(folder, folders.slice(0, index + 1).join("/") + "/"));
  });
  $("files-breadcrumb").replaceChildren(...items);
}

function showError(error) { showAlert("files-error", error); }

async function select(name) {
  const rows = [...$("files-rows").children];
  for (const row of rows) row.classList.toggle("selected", row.dataset.name === name);
  const index = rows.findIndex((row) => row.dataset.name === name);
  if (index >= 0) focus(index, false);
  await showDetail(state.bucket, name, { onDelete: remove, onDownload: saveAs });
}

async function saveAs(name) {
  clearAlert("files-error");
  try { await download(state.bucket, name, await metadata(state.bucket, name)); } catch (error) { showError(error); }
}

/// Deletes the file `name` after asking; the folder is listed again.
async function remove(name) {
  if (!confirm(`Delete ${state.bucket}/${name}? It cannot be undone: download it first to keep a copy.`)) return;
  clearAlert("files-error");
  try {
    await deleteObject(state.bucket, name);
    closeDetail(name);
    await more(true);
  } catch (error) { showError(error); }
}

function focus(index, scroll = true) {
  const rows = $("files-rows").children;
  if (rows.length === 0) return;
  state.focused = Math.max(0, Math.min(index, rows.length - 1));
  for (const [i, row] of [...rows].entries()) row.classList.toggle("focused", i === state.focused);
  if (scroll) rows[state.focused].scrollIntoView({ block: "nearest" });
}

function parent() {
  if (!state.prefix) return;
  const folders = state.prefix.split("/").filter(Boolean);
  open(folders.length > 1 ? folders.slice(0, -1).join("/") + "/" : "").catch(showError);
}

$("files-rows").addEventListener("keydown", (event) => {
  const rows = $("files-rows").children;
  const row = rows[state.focused];
  switch (event.key) {
    case "ArrowDown": focus(state.focused + 1); break;
    case "ArrowUp": focus(state.focused - 1); break;
    case "Home": focus(0); break;
    case "End": focus(rows.length - 1); break;
    case "Enter": case " ": row?.click(); break;
    case "Backspace": parent(); break;
    case "Delete": if (row?.classList.contains("file")) remove(row.dataset.name); break;
    default: return;
  }
  event.preventDefault();
});
$("files-more").addEventListener("click", () => more().catch(showError));
$("files-refresh").addEventListener("click", () => open(state.prefix).catch(showError));
$("files-bucket").addEventListener("change", () => {
  const name = $("files-bucket").value.trim();
  if (!name || name === state.bucket) { $("files-bucket").value = state.bucket; return; }
  state.bucket = name;
  closeDetail();
  state.prefix = "";
  if (state.mode === "browse") open("").catch(showError);
});
$("files-bucket").addEventListener("keydown", (event) => { if (event.key === "Enter") $("files-bucket").blur(); });
$("files-mode").addEventListener("click", (event) => {
  const mode = event.target.closest("button")?.dataset.mode;
  if (mode && mode !== state.mode) showMode(mode).catch(showError);
});
$("files-folder").addEventListener("click", () => {
  const typed = prompt(`Name of the new folder in ${state.bucket}/${state.prefix} (no '/'). It is made by its first file.`, "");
  if (typed === null) return;
  const name = typed.trim();
  if (!name || name.includes("/") || name === "." || name === "..") {
    showAlert("files-error", new Error(`'${typed}' is not a folder name.`), "Type one name without '/', e.g. photos.");
    return;
  }
  open(state.prefix + name + "/").catch(showError);
});
initUploads({
  target: () => ({ bucket: state.bucket, prefix: state.prefix }),
  exists: (name) => [...$("files-rows").children].some((row) => row.dataset.name === name),
  uploaded: (prefix) => { if (prefix === state.prefix && state.mode === "browse") more(true); },
});
