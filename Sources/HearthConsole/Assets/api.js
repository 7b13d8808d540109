// What every part of the console shares: the admin secret (session storage only, sent only as
// `Authorization: Bearer`), the database picked, REST calls and SSE streams read with fetch.
export const $ = (id) => document.getElementById(id);
export const session = { secret: sessionStorage.getItem("hearth.admin") };

/// The database picked in the sidebar (databases.js).
export function namespace() { return $("namespace").value.trim() || "default"; }

export function url(path, params = {}) {
  const segments = path.split("/").filter(Boolean).map(encodeURIComponent);
  const query = new URLSearchParams({ ns: namespace(), ...params });
  return "/" + segments.join("/") + ".json?" + query;
}

/// A request to the server as the admin; the answer's JSON, or an Error with the server's message.
export async function call(target, { method = "GET", body, accept } = {}) {
  const headers = { Authorization: "Bearer " + session.secret };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (accept) headers.Accept = accept;
  const response = await fetch(target, { method, headers, body });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = text; }
  if (!response.ok) {
    const error = json && json.error;
    throw failure(response, (error && (error.message || error)) || `${response.status} ${response.statusText}`);
  }
  return json;
}

/// A REST call on a data path.
export function api(path, { method = "GET", params = {}, body } = {}) {
  return call(url(path, params), { method, body });
}

/// Follows `target` as Server-Sent Events (`put`/`patch`), calling `onEvent(event, {path, data})`;
/// returns an AbortController.
export function stream(target, onEvent, onStatus) {
  const controller = new AbortController();
  fetch(target, { headers: { Authorization: "Bearer " + session.secret, Accept: "text/event-stream" }, signal: controller.signal })
    .then(async (response) => {
      if (!response.ok) throw failure(response, `${response.status} ${response.statusText}`);
      onStatus("live");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(message)?.[1];
          const data = /^data: (.*)$/m.exec(message)?.[1];
          if (event === "put" || event === "patch") onEvent(event, JSON.parse(data));
        }
      }
      onStatus("ended");
    })
    .catch((error) => { if (error.name !== "AbortError") onStatus("not live: " + error.message); });
  return controller;
}

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

/// A request whose answer is text (a rules document, the metrics).
export async function callText(target, { method = "GET", body } = {}) {
  const response = await fetch(target, { method, headers: { Authorization: "Bearer " + session.secret }, body });
  const text = await response.text();
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = JSON.parse(text).error || message; } catch { /* the status says it */ }
    throw failure(response, message);
  }
  return text;
}

/// `path?ns=…` for the server's settings and tools.
export function settings(path, params = {}) {
  return path + "?" + new URLSearchParams({ ns: namespace(), ...params });
}

/// An Error with the server's message and the answer's status.
export function failure(response, message) {
  const error = new Error(message);
  error.status = response.status;
  return error;
}

/// What the user can do about `error`: a sentence, or "" when the message says it all.
export function remedy(error) {
  if (error.hint) return error.hint;
  if (error.status === undefined && error instanceof TypeError) {
    return "The server did not answer: check that hearth is running and reachable from this browser, then try again.";
  }
  switch (error.status) {
    case 401: return "The admin secret was refused: sign out, then sign in with the secret the server printed at start.";
    case 403: return "The server refused this to the admin: check the admin secret it was started with.";
    case 404: return "Nothing answers at this address: check the database picked and the path.";
    case 413: return "The request is larger than the server accepts: send a smaller value, or import it in parts.";
    case 429: case 503: return "The server is busy: try again in a moment.";
    default: return error.status >= 500 ? "The server failed: its log says why. Try again in a moment." : "";
  }
}

/// Shows `error` in the alert `target` (an element or its id): the message, then what to do.
export function showAlert(target, error, hint = remedy(error)) {
  const box = typeof target === "string" ? $(target) : target;
  box.replaceChildren(error.message ?? String(error));
  if (hint) box.append(element("span", { class: "hint" }, hint));
}

/// Empties the alert `target` (an element or its id).
export function clearAlert(target) {
  (typeof target === "string" ? $(target) : target).replaceChildren();
}

/// Whether a key press is meant for a text field (then the console's shortcuts leave it alone).
export function typing(event) {
  const target = event.target;
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/// Ctrl+Enter (⌘+Enter on a Mac) in `element` or any field inside it runs `action`.
export function onSubmitKey(element, action) {
  element.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      action();
    }
  });
}
