"""Load beyond plain writes: onDisconnect registrations, chat messages with their triggers and
callables, imports, rules reloads with index builds, and sign-ups."""
import json
import os
import time

import load_push
from load_data import token
from ws import WSConn


def on_disconnect(ctx, rng):
    """Opens admin connections that each put `a`, register an onDisconnect put of `a`, a merge
    of two parts, and a put of `z` which they then cancel; some close cleanly (their writes run
    then), the others are open when the server dies (their writes run when it starts again:
    docs/crash-matrix.md)."""
    open_connections = []
    for number in range(6):
        if ctx.stop.is_set():
            return
        base = f"{ctx.prefix}/odc/c{number}"
        connection = ctx.track(WSConn(ctx.port))
        ctx.expect_ws(connection.call("auth", {"cred": ctx.admin_secret}), "auth")
        alive = ctx.ledger.write(f"{base}/a", "alive")
        ctx.settle_ws(alive, connection.call("p", {"p": f"/{base}/a", "d": "alive"}), "put")
        gone = ctx.ledger.write(f"{base}/a", "gone")
        ctx.settle_ws(gone, connection.call("o", {"p": f"/{base}/a", "d": "gone"}), "onDisconnect put")
        tok = token(ctx, rng, "odcmerge")
        merged = ctx.ledger.group(base, ("b", "m/x"), tok)
        ctx.settle_ws(merged, connection.call("om", {"p": f"/{base}", "d": {"b": tok, "m/x": tok}}), "onDisconnect merge")
        cancelled = ctx.ledger.write(f"{base}/z", "gone-z")
        ctx.settle_ws(cancelled, connection.call("o", {"p": f"/{base}/z", "d": "gone-z"}), "onDisconnect put")
        cancelled.state = "pending"  # the cancel is on its way: the put may or may not run
        answer = connection.call("oc", {"p": f"/{base}/z"})
        if answer.get("s") == "ok":
            cancelled.refuse()
        else:
            ctx.note(f"onDisconnect cancel answered {answer!r}")
        if rng.random() < 0.4:
            connection.close()
        else:
            open_connections.append(connection)
        ctx.stop.wait(rng.uniform(0, 0.3))


def chat_messages(ctx, rng, user_index):
    """One chat user sends messages (REST push, or a WebSocket put at a key of its own) to the
    private chat and the group, and now and then calls markRead, createChat or deleteMessage
    (of one of its messages of this iteration)."""
    user = ctx.chat.users[user_index]
    chats = [ctx.chat.group] + ([ctx.chat.private] if user_index < 2 else [])
    connection = None
    if user_index == 0:
        connection = ctx.track(WSConn(ctx.port))
        ctx.expect_ws(connection.call("auth", {"cred": user.id_token}), "auth as a user")
    sent, mine = 0, []  # mine: (chat, key) of this iteration's acknowledged messages
    while not ctx.stop.is_set():
        chat = rng.choice(chats)
        text = token(ctx, rng, f"msg-u{user_index}")
        message = {"sender": user.uid, "text": text, "kind": "text", "sentAt": {".sv": "timestamp"}}
        choice = rng.random()
        if choice < 0.12:
            answer = ctx.rest.call("markRead", {"chatId": chat}, user.id_token)
            ctx.expect(answer, "markRead")
        elif choice < 0.16 and user_index < 2:
            answer = ctx.rest.call("createChat", {"participant": ctx.chat.users[1 - user_index].uid}, user.id_token)
            ctx.expect(answer, "createChat")
        elif choice < 0.22 and mine:
            chat, key = mine.pop(rng.randrange(len(mine)))
            entry = ctx.ledger.write(f"messages/{chat}/{key}/text", None)
            ctx.settle(entry, ctx.rest.call("deleteMessage", {"chatId": chat, "messageId": key}, user.id_token),
                       "deleteMessage")
        elif connection is not None and choice < 0.6:
            key = f"m{time.time_ns():020d}{user_index}{sent}"
            load_push.note_sent(ctx, chat, key, user_index, sent)
            entry = ctx.ledger.write(f"messages/{chat}/{key}/text", text)
            ctx.settle_ws(entry, connection.call("p", {"p": f"/messages/{chat}/{key}", "d": message}), "message put")
            if entry.state == "acked":
                mine.append((chat, key))
        else:
            answer = ctx.rest.db("POST", f"messages/{chat}", message, token=user.id_token)
            if answer.ok:
                load_push.note_sent(ctx, chat, answer.json()["name"], user_index, sent)
                ctx.ledger.write(f"messages/{chat}/{answer.json()['name']}/text", text).ack()
                mine.append((chat, answer.json()["name"]))
            ctx.expect(answer, "message POST")
        sent += 1


def imports(ctx, rng):
    """`hearth import` of a small document into a running server (found through the data
    directory), one key at a time; acknowledged when the command succeeds."""
    path = os.path.join(ctx.workdir, "import.json")
    number = 0
    while not ctx.stop.is_set():
        tok = token(ctx, rng, "import")
        document = {"token": tok, "nested": {"token": tok, "n": number}}
        parts = ("token", "nested/token")
        base = f"{ctx.prefix}/imp/k{number % 3}"
        if number % 4 == 3:  # a big one (about 1 MB, 10,000 leaves): memtable flushes, compactions
            document["blob"] = {f"x{leaf:05d}": tok for leaf in range(10000)}
            document["pad"] = "." * 500_000
            parts += ("blob/x00000", "blob/x09999")
            base = f"{ctx.prefix}/imp/big{number % 2}"
        with open(path, "w") as file:
            json.dump(document, file)
        entry = ctx.ledger.group(base, parts, tok)
        status, output = ctx.server.cli(["import", path, "--path", "/" + base, "--data", ctx.server.data], timeout=30)
        if status == 0:
            entry.ack()
        elif not ctx.stopped_soon():
            ctx.note(f"hearth import exited {status}: {output.strip()[-300:]}")
            return
        number += 1


BULK_ITEMS = 20000  # children of crashns /bulk, imported once: index builds over them take a while

RULES_VARIANTS = {"score": ["score"], "both": ["score", "name"], "name": ["name"], "none": None}


def rules_text(variant, stamp):
    index = RULES_VARIANTS[variant]
    index_line = f'".indexOn": {index!r},'.replace("'", '"') if index else ""
    return (f'{{\n  // crash matrix: variant {variant} ({stamp})\n  "rules": {{\n    ".read": false,\n'
            f'    ".write": false,\n    "items": {{ {index_line} "$id": {{}} }},\n'
            f'    "bulk": {{ {index_line} "$id": {{}} }}\n  }}\n}}\n')


def variant_of(text):
    for variant in RULES_VARIANTS:
        if f"variant {variant} (" in (text or ""):
            return variant
    return None


def rules_and_indexes(ctx, rng):
    """In namespace `crashns`: writes to `items` (24 children) and `bulk` (20,000) and changes
    the rules, alternately by
    `PUT /.settings/rules.json` and by rewriting the file in the rules folder (a reload); each
    new `.indexOn` builds an index."""
    step = 0
    while not ctx.stop.is_set():
        for _ in range(rng.randint(1, 4)):
            key = rng.choice([f"items/i{rng.randrange(24):02d}", f"bulk/b{rng.randrange(BULK_ITEMS):05d}"])
            name = token(ctx, rng, "item")
            list_name, child = key.split("/")
            before = (ctx.lists_before.get(list_name) or {}).get(child) or {}
            ctx.ledger.initial.setdefault(("crashns", f"{key}/name"), before.get("name"))
            entry = ctx.ledger.write(f"{key}/name", name, ns="crashns")
            ctx.settle(entry, ctx.rest.db("PUT", key, {"score": rng.randrange(10), "name": name}, ns="crashns"), "item PUT")
        text = rules_text(rng.choice(list(RULES_VARIANTS)), f"iteration {ctx.iteration} step {step}")
        entry = ctx.ledger.write("rules", text, ns="crashns.settings")
        if rng.random() < 0.5:
            answer = ctx.rest.db("PUT", ".settings/rules", text.encode(), ns="crashns", raw=True)
            ctx.settle(entry, answer, "rules PUT")
        else:
            temporary = os.path.join(ctx.server.rules_dir, ".crashns.rules.tmp")
            with open(temporary, "w") as file:
                file.write(text)
            os.replace(temporary, os.path.join(ctx.server.rules_dir, "crashns.rules.json"))
            entry.ack()
        step += 1
        ctx.stop.wait(rng.uniform(0, 0.2))


def anonymous_sign_ups(ctx, rng):
    """Anonymous sign-ups (no password hash: cheap); each acknowledged one must refresh its
    token after the restart."""
    while not ctx.stop.is_set():
        answer = ctx.rest.accounts("signUp", {"returnSecureToken": True})
        ctx.expect(answer, "anonymous signUp")
        body = answer.json()
        ctx.accounts.append({"uid": body["localId"], "refresh": body["refreshToken"], "iteration": ctx.iteration})
        ctx.stop.wait(rng.uniform(0, 0.1))


def password_sign_ups(ctx, rng):
    """Up to `--password-signups` e-mail sign-ups, each followed by a password change (each a
    scrypt hash: slow in a debug build); each acknowledged one must sign in after the restart
    with its password (either one while the change was unanswered)."""
    for number in range(ctx.password_signups):
        if ctx.stop.is_set():
            return
        email = f"crash-{ctx.seed}-{ctx.iteration}-{number}@example.com"
        answer = ctx.rest.accounts("signUp", {"email": email, "password": "first-pass", "returnSecureToken": True},
                                   timeout=120)
        ctx.expect(answer, "signUp")
        account = {"email": email, "uid": answer.json()["localId"], "passwords": ["first-pass"], "iteration": ctx.iteration}
        ctx.accounts.append(account)
        account["passwords"] = ["first-pass", "second-pass"]  # the change below may or may not be applied
        change = ctx.rest.accounts("update", {"idToken": answer.json()["idToken"], "password": "second-pass",
                                              "returnSecureToken": True}, timeout=120)
        ctx.expect(change, "accounts:update")
        account["passwords"] = ["second-pass"]
