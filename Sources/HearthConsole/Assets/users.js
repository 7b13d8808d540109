// The users view: every account a page at a time (accounts:batchGet), or those whose e-mail
// or uid starts with the search text (accounts:batchGet?search=…, answered by the server
// from its sorted keys, so it works among millions); disabled and enabled, given a new
// password, deleted; one account's details and custom claims (accounts:lookup, and
// accounts:update with customAttributes), and its profile at /users/<uid> in the database
// picked (the chat app's profiles), read through the REST API. An empty list says why and what
// to do; Esc in the search clears it.
import { $, call, clearAlert, element, showAlert, url } from "./api.js";

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
  const empty = $("users-empty");
  empty.hidden = count > 0;
  if (count === 0 && search) {
    empty.replaceChildren(element("strong", {}, `No account's e-mail or uid starts with “${search}”.`),
      element("p", {}, "The search matches the start, case aside: type less of it, or press Esc to clear it."));
  } else if (count === 0) {
    empty.replaceChildren(element("strong", {}, "No accounts yet."),
      element("p", {}, "Accounts appear here when users sign up through the app (the Auth REST API, accounts:signUp)."));
  }
}

function row(user) {
  return element("tr", { "data-uid": user.localId, "data-email": user.email ?? "" },
    element("td", { class: "code" }, user.localId),
    element("td", {}, user.email ?? ""),
    element("td", {}, element("span", { class: user.disabled ? "state disabled" : "state" }, user.disabled ? "disabled" : "active")),
    element("td", {}, user.createdAt ? new Date(Number(user.createdAt)).toLocaleString() : ""),
    element("td", {}, element("div", { class: "actions" },
      element("button", { title: user.disabled ? "Let the account sign in again" : "Refuse the account's sign-ins and token refreshes",
        onclick: () => act(() => post("update", { localId: user.localId, disableUser: !user.disabled })) },
        user.disabled ? "Enable" : "Disable"),
      element("button", { onclick: () => {
        const password = prompt(`New password for ${user.email ?? user.localId}`);
        if (password) act(() => post("update", { localId: user.localId, password }));
      } }, "Set password"),
      element("button", { class: "danger", onclick: () => {
        if (confirm(`Delete the account ${user.email ?? user.localId}?`)) {
          if (shown === user.localId) hideDetails();
          act(() => post("delete", { localId: user.localId }));
        }
      } }, "Delete"),
      element("button", { class: "details", onclick: () => details(user.localId).catch(showError) }, "Details"))));
}

function showError(error) { showAlert("users-error", error); }

function hideDetails() {
  shown = null;
  $("users-detail").hidden = true;
  $("users-placeholder").hidden = false;
}

async function act(action) {
  clearAlert("users-error");
  try { await action(); await showUsers(); } catch (error) { showError(error); }
}

/// The account's details (as the server has them now), its claims and its profile.
async function details(uid) {
  $("users-error").textContent = "";
  const answer = await post("lookup", { localId: [uid] });
  const user = answer.users?.[0];
  if (!user) { hideDetails(); return; }
  shown = uid;
  $("users-detail").hidden = false;
  $("users-placeholder").hidden = true;
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
  clearAlert("users-claims-error");
  $("users-profile-path").textContent = `/users/${uid}`;
  try {
    const profile = await call(url("/users/" + uid));
    $("users-profile").textContent = profile === null
      ? `(none: nothing at /users/${uid} in this database; pick the app's database in the sidebar)`
      : JSON.stringify(profile, null, 2);
  } catch (error) { $("users-profile").textContent = "(not readable: " + error.message + ")"; }
}

/// Sends the claims as the Admin SDK's setCustomUserClaims does: customAttributes, a string.
async function saveClaims() {
  const uid = $("users-claims").dataset.uid;
  const text = $("users-claims").value.trim() || "{}";
  clearAlert("users-claims-error");
  $("users-claims-status").textContent = "";
  let claims;
  try { claims = JSON.parse(text); } catch (error) {
    showAlert("users-claims-error", new Error("Not valid JSON: " + error.message), 'Write a JSON object, e.g. {"admin": true}.');
    return;
  }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) {
    showAlert("users-claims-error", new Error('Custom claims must be a JSON object, e.g. {"admin": true}'));
    return;
  }
  try {
    await post("update", { localId: uid, customAttributes: JSON.stringify(claims) });
    await details(uid);
    $("users-claims-status").textContent = "set; tokens issued from now on carry them";
  } catch (error) { showAlert("users-claims-error", error); }
}

$("users-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => showUsers().catch(showError), 250);
});
$("users-search").addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !$("users-search").value) return;
  event.stopPropagation();
  $("users-search").value = "";
  showUsers().catch(showError);
});
$("users-more").addEventListener("click", () => more().catch(showError));
$("users-claims-save").addEventListener("click", saveClaims);
