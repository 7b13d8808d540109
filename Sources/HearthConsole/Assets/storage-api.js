// Requests of the Files view, as the admin: a folder's page of folders and files (Cloud Storage's
// JSON API, /storage/v1/b/{bucket}/o: whole object resources, so each row has its size, type and
// date in one request), and one object through Firebase's client API (/v0/b/{bucket}/o/{name},
// the name one percent-encoded segment): its metadata, a metadata merge (PATCH), a delete, an
// upload (XMLHttpRequest, for its progress) and a download. The bucket picked is kept for the tab.
import { call, failure, session } from "./api.js";

const encode = encodeURIComponent;

/// The server's default bucket when none was picked: `<project-id>.appspot.com` with the
/// default project id; `learnDefaultBucket` asks the server for its own.
export const fallbackBucket = "hearth.appspot.com";

export function pickedBucket() { return sessionStorage.getItem("hearth.bucket") || ""; }
export function keepBucket(bucket) { sessionStorage.setItem("hearth.bucket", bucket); }

/// The address of one object (its metadata; `?alt=media` its bytes).
export function objectAddress(bucket, name, params) {
  const query = params ? "?" + new URLSearchParams(params) : "";
  return `/v0/b/${encode(bucket)}/o/${encode(name)}` + query;
}

/// One page of the folder `prefix` ("" or ending in "/"): `{prefixes, items, nextPageToken}`.
export function listFolder(bucket, prefix, pageToken, maxResults) {
  const query = new URLSearchParams({ prefix, delimiter: "/", maxResults: String(maxResults) });
  if (pageToken) query.set("pageToken", pageToken);
  return call(`/storage/v1/b/${encode(bucket)}/o?` + query);
}

export function metadata(bucket, name) { return call(objectAddress(bucket, name)); }

/// Merges `fields` into the object's metadata (`null` removes a field or a custom key).
export function updateMetadata(bucket, name, fields) {
  return call(objectAddress(bucket, name), { method: "PATCH", body: JSON.stringify(fields) });
}

export function deleteObject(bucket, name) { return call(objectAddress(bucket, name), { method: "DELETE" }); }

/// Uploads `file` as `name` (a media upload: the body is the file, its type the object's);
/// `onProgress(sent, total)` as it goes. Returns `{done, abort}`; `done` is the new metadata.
export function upload(bucket, name, file, onProgress) {
  const request = new XMLHttpRequest();
  const done = new Promise((resolve, reject) => {
    request.open("POST", `/v0/b/${encode(bucket)}/o?` + new URLSearchParams({ name }));
    request.setRequestHeader("Authorization", "Bearer " + session.secret);
    request.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    request.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.total || file.size));
    request.addEventListener("load", () => {
      let json = null;
      try { json = JSON.parse(request.responseText); } catch { /* the status says it */ }
      if (request.status >= 200 && request.status < 300) { resolve(json); return; }
      const message = json?.error?.message || json?.error || `${request.status} ${request.statusText}`;
      reject(failure({ status: request.status }, message));
    });
    request.addEventListener("error", () => reject(new TypeError("The upload did not reach the server.")));
    request.addEventListener("abort", () => reject(Object.assign(new Error("Upload cancelled."), { cancelled: true })));
    request.send(file);
  });
  return { done, abort: () => request.abort() };
}

/// Saves the object as a file in the browser's downloads: through its download token (the
/// browser streams it to disk, as `getDownloadURL` links do), else fetched as the admin.
export async function download(bucket, name, object) {
  const fileName = name.split("/").pop() || "download";
  const token = (object?.downloadTokens ?? "").split(",").find(Boolean);
  const link = document.createElement("a");
  link.download = fileName;
  if (token) {
    link.href = objectAddress(bucket, name, { alt: "media", token });
    link.click();
    return;
  }
  const response = await fetch(objectAddress(bucket, name, { alt: "media" }),
    { headers: { Authorization: "Bearer " + session.secret } });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error.message || message; } catch { /* the status says it */ }
    throw failure(response, message);
  }
  link.href = URL.createObjectURL(await response.blob());
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/// The object's bytes as a `blob:` URL (a preview), fetched as the admin; revoke it when done.
export async function blobAddress(bucket, name) {
  const response = await fetch(objectAddress(bucket, name, { alt: "media" }),
    { headers: { Authorization: "Bearer " + session.secret } });
  if (!response.ok) throw failure(response, `${response.status} ${response.statusText}`);
  return URL.createObjectURL(await response.blob());
}

/// The server's default bucket (`<project-id>.appspot.com`): no endpoint names it, but the storage
/// rules simulator judges a request without a bucket in it, and its trace shows the `{bucket}` it
/// bound. `fallbackBucket` when that fails.
export async function learnDefaultBucket() {
  const rules = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{name=**} {\n"
    + "      allow get: if true;\n    }\n  }\n}\n";
  try {
    const decision = await call("/.settings/storage.rules:simulate",
      { method: "POST", body: JSON.stringify({ method: "get", path: "bucket-probe", rules }) });
    return decision.trace?.[0]?.bindings?.bucket || fallbackBucket;
  } catch { return fallbackBucket; }
}

/// A byte count as people read it: 999 B, 1.5 KB, 12 MB (powers of 1,000, as file managers show).
export function formatSize(bytes) {
  const n = Number(bytes);
  if (!Number.isFinite(n)) return "";
  if (n < 1000) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = n, unit = -1;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
