"""Presence under the kill: the chat users' own signed-in WebSockets, one held open until the
server dies and others that come and go, so `presence/$uid` is written `online` and `offline`
while the kill lands. After the restart every entry must be `offline` (verify.py)."""
import time

from ws import WSConn

#: Seconds after its sign-in by which a user's `online` is surely written (the server's flush
#: window is 100 ms).
WRITTEN_WITHIN = 1.0


def presence(ctx, rng):
    """User 0 keeps a connection open; users 1 and 2 connect, sign in, stay 50-300 ms and close,
    in a loop. Notes `ctx.presence_held` (user 0's uid and when it signed in) and
    `ctx.presence_killed_at` (when the kill began)."""
    users = ctx.chat.users
    held = ctx.track(WSConn(ctx.port))
    ctx.expect_ws(held.call("auth", {"cred": users[0].id_token}), "presence auth")
    ctx.presence_held = (users[0].uid, time.monotonic())
    while not ctx.stop.is_set():
        user = users[1 + rng.randrange(2)]
        connection = ctx.track(WSConn(ctx.port))
        ctx.expect_ws(connection.call("auth", {"cred": user.id_token}), "presence auth")
        killed = ctx.killing.wait(rng.uniform(0.05, 0.3))
        connection.close()
        if killed:
            break
    ctx.presence_killed_at = time.monotonic() if ctx.killing.is_set() else None
