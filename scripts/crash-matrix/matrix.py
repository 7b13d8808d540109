#!/usr/bin/env python3
"""The crash matrix (docs/crash-matrix.md): mixed load on the real `hearth` binary, `kill -9` at
a random moment, restart, and checks that nothing acknowledged was lost or torn.

Usage: matrix.py [--iterations N] [--budget SECONDS] [--seed S] ...; see --help. Prints one line
per iteration and a JSON summary; exits 1 on any violation (with the seed and the details, and
the logs of the failing iteration kept in a directory it names), 2 when the run could not start.
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

import load_attachments
import load_blocks
import load_calls
import load_push
from ledger import Counter, Ledger
from load import Chat, Context, run_and_kill
from load_app import BULK_ITEMS, rules_text
from load_storage import ObjectLedger, object_target
from push_receiver import PushReceiver
from rest import Rest
from server import Server
from verify import offline_checks, online_checks


def arguments():
    parser = argparse.ArgumentParser(description="kill -9 the hearth server under mixed load and check what survived")
    parser.add_argument("--iterations", type=int, default=5, help="kills to run (default 5)")
    parser.add_argument("--budget", type=float, default=600, help="wall-clock seconds; no new iteration starts after (default 600)")
    parser.add_argument("--seed", type=int, default=None, help="seed of every random choice (default: random, printed)")
    parser.add_argument("--kill-min", type=float, default=0.5, help="earliest kill, seconds into the load (default 0.5)")
    parser.add_argument("--kill-max", type=float, default=3.0, help="latest kill, seconds into the load (default 3)")
    parser.add_argument("--password-signups", type=int, default=1, help="e-mail sign-ups per iteration (scrypt; default 1)")
    parser.add_argument("--sync", choices=["periodic", "always", "mixed"], default="mixed",
                        help="the server's --sync; mixed (default): either, chosen at random at each start")
    parser.add_argument("--ready-timeout", type=float, default=60, help="seconds the server has to become ready (default 60)")
    parser.add_argument("--restart-kills", type=float, default=0.2,
                        help="share of iterations whose restart is itself killed 0-0.6 s in (default 0.2)")
    parser.add_argument("--strict", action="store_true", help="unexpected answers of a running server are violations too")
    parser.add_argument("--inject", choices=["lost", "partial", "lost-object", "orphan", "torn-block", "online",
                                             "kept-attachment", "lost-push", "duplicate-push"],
                        default=None,
                        help="self-check: after the restart, delete an acknowledged write (lost), tear a "
                             "multi-path update (partial), delete an acknowledged storage object (lost-object), "
                             "leave a file no object names in storage/objects (orphan), tear a block from its "
                             "marker (torn-block), set a user online (online), upload a deleted message's "
                             "attachment again (kept-attachment), or make the webhook receiver forget user 3's "
                             "last push (lost-push) or record it twice from one server run (duplicate-push) "
                             "behind the checks' back; the run must then fail")
    parser.add_argument("--no-calls", action="store_true",
                        help="ring no calls (a binary without --call-ring-timeout rings none anyway)")
    parser.add_argument("--push-drain-timeout", type=float, default=load_push.DRAIN_TIMEOUT,
                        help=f"seconds the push queue has to drain after a restart (default {load_push.DRAIN_TIMEOUT:.0f})")
    parser.add_argument("--no-pushes", action="store_true",
                        help="run the server without --push-webhook (no push notifications, no push checks)")
    parser.add_argument("--verbose", action="store_true", help="print each iteration's figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the work directory when the run passes")
    return parser.parse_args()


class RunState:
    """What the run carries from iteration to iteration."""

    def __init__(self):
        self.snapshots = {}  # "it<N>" -> /crash/it<N> as checked (its onDisconnect part removed later)
        self.messages = {}  # path of an acknowledged message's text -> the text
        self.accounts = []
        self.chat = None
        self.objects = {}  # storage object name -> what it held when checked (md5, size, token)
        self.devices = {}  # (uid, device id) -> load_push.Device, registered with the chat app
        self.push_mark = (0, 0, 0)  # what the webhook receiver had recorded at the last check
        self.push_runs = {}  # push id -> the server runs (generations) that delivered it
        self.push_deleted = set()  # (chat, key) of messages deleteMessage was sent for
        self.call_chats = []  # load_calls.CallChat, when the binary has calls


def prepare(workdir):
    os.makedirs(os.path.join(workdir, "rules"))
    repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shutil.copy(os.path.join(repository, "rules", "database.rules.json"), os.path.join(workdir, "rules"))
    with open(os.path.join(workdir, "rules", "crashns.rules.json"), "w") as file:
        file.write(rules_text("score", "initial"))
    with open(os.path.join(workdir, "seed.json"), "w") as file:
        file.write("{}")


def import_bulk(ctx):
    """Imports crashns /bulk (with `hearth import` into the running server)."""
    path = os.path.join(ctx.workdir, "bulk.json")
    with open(path, "w") as file:
        json.dump({f"b{n:05d}": {"score": n % 1000, "name": f"bulk-{n:05d}"} for n in range(BULK_ITEMS)}, file)
    status, output = ctx.server.cli(["import", path, "--path", "/bulk", "--ns", "crashns", "--data", ctx.server.data])
    if status != 0:
        raise RuntimeError(f"import of crashns /bulk exited {status}: {output[-500:]}")


def before_load(ctx, state, rest):
    """Per iteration, on the running server: the chat app (once), fresh tokens, what the keys
    this iteration shares with earlier ones hold now, and the delete of the previous
    iteration's onDisconnect results (had their records survived, they would run again at the
    next start and the check of that iteration's snapshot would see them)."""
    if state.chat is None:
        state.chat = Chat(rest)
        state.devices = load_push.register_devices(rest, state.chat, ctx.seed)
        if ctx.server.call_ring_timeout is not None:
            state.call_chats = load_calls.make_chats(rest, state.chat)
        import_bulk(ctx)
    state.chat.refresh_tokens(rest)
    ctx.chat = state.chat
    ctx.call_chats = state.call_chats
    load_push.before_load(ctx, state, rest)
    load_calls.before_load(ctx, state, rest)
    ctx.lists_before = {name: rest.read(name, ns="crashns") or {} for name in ("items", "bulk")}
    ctx.ledger.initial[("crashns.settings", "rules")] = rest.request(
        "GET", "/.settings/rules.json?ns=crashns", headers={"Authorization": f"Bearer {ctx.admin_secret}"}).body
    previous = f"it{ctx.iteration - 1}"
    if previous in state.snapshots:
        answer = rest.db("DELETE", f"crash/{previous}/odc")
        if not answer.ok:
            raise RuntimeError(f"DELETE of /crash/{previous}/odc: {answer!r}")
        (state.snapshots[previous] or {}).pop("odc", None)


def flatten_texts(messages):
    """`messages/$chat/$id/text` -> the text, for every message."""
    return {f"messages/{chat}/{key}/text": (message or {}).get("text")
            for chat, children in messages.items() for key, message in (children or {}).items()}


def pick_sync(option, master):
    """The --sync of the next start: the option's, or for `mixed` one of the two at random."""
    return master.choice(["periodic", "always"]) if option == "mixed" else option


def inject(ctx, kind):
    """Damages what the server shows the way a bug would (for --inject)."""
    if kind == "orphan":
        with open(os.path.join(ctx.server.data, "storage", "objects", "1000000000000000"), "wb") as file:
            file.write(b"orphan")
        return
    if kind == "torn-block":
        load_blocks.tear(ctx)
        return
    if kind == "kept-attachment":
        load_attachments.keep(ctx)
        return
    if kind in ("lost-push", "duplicate-push"):
        ctx.server.push.inject(kind, ctx.chat.users[3].uid)
        return
    if kind == "online":
        ctx.rest.db("PUT", "presence/injected", {"state": "online", "lastChanged": 1})
        return
    if kind == "lost-object":
        for name, history in ctx.objects.names.items():
            if history[-1].state == "acked" and history[-1].value is not None:
                ctx.rest.request("DELETE", object_target(name), headers={"Authorization": f"Bearer {ctx.admin_secret}"})
                return
    if kind == "lost":
        for (ns, path), history in ctx.ledger.keys.items():
            if "/rest/" in path and history[-1].state == "acked" and history[-1].value is not None:
                ctx.rest.db("DELETE", path)
                return
    for (ns, base, parts), history in ctx.ledger.groups.items():
        if history[-1].state == "acked":
            ctx.rest.db("PUT", f"{base}/{parts[0]}", "torn", ns=ns)
            return


def iteration(number, options, server, state, seed, master):
    """Runs one iteration; answers (line, violations, facts)."""
    if server.process is None:
        server.sync = pick_sync(options.sync, master)
        server.start(options.ready_timeout)
    syncs = [server.sync]
    rest = Rest(server.port, server.admin_secret)
    ctx = Context(iteration=number, prefix=f"crash/it{number}", port=server.port, admin_secret=server.admin_secret,
                  rest=rest, ledger=Ledger(), objects=ObjectLedger(), attachments=load_attachments.Attachments(), counter=Counter(), increments=Counter(), workdir=server.workdir, server=server,
                  chat=None, accounts=state.accounts, password_signups=options.password_signups, seed=seed,
                  rng=random.Random(f"{seed}-{number}-checks"), push_drain_timeout=options.push_drain_timeout)
    before_load(ctx, state, rest)
    ctx.chat = state.chat
    kill_after = master.uniform(options.kill_min, options.kill_max)
    phases = {}
    mark = time.monotonic()
    if server.push is not None:  # 500s now and then under the load, so retries straddle the kill
        server.push.failing = True
    run_and_kill(ctx, kill_after)
    ctx.killed_at = server.killed_at
    if server.push is not None:  # after the restart every POST is accepted: the queue drains fast
        server.push.failing = False
    phases["load_and_stop_s"], mark = round(time.monotonic() - mark, 2), time.monotonic()
    phases["kill_to_exit_s"] = round(ctx.kill_to_exit, 2)
    violations = offline_checks(ctx)
    phases["offline_checks_s"], mark = round(time.monotonic() - mark, 2), time.monotonic()
    early_kill = None
    if master.random() < options.restart_kills:
        early_kill = master.uniform(0, 0.6)
        server.sync = pick_sync(options.sync, master)
        server.start(options.ready_timeout, kill_after=early_kill)
    server.sync = pick_sync(options.sync, master)
    syncs.append(server.sync)
    try:
        ready = server.start(options.ready_timeout)
    except RuntimeError as error:
        return f"store did not open: {error}", violations + [f"the store did not open after the kill: {error}"], {}
    ctx.rest = Rest(server.port, server.admin_secret)
    ctx.restarted_at = time.time()
    if options.inject:
        inject(ctx, options.inject)
    phases["restart_s"], mark = round(time.monotonic() - mark, 2), time.monotonic()
    violations += online_checks(ctx, state)
    phases["checks_s"] = round(time.monotonic() - mark, 2)
    if options.strict:
        violations += [f"unexpected answer: {note}" for note in ctx.notes]
    state.snapshots[f"it{number}"] = ctx.rest.read(ctx.prefix)
    messages_now = flatten_texts(ctx.rest.read("messages") or {})
    for (ns, path), history in ctx.ledger.keys.items():
        if path.startswith("messages/") and any(entry.state == "acked" for entry in history):
            text = messages_now.get(path)
            if text is None:
                state.messages.pop(path, None)  # deleted (deleteMessage)
            else:
                state.messages[path] = text
    counts = ctx.ledger.counts()
    facts = {"iteration": number, "kill_after_s": round(kill_after, 3), "ready_s": round(ready, 3),
             "acked": counts["acked"], "pending_at_kill": counts["pending"], "refused": counts["refused"],
             "transactions_acked": ctx.counter.acked, "sign_ups": sum(1 for a in state.accounts if a["iteration"] == number),
             "unexpected_answers": len(ctx.notes), "phases": phases, "sync_before_and_after": syncs, "killed_while_starting_s": early_kill,
             "increments_acked": ctx.increments.acked,
             "password_sign_ups": sum(1 for a in state.accounts if a["iteration"] == number and "email" in a),
             "password_changes": sum(1 for a in state.accounts if a["iteration"] == number and a.get("passwords") == ["second-pass"]),
             "acked_by_kind": ctx.ledger.acked_by_kind(), "storage": ctx.objects.counts(),
             "attachments": getattr(ctx, "attachment_counts", {}),
             "presence": {"left_online_at_kill": getattr(ctx, "presence_left_online", 0),
                          "entries_offline_after_restart": getattr(ctx, "presence_entries", 0)},
             "push": getattr(ctx, "push_facts", {}), "calls": getattr(ctx, "call_facts", {})}
    storage = facts["storage"]
    line = (f"kill at {kill_after:.2f} s; {counts['acked']} acked, {counts['pending']} pending at the kill, "
            f"{counts['refused']} refused; {ctx.counter.acked} transactions; {facts['sign_ups']} sign-ups; "
            f"{sum(storage.get('acked', {}).values())} storage uploads and deletes acked, "
            f"{sum(storage.get('pending', {}).values())} pending at the kill; "
            f"restart ready in {ready:.2f} s" + (f" (after a kill {early_kill:.2f} s into a start)" if early_kill is not None else "")
            + push_summary(facts["push"]))
    return line, violations, dict(facts, notes=ctx.notes[:20])


def push_summary(push):
    """The iteration line's part on pushes."""
    if not push:
        return ""
    return (f"; {push['delivered']} pushes delivered ({push['duplicates']} again after the kill, "
            f"{push['answered_500']} answered 500), drained in {push['drain_s']:.2f} s")


def keep_failure(workdir, number, violations, facts, server):
    """Copies what a failing iteration leaves (the server's log, the data directory, the
    details) into a directory of its own; answers its path."""
    kept = os.path.join(workdir, f"failure-iteration-{number}")
    os.makedirs(kept, exist_ok=True)
    with open(os.path.join(kept, "violations.txt"), "w") as file:
        file.write("\n".join(violations) + "\n\n" + json.dumps(facts, indent=2) + "\n")
    if os.path.exists(server.log_path):
        shutil.copy(server.log_path, kept)
    server.kill()
    shutil.copytree(server.data, os.path.join(kept, "data"), dirs_exist_ok=True)
    return kept


def main():
    options = arguments()
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(1, 2**31)
    repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    binary = os.environ.get("HEARTH_BIN", os.path.join(repository, ".build", "debug", "hearth"))
    if not os.access(binary, os.X_OK):
        print(f"crash matrix: no hearth binary at {binary}: build it (swift build --product hearth) or set HEARTH_BIN.")
        return 2
    workdir = tempfile.mkdtemp(prefix="hearth-crash-matrix-")
    prepare(workdir)
    print(f"crash matrix: seed {seed}, {options.iterations} iterations, budget {options.budget:.0f} s, "
          f"binary {binary}, work directory {workdir}", flush=True)
    receiver = None if options.no_pushes else PushReceiver(f"crash-matrix-{seed}", seed)
    server = Server(binary, workdir, admin_secret=f"crash-matrix-{seed}", sync=None, push=receiver)
    if not options.no_calls and load_calls.supported(server):
        server.call_ring_timeout = load_calls.RING_TIMEOUT
    master = random.Random(seed)
    state = RunState()
    started = time.monotonic()
    results, failure, kept = [], None, None
    try:
        for number in range(1, options.iterations + 1):
            if time.monotonic() - started > options.budget:
                print(f"crash matrix: the budget of {options.budget:.0f} s is spent; stopping after {number - 1} iterations")
                break
            iteration_started = time.monotonic()
            try:
                line, violations, facts = iteration(number, options, server, state, seed, master)
            except Exception as error:  # the run itself broke: an answer no check expected
                line, violations, facts = f"broke: {error}", [f"iteration could not run: {error!r}"], {}
            facts["seconds"] = round(time.monotonic() - iteration_started, 2)
            results.append(facts)
            verdict = "ok" if not violations else f"{len(violations)} VIOLATIONS"
            if options.verbose:
                verdict += " " + json.dumps({k: v for k, v in facts.items() if k != "notes"})
            elif facts["seconds"] > 10 and "phases" in facts:
                verdict += f" (slow: {facts['phases']})"
            if facts.get("unexpected_answers"):
                verdict += f" ({facts['unexpected_answers']} unexpected answers: {facts['notes'][:3]})"
            print(f"iteration {number}/{options.iterations}: {line} ({facts['seconds']} s): {verdict}", flush=True)
            if violations:
                failure = {"iteration": number, "violations": violations}
                kept = keep_failure(workdir, number, violations, facts, server)
                for violation in violations[:30]:
                    print(f"  - {violation}")
                break
        if failure is None:
            server.kill()
            status, output = server.cli(["chat", "check", "--data", server.data, "--log-level", "error"])
            if status != 0:
                failure = {"iteration": "final", "violations": [f"final hearth chat check exited {status}: {output[-2000:]}"]}
                print(f"final chat check: {output[-2000:]}")
    finally:
        server.kill()
        if receiver is not None:
            receiver.shutdown()
    summary = {
        "seed": seed,
        "iterations_requested": options.iterations,
        "iterations_run": len(results),
        "violations": 0 if failure is None else len(failure["violations"]),
        "seconds": round(time.monotonic() - started, 1),
        "acked_writes": sum(r.get("acked", 0) for r in results),
        "pending_at_kill": sum(r.get("pending_at_kill", 0) for r in results),
        "transactions_acked": sum(r.get("transactions_acked", 0) for r in results),
        "sign_ups": sum(r.get("sign_ups", 0) for r in results),
        "password_sign_ups": sum(r.get("password_sign_ups", 0) for r in results),
        "password_changes": sum(r.get("password_changes", 0) for r in results),
        "increments_acked": sum(r.get("increments_acked", 0) for r in results),
        "kills_while_starting": sum(1 for r in results if r.get("killed_while_starting_s") is not None),
        "presence_left_online_at_kills": sum(r.get("presence", {}).get("left_online_at_kill", 0) for r in results),
        "unexpected_answers": sum(r.get("unexpected_answers", 0) for r in results),
        "acked_by_kind": {},
        "storage": {},
        "attachments": {},
        "push": {},
        "calls": {},
        "binary": binary,
    }
    for result in results:
        for kind, count in result.get("acked_by_kind", {}).items():
            summary["acked_by_kind"][kind] = summary["acked_by_kind"].get(kind, 0) + count
        for name, value in result.get("push", {}).items():
            pushes = summary["push"]
            if name == "most_deliveries_of_one_push":
                pushes[name] = max(pushes.get(name, 0), value)
            elif name == "drain_s":
                pushes["longest_drain_s"] = max(pushes.get("longest_drain_s", 0), value)
            else:
                pushes[name] = pushes.get(name, 0) + value
        for name, value in result.get("calls", {}).items():
            calls = summary["calls"]
            if name in ("started", "due_while_down"):
                calls[name] = calls.get(name, 0) + value
            else:  # the run's calls as of the last check, or the most of any iteration
                calls[name] = value if name in ("missed_in_all", "ringing_at_check") else max(calls.get(name, 0), value)
        for state, kinds in result.get("storage", {}).items():
            for kind, count in kinds.items():
                totals = summary["storage"].setdefault(state, {})
                totals[kind] = totals.get(kind, 0) + count
        for kind, count in result.get("attachments", {}).items():
            summary["attachments"][kind] = summary["attachments"].get(kind, 0) + count
    if failure:
        summary["failure"] = failure
        summary["kept"] = kept
    print(json.dumps(summary, indent=2))
    if failure:
        print(f"crash matrix FAILED (seed {seed}); logs and data of the failing iteration: {kept or workdir}")
        print(f"replay: scripts/crash-matrix/run.sh --seed {seed} --iterations {options.iterations}")
        return 1
    if not options.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
