// Uploads into the folder shown: the files picked (Upload, or U) or dropped on the list's card,
// one after the other, each a row with its progress, what it came to (a failure stays until
// dismissed), and Cancel while it runs. A file whose name is taken asks before replacing it.
import { $, element, remedy } from "./api.js";
import { formatSize, upload } from "./storage-api.js";

let queue = Promise.resolve();
/// How long a finished upload's row stays (a failed one stays until dismissed).
const doneShownFor = 10_000;

/// `target()` is `{bucket, prefix}` now; `exists(name)` whether the folder shown has that file;
/// `uploaded(prefix)` runs after each upload that finished.
export function initUploads({ target, exists, uploaded }) {
  const add = (files) => {
    const { bucket, prefix } = target();
    for (const file of files) {
      const name = prefix + file.name;
      if (exists(name) && !confirm(`Replace ${bucket}/${name} with the file ${file.name}?`)) continue;
      const row = uploadRow(name, file);
      queue = queue.then(() => send(bucket, name, file, row)).then(() => uploaded(prefix), () => {});
    }
  };
  $("files-input").addEventListener("change", (event) => {
    add([...event.target.files]);
    event.target.value = "";
  });
  const card = $("files-drop");
  let depth = 0; // dragenter/dragleave pairs of the card's children
  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  card.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    depth++;
    $("files-dropzone").hidden = false;
  });
  card.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; $("files-dropzone").hidden = true; } });
  card.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  card.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    $("files-dropzone").hidden = true;
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) add(files);
  });
}

function uploadRow(name, file) {
  const progress = element("progress", { max: String(file.size || 1), value: "0" });
  const status = element("span", { class: "muted small" }, "waiting");
  const cancel = element("button", { class: "small" }, "Cancel");
  const row = element("li", { "data-name": name }, element("span", { class: "code" }, name), progress, status, cancel);
  cancel.onclick = () => {
    row.dataset.state = "cancelled";
    row.classList.add("cancelled");
    status.textContent = "cancelled";
    cancel.textContent = "Dismiss";
    cancel.onclick = () => row.remove();
  };
  $("files-uploads").append(row);
  return { row, progress, status, cancel };
}

async function send(bucket, name, file, { row, progress, status, cancel }) {
  if (row.dataset.state === "cancelled") return;
  status.textContent = `0 of ${formatSize(file.size)}`;
  const started = performance.now();
  const task = upload(bucket, name, file, (sent, total) => {
    progress.max = total || 1;
    progress.value = sent;
    status.textContent = `${formatSize(sent)} of ${formatSize(total)}`;
  });
  cancel.onclick = () => task.abort();
  try {
    await task.done;
    const seconds = (performance.now() - started) / 1000;
    progress.value = progress.max;
    row.dataset.state = "done";
    status.textContent = `uploaded, ${formatSize(file.size)} in ${seconds.toFixed(1)} s`;
    cancel.textContent = "Dismiss";
    cancel.onclick = () => row.remove();
    setTimeout(() => row.remove(), doneShownFor);
  } catch (error) {
    row.dataset.state = error.cancelled ? "cancelled" : "failed";
    row.classList.add(error.cancelled ? "cancelled" : "failed");
    const hint = error.status === 413
      ? "The file is larger than the server takes (--max-object-size)."
      : error.status === 400 ? "Rename the file: names take up to 1,024 bytes, no '//', '..', CR or LF." : remedy(error);
    status.textContent = error.message + (hint ? " " + hint : "");
    cancel.textContent = "Dismiss";
    cancel.onclick = () => row.remove();
    throw error;
  }
}
