"""One iteration's load: the context the workers share, the chat app's users and chats, and the
harness that runs the workers until the server is killed."""
import random
import threading
import time
import traceback

import load_app
import load_attachments
import load_blocks
import load_calls
import load_data
import load_presence
import load_storage
from rest import HTTPFailure
from ws import WSClosed


class Unexpected(Exception):
    """An answer a running server should not have given (already noted); ends the worker."""


class Context:
    def __init__(self, **fields):
        self.__dict__.update(fields)
        self.stop = threading.Event()
        self.killing = threading.Event()
        self.notes = []
        self.connections = []
        self.lock = threading.Lock()

    def note(self, text):
        at = time.monotonic() - self.load_started if getattr(self, "load_started", None) else 0.0
        with self.lock:
            self.notes.append(f"[{at:.2f} s] {text}")

    def stopped_soon(self):
        """Whether the server is being killed: a failure then is the kill's doing."""
        return self.killing.wait(2.0)

    def track(self, connection):
        with self.lock:
            self.connections.append(connection)
        return connection

    def settle(self, entry, answer, what):
        if answer.ok:
            entry.ack()
        elif answer.status < 500:
            entry.refuse()
            self.note(f"{what} refused: {answer!r}")
        else:
            self.note(f"{what} failed: {answer!r}")

    def settle_ws(self, entry, body, what):
        if body.get("s") == "ok":
            entry.ack()
        else:
            entry.refuse()
            self.note(f"{what} answered {body!r}")

    def expect(self, answer, what):
        if not answer.ok:
            self.note(f"{what}: {answer!r}")
            raise Unexpected()

    def expect_ws(self, body, what):
        if body.get("s") != "ok":
            self.note(f"{what} answered {body!r}")
            raise Unexpected()


class ChatUser:
    def __init__(self, uid, id_token, refresh):
        self.uid, self.id_token, self.refresh = uid, id_token, refresh


class Chat:
    """Four anonymous accounts with profiles, the private chat of users 0 and 1 and a group of
    all four: made once per run, before the first kill. Users 0-2 send messages and connect
    (presence); user 3 never does anything but receive pushes (load_push.py)."""

    def __init__(self, rest):
        self.users = []
        for number in range(4):
            answer = rest.accounts("signUp", {"returnSecureToken": True})
            body = require(answer, "signUp of a chat user")
            user = ChatUser(body["localId"], body["idToken"], body["refreshToken"])
            profile = {"displayName": f"Crash User {number}", "createdAt": {".sv": "timestamp"}}
            require(rest.db("PUT", f"users/{user.uid}", profile, token=user.id_token), "profile PUT")
            self.users.append(user)
        first = self.users[0]
        self.private = require(rest.call("createChat", {"participant": self.users[1].uid}, first.id_token), "createChat")["result"]["chatId"]
        group = {"name": "Crash group", "participants": [user.uid for user in self.users[1:]]}
        self.group = require(rest.call("createGroup", group, first.id_token), "createGroup")["result"]["chatId"]

    def refresh_tokens(self, rest):
        """New ID tokens from the refresh tokens (also a check that they survived the restart)."""
        for user in self.users:
            answer = rest.refresh(user.refresh)
            body = require(answer, f"token refresh of chat user {user.uid}")
            if body.get("user_id") != user.uid:
                raise RuntimeError(f"token refresh of {user.uid} answered user {body.get('user_id')}")
            user.id_token = body["id_token"]


def require(answer, what):
    if not answer.ok:
        raise RuntimeError(f"{what}: {answer!r}")
    return answer.json()


WORKERS = [
    ("rest-writes", load_data.rest_writes, ()),
    ("ws-writes", load_data.ws_writes, ()),
    ("rest-transactions", load_data.rest_transactions, ()),
    ("ws-transactions", load_data.ws_transactions, ()),
    ("on-disconnect", load_app.on_disconnect, ()),
    ("chat-0", load_app.chat_messages, (0,)),
    ("chat-1", load_app.chat_messages, (1,)),
    ("chat-2", load_app.chat_messages, (2,)),
    ("blocks", load_blocks.blocks, ()),
    ("attachments", load_attachments.attachments, ()),
    ("imports", load_app.imports, ()),
    ("rules", load_app.rules_and_indexes, ()),
    ("anonymous-sign-ups", load_app.anonymous_sign_ups, ()),
    ("password-sign-ups", load_app.password_sign_ups, ()),
    ("storage-0", load_storage.uploads, (0,)),
    ("storage-1", load_storage.uploads, (1,)),
    ("storage-2", load_storage.uploads, (2,)),
    ("presence", load_presence.presence, ()),
    ("calls", load_calls.calls, ()),
]


def run_worker(ctx, name, work, arguments):
    rng = random.Random(f"{ctx.seed}-{ctx.iteration}-{name}")
    try:
        work(ctx, rng, *arguments)
    except (HTTPFailure, WSClosed) as error:
        if not ctx.stopped_soon():
            ctx.note(f"{name}: {error}")
    except Unexpected:
        pass
    except Exception:
        ctx.note(f"{name} broke (a bug in the matrix): {traceback.format_exc()}")


def run_and_kill(ctx, kill_after):
    """Runs every worker, kills the server `kill_after` seconds in, and waits (bounded) for the
    workers to notice. Answers the seconds the load ran."""
    threads = [threading.Thread(target=run_worker, args=(ctx, name, work, arguments), name=name, daemon=True)
               for name, work, arguments in WORKERS]
    started = ctx.load_started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(kill_after)
    ctx.kill_to_exit = ctx.server.kill(ctx.killing)
    ctx.stop.set()
    ran = time.monotonic() - started
    deadline = time.monotonic() + 40
    for thread in threads:
        thread.join(timeout=max(0.1, deadline - time.monotonic()))
        if thread.is_alive():
            ctx.note(f"worker {thread.name} did not stop within 40 s of the kill")
    for connection in ctx.connections:
        connection.close()
    return ran
