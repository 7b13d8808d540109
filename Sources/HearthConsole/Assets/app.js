// The console: sign in with the admin secret, then the data, rules, users, health and files views,
// the database picker (databases.js) and the keyboard shortcuts (shortcuts.js). The files view's
// modules load when it is first shown.
import { $, call, clearAlert, remedy, session, showAlert, url } from "./api.js";
import { loadDatabases, onDatabasePicked } from "./databases.js";
import { showTree, stopData } from "./data.js";
import { showRules } from "./rules.js";
import { showUsers } from "./users.js";
import { showHealth, stopHealth } from "./health.js";
import { initShortcuts } from "./shortcuts.js";

const views = {
  data: showTree, rules: showRules, users: showUsers, health: showHealth,
  files: async () => (await import("./files.js")).showFiles(),
};
let current = "data";

async function show(view) {
  current = view;
  for (const name of Object.keys(views)) {
    $("view-" + name).hidden = name !== view;
    $("tab-" + name).setAttribute("aria-selected", String(name === view));
  }
  if (view !== "health") stopHealth();
  clearAlert("app-error");
  try { await views[view](); } catch (error) { showAlert("app-error", error); }
}

// Signing in: the secret is checked with one shallow read before anything shows.
async function signIn(secret) {
  session.secret = secret;
  await call(url("/", { shallow: "true", limitToFirst: "1" }));
  sessionStorage.setItem("hearth.admin", secret);
  $("sign-in-screen").hidden = true;
  $("views").hidden = false;
  await loadDatabases();
  await show(current);
}

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  clearAlert("sign-in-error");
  try { await signIn($("secret").value); $("secret").value = ""; }
  catch (error) {
    showAlert("sign-in-error", new Error("Not signed in: " + error.message),
      error.status === 401 || error.status === 403
        ? "Type the admin secret the server printed at start (or was given with --admin-secret)."
        : remedy(error));
  }
});
$("sign-out").addEventListener("click", () => {
  sessionStorage.removeItem("hearth.admin");
  stopData();
  stopHealth();
  location.reload();
});
for (const name of Object.keys(views)) $("tab-" + name).addEventListener("click", () => show(name));
onDatabasePicked(() => { if (!$("views").hidden) show(current); });
initShortcuts(show, () => current);
if (session.secret) signIn(session.secret).catch(() => sessionStorage.removeItem("hearth.admin"));
