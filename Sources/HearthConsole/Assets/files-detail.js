// The picked file's details: its metadata as the server has it (size, type, dates, generation,
// checksums, the download URL its token gives, as getDownloadURL hands out), a preview of an
// image, and its content type and custom metadata to change (a PATCH: custom keys taken out are
// sent as null, which removes them); Download and Delete.
import { $, clearAlert, element, onSubmitKey, showAlert } from "./api.js";
import { blobAddress, formatSize, metadata, objectAddress, updateMetadata } from "./storage-api.js";

/// Images larger than this are not previewed (their bytes would be fetched whole).
const previewLimit = 5_000_000;
const state = { bucket: "", name: null, object: null, preview: null, actions: null };

/// Shows the file `name` of `bucket`; `actions` are `{onDelete(name), onDownload(name)}`.
export async function showDetail(bucket, name, actions) {
  Object.assign(state, { bucket, name, actions });
  clearAlert("files-detail-error");
  $("files-detail-status").textContent = "";
  $("files-detail").hidden = false;
  $("files-placeholder").hidden = true;
  $("files-title").textContent = name;
  try { render(await metadata(bucket, name)); } catch (error) { showAlert("files-detail-error", error); }
}

/// Hides the details (of `name` only, when given: the file was deleted).
export function closeDetail(name) {
  if (name !== undefined && name !== state.name) return;
  state.name = null;
  $("files-detail").hidden = true;
  $("files-placeholder").hidden = false;
  setPreview(null);
}

function render(object) {
  state.object = object;
  const when = (text) => (text ? new Date(text).toLocaleString() : "—");
  const token = (object.downloadTokens ?? "").split(",").find(Boolean);
  const address = token ? location.origin + objectAddress(state.bucket, object.name, { alt: "media", token }) : null;
  const fields = [
    ["bucket", object.bucket], ["size", `${formatSize(object.size)} (${Number(object.size).toLocaleString()} bytes)`],
    ["type", object.contentType ?? "—"], ["created", when(object.timeCreated)], ["updated", when(object.updated)],
    ["generation", object.generation], ["md5", object.md5Hash ?? "—"],
    ["download URL", address ? element("a", { href: address, target: "_blank", rel: "noreferrer" }, "with its token")
      : "none: the file has no download token"],
  ];
  for (const key of ["cacheControl", "contentDisposition", "contentEncoding", "contentLanguage"]) {
    if (object[key]) fields.push([key, object[key]]);
  }
  $("files-metadata").replaceChildren(...fields.map(([name, value]) =>
    element("tr", {}, element("th", {}, name), element("td", { class: "code", "data-field": name }, value))));
  if (address) {
    $("files-metadata").querySelector('[data-field="download URL"]').append(" ",
      element("button", { class: "small", title: "Copy the URL: anyone with it reads the file",
        onclick: () => navigator.clipboard.writeText(address).then(() => { $("files-detail-status").textContent = "URL copied"; }) },
      "Copy"));
  }
  $("files-content-type").value = object.contentType ?? "";
  $("files-custom").value = JSON.stringify(object.metadata ?? {}, null, 2);
  preview(object);
}

async function preview(object) {
  setPreview(null);
  if (!/^image\//.test(object.contentType ?? "") || Number(object.size) > previewLimit) return;
  const name = object.name;
  try {
    const address = await blobAddress(state.bucket, name);
    if (state.name !== name) { URL.revokeObjectURL(address); return; }
    setPreview(address);
  } catch { /* no preview; the details say the rest */ }
}

function setPreview(address) {
  if (state.preview) URL.revokeObjectURL(state.preview);
  state.preview = address;
  $("files-preview").hidden = !address;
  if (address) $("files-preview").src = address; else $("files-preview").removeAttribute("src");
}

async function save() {
  clearAlert("files-detail-error");
  $("files-detail-status").textContent = "";
  let custom;
  try {
    custom = JSON.parse($("files-custom").value.trim() || "{}");
    if (custom === null || typeof custom !== "object" || Array.isArray(custom)
      || Object.values(custom).some((value) => typeof value !== "string")) throw new Error("not an object of strings");
  } catch (error) {
    showAlert("files-detail-error", new Error("Custom metadata: " + error.message),
      'Write a JSON object whose values are strings, e.g. {"owner": "alice", "width": "640"}.');
    return;
  }
  const fields = { metadata: { ...custom } };
  for (const key of Object.keys(state.object?.metadata ?? {})) if (!(key in custom)) fields.metadata[key] = null;
  const type = $("files-content-type").value.trim();
  if (type !== (state.object?.contentType ?? "")) fields.contentType = type || null;
  try {
    render(await updateMetadata(state.bucket, state.name, fields));
    $("files-detail-status").textContent = "saved";
  } catch (error) { showAlert("files-detail-error", error); }
}

$("files-save").addEventListener("click", save);
onSubmitKey($("files-detail"), save);
$("files-download").addEventListener("click", () => state.actions?.onDownload(state.name));
$("files-delete").addEventListener("click", () => state.actions?.onDelete(state.name));
