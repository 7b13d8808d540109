// The console: sign in with the admin secret, then the data, rules, users and health views.
import { $, call, session, url } from "./api.js";
import { showTree, stopData } from "./data.js";
import { showRules } from "./rules.js";
import { showUsers } from "./users.js";
import { showHealth, stopHealth } from "./health.js";

const views = { data: showTree, rules: showRules, users: showUsers, health: showHealth };
let current = "data";

async function show(view) {
  current = view;
  for (const name of Object.keys(views)) {
    $("view-" + name).hidden = name !== view;
    $("tab-" + name).setAttribute("aria-selected", String(name === view));
  }
  if (view !== "health") stopHealth();
  try { await views[view](); } catch (error) { $("app-error").textContent = error.message; }
}

// Signing in: the secret is checked with one shallow read before anything shows.
async function signIn(secret) {
  session.secret = secret;
  await call(url("/", { shallow: "true", limitToFirst: "1" }));
  sessionStorage.setItem("hearth.admin", secret);
  $("sign-in").hidden = true;
  $("views").hidden = false;
  $("sign-out").hidden = false;
  await show(current);
}

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("sign-in-error").textContent = "";
  try { await signIn($("secret").value); $("secret").value = ""; }
  catch (error) { $("sign-in-error").textContent = "Not signed in: " + error.message; }
});
$("sign-out").addEventListener("click", () => {
  sessionStorage.removeItem("hearth.admin");
  stopData();
  stopHealth();
  location.reload();
});
for (const name of Object.keys(views)) $("tab-" + name).addEventListener("click", () => show(name));
$("namespace").addEventListener("change", () => { if (!$("views").hidden) show(current); });
if (session.secret) signIn(session.secret).catch(() => sessionStorage.removeItem("hearth.admin"));
