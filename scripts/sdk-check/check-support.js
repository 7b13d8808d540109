// What the chat SDK check pages share: Hearth's port (?port=), each check's outcome sent to
// run.py (POST /report), a check with a time limit, helpers for what must fail, and a user
// signed up with the official Auth SDK against Hearth, with a profile and their own app's
// database and callables. The SDK modules come from ./sdk/ (never committed; see run.py).
const { initializeApp } = await import("./sdk/firebase-app.js");
const { initializeAuth, inMemoryPersistence, connectAuthEmulator, createUserWithEmailAndPassword } =
  await import("./sdk/firebase-auth.js");
const { getDatabase, connectDatabaseEmulator, ref, set, serverTimestamp } = await import("./sdk/firebase-database.js");
const { getFunctions, connectFunctionsEmulator, httpsCallable } = await import("./sdk/firebase-functions.js");

export const params = new URLSearchParams(location.search);
export const port = Number(params.get("port"));
export const stamp = Date.now();

export const report = (name, ok, detail) => fetch("/report", {
  method: "POST",
  body: JSON.stringify({ name, ok, detail: String(detail ?? "") }),
});
export const log = (line) => { document.getElementById("log").textContent += line + "\n"; };
export const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/// Runs one check: `body`'s result is its detail; an error or `timeoutMs` without an answer fails it.
export async function check(name, body, timeoutMs = 15000) {
  try {
    const detail = await Promise.race([body(), wait(timeoutMs).then(() => { throw new Error("timeout"); })]);
    log(`ok   ${name} ${detail ?? ""}`);
    await report(name, true, detail);
  } catch (error) {
    log(`FAIL ${name} ${error}`);
    await report(name, false, `${error && error.code ? error.code + " " : ""}${error && error.stack || error}`);
  }
}

/// The error `body` rejects with; throws when it resolves.
export async function rejects(body) {
  try { await body(); } catch (error) { return error; }
  throw new Error("resolved, expected an error");
}

/// The message of a permission denial: a write's reads "PERMISSION_DENIED: Permission denied",
/// a get()'s "Permission denied", as the SDK words them against Firebase.
export function denied(error) {
  if (!/permission[_ ]denied/i.test(String(error?.code ?? "") + String(error?.message ?? error))) {
    throw new Error(`not a permission denial: ${error}`);
  }
  return String(error.message ?? error);
}

/// A user signed up as `email` (password "secret1") in an app of their own (named `appName`),
/// with `profile` (and `createdAt` the server time) at users/<uid> unless it is null:
/// {name, uid, email, password, auth, db, call(fn, data)}.
export async function signedUpUser(name, { appName, email, profile = null }) {
  const app = initializeApp(
    { apiKey: "hearth-sdk-check", projectId: "hearth", databaseURL: `http://127.0.0.1:${port}?ns=default` }, appName);
  const auth = initializeAuth(app, { persistence: inMemoryPersistence });
  connectAuthEmulator(auth, `http://127.0.0.1:${port}`, { disableWarnings: true });
  const db = getDatabase(app);
  connectDatabaseEmulator(db, "127.0.0.1", port);
  const functions = getFunctions(app);
  connectFunctionsEmulator(functions, "127.0.0.1", port);
  const cred = await createUserWithEmailAndPassword(auth, email, "secret1");
  if (profile) await set(ref(db, `users/${cred.user.uid}`), { ...profile, createdAt: serverTimestamp() });
  return {
    name, uid: cred.user.uid, email, password: "secret1", auth, db,
    call: (fn, data) => httpsCallable(functions, fn)(data),
  };
}
