"""The checks after a kill: offline ones on the stopped data directory (`hearth doctor`,
`hearth chat check`, `hearth users list`), then, on the restarted server, the writes, multi-path
updates, transactions, onDisconnect writes, rules, indexes, accounts, storage objects, presence,
calls and push notifications."""
import json
import os

import load_attachments
import load_blocks
import load_calls
import load_push
import load_storage
from load_app import RULES_VARIANTS, variant_of
from load_presence import WRITTEN_WITHIN


#: What `hearth chat check` says of an entry a killed server left online.
PRESENCE_LEFT_ONLINE = '/state is "online" with no server running'


def offline_checks(ctx):
    """Run between the kill and the restart: the store opens directly and is consistent, and
    `hearth doctor` finds every object's file whole (files no object names are what the kill
    left: not damage, swept at the start)."""
    violations = []
    status, output = ctx.server.cli(["doctor", "--data", ctx.server.data])
    if status != 0:
        violations.append(f"hearth doctor exited {status}: {output.strip()[-2000:]}")
    status, output = ctx.server.cli(["chat", "check", "--data", ctx.server.data, "--log-level", "error"])
    if status != 0:
        # Users the killed server had online stay so in its data until the next start (checked
        # by `presence_checks` on the restarted server); every other line is a disagreement.
        lines = [line for line in output.strip().splitlines()
                 if not line.startswith("chat check of") and PRESENCE_LEFT_ONLINE not in line]
        ctx.presence_left_online = sum(1 for line in output.splitlines() if PRESENCE_LEFT_ONLINE in line)
        if lines or status != 1:
            violations.append(f"hearth chat check exited {status}: {output.strip()[-2000:]}")
    status, output = ctx.server.cli(["users", "list", "--json", "--data", ctx.server.data, "--log-level", "error"])
    if status != 0:
        violations.append(f"hearth users list exited {status}: {output.strip()[-2000:]}")
    else:
        uids = {json.loads(line).get("uid") for line in output.splitlines() if line.startswith("{")}
        for account in ctx.accounts:
            if account["uid"] not in uids:
                violations.append(f"acknowledged sign-up {account} missing from hearth users list")
    return violations


class Tree:
    """What the restarted server shows, read once: `crash/it<N>` and `messages` of `default`,
    `items`, `bulk` and the rules text of `crashns`."""

    def __init__(self, ctx):
        rest = ctx.rest
        self.default = {"crash": {f"it{ctx.iteration}": rest.read(ctx.prefix)}, "messages": rest.read("messages"),
                        "blocks": rest.read("blocks"), "blockedSenders": rest.read("blockedSenders")}
        self.crashns = {name: rest.read(name, ns="crashns") for name in ("items", "bulk")}
        self.rules = rest.request("GET", "/.settings/rules.json?ns=crashns",
                                  headers={"Authorization": f"Bearer {ctx.admin_secret}"}).body
        self.whole_crash = rest.read("crash")

    def lookup(self, ns, path):
        if ns == "crashns.settings":
            return self.rules
        node = self.crashns if ns == "crashns" else self.default
        for segment in path.split("/"):
            if not isinstance(node, dict) or segment not in node:
                return None
            node = node[segment]
        return node


def online_checks(ctx, state):
    """Run on the restarted server; `state` is what the run carries from iteration to iteration."""
    tree = Tree(ctx)
    violations = ctx.ledger.check(tree.lookup)
    counter = tree.lookup("default", f"{ctx.prefix}/txn/counter")
    violations += ctx.counter.check(int(counter) if isinstance(counter, str) else (0 if counter is None else counter),
                                    f"/{ctx.prefix}/txn/counter")
    increments = tree.lookup("default", f"{ctx.prefix}/inc")
    violations += ctx.increments.check(0 if increments is None else increments, f"/{ctx.prefix}/inc (server increments)")
    violations += rules_and_index_checks(ctx, tree)
    violations += load_blocks.online_checks(ctx, tree.lookup)
    violations += load_attachments.online_checks(ctx, tree.lookup)
    violations += earlier_iterations(ctx, state, tree)
    violations += account_checks(ctx, state)
    violations += load_storage.online_checks(ctx, state)
    violations += presence_checks(ctx)
    violations += load_calls.online_checks(ctx, state)
    if ctx.server.push is not None:  # last: it waits for the push queue to drain
        violations += load_push.online_checks(ctx, state, tree)
    return violations


def presence_checks(ctx):
    """After the restart nobody is online (no user connects before these checks): every
    `presence/$uid` is `offline`, and the users who were connected at the kill have one."""
    violations = []
    entries = ctx.rest.read("presence") or {}
    ctx.presence_entries = len(entries)
    for uid, entry in entries.items():
        if not isinstance(entry, dict) or entry.get("state") != "offline" or not isinstance(entry.get("lastChanged"), (int, float)):
            violations.append(f"presence/{uid} after the restart is {entry!r}, not offline")
    # The user connected throughout: surely written online before the kill when it signed in
    # long enough before it (then its entry cannot be missing now).
    held, killed_at = getattr(ctx, "presence_held", None), getattr(ctx, "presence_killed_at", None)
    if held and killed_at and killed_at - held[1] > WRITTEN_WITHIN and held[0] not in entries:
        violations.append(f"presence/{held[0]} is missing after the restart: it was online "
                          f"{killed_at - held[1]:.2f} s before the kill")
    return violations


def rules_and_index_checks(ctx, tree):
    violations = []
    with open(os.path.join(ctx.server.rules_dir, "crashns.rules.json")) as file:
        on_disk = file.read()
    if tree.rules != on_disk:
        violations.append(f"crashns rules in force differ from its file: {tree.rules[:200]!r} vs {on_disk[:200]!r}")
    indexed = RULES_VARIANTS.get(variant_of(tree.rules)) or []
    for name in ("items", "bulk"):
        violations += index_checks(ctx, name, tree.crashns[name] or {}, indexed)
    return violations


def index_checks(ctx, name, children, indexed):
    """Ordered queries on crashns /NAME answer what its data says (with an index in force), or
    400 `Index not defined` (without)."""
    violations = []
    for field in ("score", "name"):
        ordered = sorted((value.get(field), key) for key, value in children.items())
        for limit in ("limitToFirst", "limitToLast"):
            answer = ctx.rest.db("GET", name, ns="crashns", query={"orderBy": f'"{field}"', limit: "5"})
            if field not in indexed:
                if answer.status != 400 or "Index not defined" not in answer.body:
                    violations.append(f"crashns: orderBy {field} on /{name} without an index answered {answer!r}")
                continue
            picked = ordered[:5] if limit == "limitToFirst" else ordered[-5:]
            expected = sorted(key for _, key in picked)
            got = sorted((answer.json() or {}).keys()) if answer.ok else answer
            if got != expected:
                violations.append(f"crashns: index on /{name} {field} ({limit}=5) answered {got!r}, the data says {expected!r}")
        if field == "score" and "score" in indexed:
            answer = ctx.rest.db("GET", name, ns="crashns", query={"orderBy": '"score"', "equalTo": "3"})
            expected = sorted(key for key, value in children.items() if value.get("score") == 3)
            got = sorted((answer.json() or {}).keys()) if answer.ok else answer
            if got != expected:
                violations.append(f"crashns: index on /{name} score (equalTo 3) answered {got!r}, the data says {expected!r}")
    return violations


def earlier_iterations(ctx, state, tree):
    """What earlier iterations left (checked and then kept) is unchanged, and every message
    acknowledged in the run is there."""
    violations = []
    for name, snapshot in state.snapshots.items():
        now = (tree.whole_crash or {}).get(name)
        if now != snapshot:
            violations.append(f"/crash/{name}, checked after an earlier restart, changed: {summarize(snapshot, now)}")
    for path, text in state.messages.items():
        if tree.lookup("default", path) != text:
            violations.append(f"message acknowledged in an earlier iteration is gone: /{path} (expected {text!r})")
    return violations


def summarize(before, after, prefix=""):
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                return summarize(before.get(key), after.get(key), f"{prefix}/{key}")
    return f"{prefix or '/'}: {before!r} -> {after!r}"


def account_checks(ctx, state):
    """Every account acknowledged in this iteration (and a sample of earlier ones) still works:
    an anonymous one refreshes its token, an e-mail one signs in with its password."""
    violations = []
    current = [account for account in ctx.accounts if account["iteration"] == ctx.iteration]
    earlier = [account for account in ctx.accounts if account["iteration"] != ctx.iteration]
    sample = current + ctx.rng.sample(earlier, min(2, len(earlier)))
    for account in sample:
        if "refresh" in account:
            answer = ctx.rest.refresh(account["refresh"])
            if not answer.ok or answer.json().get("user_id") != account["uid"]:
                violations.append(f"acknowledged anonymous account {account['uid']} cannot refresh: {answer!r}")
            continue
        for password in account["passwords"]:
            answer = ctx.rest.accounts("signInWithPassword", {"email": account["email"], "password": password,
                                                              "returnSecureToken": True}, timeout=120)
            if answer.ok:
                break
        else:
            violations.append(f"acknowledged account {account['email']} cannot sign in with {account['passwords']}: {answer!r}")
    return violations
