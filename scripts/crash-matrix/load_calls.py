"""Calls under kill -9 (docs/crash-matrix.md, "Calls"): users 0-2 ring three chats with
`startCall` and nobody answers, so calls ring while the kill lands and the server's durable
missed-call timer must mark each `missed` once its ring timeout passed, also across the restart
(at once when it fell due while the server was down).

The server runs with `--call-ring-timeout RING_TIMEOUT` (a few seconds rather than the contract's
45, so that calls fall due within an iteration and during the restarts); a binary without the
option (or without `startCall`) runs no calls. After each restart every call of the run is
`ringing` or `missed`, a missed call rang its whole timeout (`endedAt - createdAt` at least the
timeout), no call rings more than RING_SLACK past its due time, no chat rings twice at once, and
every acknowledged `startCall` left its call. Each call's push is checked with the pushes
(load_push.py): user 3, in two of the chats and never online, gets one on each device.
"""
import time

#: Seconds a call rings before the server marks it missed (`hearth serve --call-ring-timeout`).
RING_TIMEOUT = 3
#: Seconds a call may still ring after its due time when checked (the timer looks every second
#: and at each due time; a loaded debug server can be late).
RING_SLACK = 10.0


def supported(server):
    """Whether the binary has calls with a configurable ring timeout."""
    status, output = server.cli(["serve", "--help"])
    return status == 0 and "--call-ring-timeout" in output


class CallChat:
    __slots__ = ("chat_id", "callers", "with_user_3")

    def __init__(self, chat_id, callers, with_user_3):
        self.chat_id, self.callers, self.with_user_3 = chat_id, callers, with_user_3


def make_chats(rest, chat):
    """The chats calls ring in: the group (users 0-3), the private chat of users 0 and 1, and a
    group of users 1-3 of its own (made by user 2). User 3 never calls."""
    users = chat.users
    body = {"name": "Crash calls", "participants": [users[1].uid, users[3].uid]}
    answer = rest.call("createGroup", body, users[2].id_token)
    if not answer.ok:
        raise RuntimeError(f"createGroup of the calls group: {answer!r}")
    calls_group = answer.json()["result"]["chatId"]
    return [CallChat(chat.group, [0, 1, 2], True), CallChat(chat.private, [0, 1], False),
            CallChat(calls_group, [1, 2], True)]


def before_load(ctx, state, rest):
    """The calls that exist before the load (shallow), so the checks know this iteration's."""
    ctx.calls_started = []  # (call id, chat id, caller uid) of each acknowledged startCall
    if not state.call_chats:
        ctx.calls_before = set()
        return
    answer = rest.db("GET", "calls", query={"shallow": "true"})
    if not answer.ok:
        raise RuntimeError(f"shallow GET of /calls: {answer!r}")
    ctx.calls_before = set((answer.json() or {}).keys())


def calls(ctx, rng):
    """Rings a chat at random as one of its members (audio or video), one call at a time; a
    chat that still rings answers FAILED_PRECONDITION (one ringing call per chat)."""
    chats = ctx.call_chats
    while chats and not ctx.stop.is_set():
        chat = rng.choice(chats)
        caller = ctx.chat.users[rng.choice(chat.callers)]
        data = {"chatId": chat.chat_id, "kind": rng.choice(["audio", "video"]), "offer": "v=0 crash-matrix offer"}
        answer = ctx.rest.call("startCall", data, caller.id_token)
        if answer.ok:
            with ctx.lock:
                ctx.calls_started.append((answer.json()["result"]["callId"], chat.chat_id, caller.uid))
        elif answer.status != 400 or "FAILED_PRECONDITION" not in answer.body:
            ctx.expect(answer, "startCall")
        ctx.stop.wait(rng.uniform(0.05, 0.3))


def online_checks(ctx, state):
    """Every call of the run, read now from the restarted server: see the module's doc."""
    if not state.call_chats:
        return []
    violations = []
    timeout_ms, slack_ms = RING_TIMEOUT * 1000, RING_SLACK * 1000
    read_at = time.time() * 1000
    calls_now = ctx.rest.read("calls") or {}
    for call_id, chat_id, caller in ctx.calls_started:
        if call_id not in calls_now:
            violations.append(f"acknowledged startCall in {chat_id} by {caller}: /calls/{call_id} is missing")
    ringing_by_chat, missed, latest = {}, 0, 0.0
    down = (ctx.killed_at * 1000, ctx.restarted_at * 1000)  # the server was down (or starting) in between
    due_while_down, marked_after_start = 0, 0.0
    for call_id, call in calls_now.items():
        state_now, created, ended = call.get("state"), call.get("createdAt"), call.get("endedAt")
        if state_now == "missed":
            missed += 1
            if not isinstance(ended, (int, float)) or ended - created < timeout_ms:
                violations.append(f"/calls/{call_id} missed {ended and (ended - created) / 1000} s after its "
                                  f"createdAt, before its ring timeout of {RING_TIMEOUT} s")
            else:
                latest = max(latest, ended - created - timeout_ms)
            if down[0] <= created + timeout_ms <= down[1]:  # due while the server was down: marked at its start
                due_while_down += 1
                marked_after_start = max(marked_after_start, ended - down[1])
        elif state_now == "ringing":
            ringing_by_chat.setdefault(call.get("chatId"), []).append(call_id)
            if down[0] <= created + timeout_ms <= down[1]:
                due_while_down += 1
            if read_at - created > timeout_ms + slack_ms:
                violations.append(f"/calls/{call_id} still rings {(read_at - created) / 1000:.1f} s after its createdAt "
                                  f"(ring timeout {RING_TIMEOUT} s): stuck")
        else:
            violations.append(f"/calls/{call_id} is {state_now!r}; nobody answered, declined or ended it: "
                              f"ringing or missed expected")
    for chat_id, ringing in ringing_by_chat.items():
        if len(ringing) > 1:
            violations.append(f"chat {chat_id} rings {len(ringing)} calls at once: {ringing}")
    ctx.call_facts = {"started": len(ctx.calls_started), "missed_in_all": missed,
                      "ringing_at_check": sum(len(ids) for ids in ringing_by_chat.values()),
                      "latest_missed_s": round(latest / 1000, 2), "due_while_down": due_while_down,
                      "marked_after_start_s": round(marked_after_start / 1000, 2)}
    return violations


def calls_for_user_3(ctx, state, calls_now):
    """This iteration's calls (in the tree now, not before the load) in the chats user 3 is a
    member of: each rang user 3's devices."""
    chats = {chat.chat_id for chat in state.call_chats if chat.with_user_3}
    user_3 = ctx.chat.users[3].uid
    return {call_id for call_id, call in calls_now.items()
            if call_id not in ctx.calls_before and call.get("chatId") in chats and call.get("caller") != user_3}
