// The users view: every account a page at a time (accounts:batchGet), or those whose e-mail
// or uid starts with the search text (accounts:batchGet?search=…, answered by the server
// from its sorted keys, so it works among millions); disabled and enabled, given a new
// password, deleted; one account's details and custom claims (accounts:lookup, and
// accounts:update with customAttributes), and its profile at /users/<uid> in the database
// picked above (the chat app's profiles), read through the REST API.
import { $, call, element, url } from "./api.js";

const base = "/identitytoolkit.googleapis.com/v1/accounts:";
const post = (operation, body) => call(base + operation, { method: "POST", body: JSON.stringify(body) });
let next = null;
let generation = 0; // answers of an older search are dropped
let searchTimer = null;
let shown = null; // the uid in the details panel

export async function showUsers() {
  const mine = ++generation;
  next = null;
  await more(mine, true);
  if (shown) await details(shown);
}

async function more(mine = generation, fresh = false) {
  const search = $("users-search").value.trim();
  const query = new URLSearchParams({ maxResults: "100" });
  if (search) query.set("search", search);
  if (next) query.set("nextPageToken", next);
  $("users-status").textContent = "loading…";
  const page = await call(base + "batchGet?" + query);
  if (mine !== generation) return;
  if (fresh) $("users-rows").textContent = "";
  for (const user of page.users ?? []) $("users-rows").append(row(user));
  next = page.nextPageToken ?? null;
  $("users-more").hidden = !next;
  const count = $("users-rows").children.length;
  $("users-status").textContent = `${count}${next ? "+" : ""} account${count === 1 ? "" : "s"}` + (search ? ` starting with “${search}”` : "");
}

function row(user) {
  return element("tr", { "data-uid": user.localId, "data-email": user.email ?? "" },
    element("td", { class: "code" }, user.localId),
    element("td", {}, user.email ?? ""),
    element("td", {}, user.disabled ? "disabled" : "active"),
    element("td", {}, user.createdAt ? new Date(Number(user.createdAt)).toLocaleString() : ""),
    element("td", {},
      element("button", { onclick: () => act(() => post("update", { localId: user.localId, disableUser: !user.disabled })) },
        user.disabled ? "enable" : "disable"), " ",
      element("button", { onclick: () => {
        const password = prompt(`New password for ${user.email ?? user.localId}`);
        if (password) act(() => post("update", { localId: user.localId, password }));
      } }, "set password"), " ",
      element("button", { class: "danger", onclick: () => {
        if (confirm(`Delete the account ${user.email ?? user.localId}?`)) {
          if (shown === user.localId) { shown = null; $("users-detail").hidden = true; }
          act(() => post("delete", { localId: user.localId }));
        }
      } }, "delete"), " ",
      element("button", { class: "details", onclick: () => details(user.localId).catch(showError) }, "details")));
}

function showError(error) { $("users-error").textContent = error.message; }

async function act(action) {
  $("users-error").textContent = "";
  try { await action(); await showUsers(); } catch (error) { showError(error); }
}

/// The account's details (as the server has them now), its claims and its profile.
async function details(uid) {
  $("users-error").textContent = "";
  const answer = await post("lookup", { localId: [uid] });
  const user = answer.users?.[0];
  if (!user) { $("users-detail").hidden = true; shown = null; return; }
  shown = uid;
  $("users-detail").hidden = false;
  $("users-title").textContent = user.email ?? user.localId;
  const when = (ms) => (ms ? new Date(Number(ms)).toLocaleString() : "—");
  const fields = [
    ["uid", user.localId], ["e-mail", user.email ?? "—"], ["e-mail verified", String(user.emailVerified)],
    ["state", user.disabled ? "disabled" : "active"], ["display name", user.displayName ?? "—"],
    ["created", when(user.createdAt)], ["last sign-in", when(user.lastLoginAt)],
    ["password changed", when(user.passwordUpdatedAt)],
    ["signs in with", (user.providerUserInfo ?? []).map((p) => p.providerId).join(", ") || "anonymous"],
  ];
  $("users-account").replaceChildren(...fields.map(([name, value]) =>
    element("tr", {}, element("th", {}, name), element("td", { class: "code" }, value))));
  let claims = "{}";
  try { claims = JSON.stringify(JSON.parse(user.customAttributes ?? "{}"), null, 2); } catch { claims = user.customAttributes; }
  $("users-claims").value = claims;
  $("users-claims").dataset.uid = uid;
  $("users-claims-status").textContent = user.customAttributes ? "" : "none";
  $("users-claims-error").textContent = "";
  $("users-profile-path").textContent = `/users/${uid}`;
  try {
    const profile = await call(url("/users/" + uid));
    $("users-profile").textContent = profile === null ? "(none)" : JSON.stringify(profile, null, 2);
  } catch (error) { $("users-profile").textContent = "(not readable: " + error.message + ")"; }
}

/// Sends the claims as the Admin SDK's setCustomUserClaims does: customAttributes, a string.
async function saveClaims() {
  const uid = $("users-claims").dataset.uid;
  const text = $("users-claims").value.trim() || "{}";
  $("users-claims-error").textContent = "";
  $("users-claims-status").textContent = "";
  let claims;
  try { claims = JSON.parse(text); } catch (error) { $("users-claims-error").textContent = "Not valid JSON: " + error.message; return; }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) {
    $("users-claims-error").textContent = 'Custom claims must be a JSON object, e.g. {"admin": true}';
    return;
  }
  try {
    await post("update", { localId: uid, customAttributes: JSON.stringify(claims) });
    await details(uid);
    $("users-claims-status").textContent = "set; tokens issued from now on carry them";
  } catch (error) { $("users-claims-error").textContent = error.message; }
}

$("users-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => showUsers().catch(showError), 250);
});
$("users-more").addEventListener("click", () => more().catch(showError));
$("users-claims-save").addEventListener("click", saveClaims);
