// The database picker of the sidebar: the databases the server has (GET /.settings/namespaces.json,
// admin), the one picked kept for this tab (session storage), and "New database…" to name one
// that has no data yet (a database is made by its first write).
import { $, call, element, remedy } from "./api.js";

const newDatabase = "\u0000new";
const validName = /^[A-Za-z0-9-]{1,63}$/;
let known = [];
let onPick = () => {};

function picked() { return sessionStorage.getItem("hearth.ns") || "default"; }

/// `pick(name)` runs when another database is picked.
export function onDatabasePicked(pick) { onPick = pick; }

/// Lists the server's databases in the picker (again), the one picked kept.
export async function loadDatabases() {
  try {
    known = (await call("/.settings/namespaces.json")).namespaces ?? [];
    $("namespace-note").textContent = "";
  } catch (error) {
    known = [];
    $("namespace-note").textContent = `The list of databases did not load: ${error.message}. ` +
      (remedy(error) || "Pick “New database…” to type a name.");
  }
  fill(picked());
}

function fill(current) {
  const select = $("namespace");
  const names = [...new Set([...known, current])].sort();
  select.replaceChildren(
    ...names.map((name) => element("option", { value: name }, known.includes(name) ? name : name + " (no data yet)")),
    element("option", { value: newDatabase }, "New database…"));
  select.value = current;
  sessionStorage.setItem("hearth.ns", current);
}

$("namespace").addEventListener("change", () => {
  const select = $("namespace");
  let name = select.value;
  if (name === newDatabase) {
    const typed = prompt("Name of the new database (1 to 63 letters, digits or '-'). It is made by its first write.", "");
    if (typed === null || !validName.test(typed.trim())) {
      if (typed !== null) $("namespace-note").textContent = `'${typed}' is not a database name: use 1 to 63 letters, digits or '-'.`;
      select.value = picked();
      return;
    }
    name = typed.trim();
  }
  $("namespace-note").textContent = "";
  fill(name);
  onPick(name);
});
