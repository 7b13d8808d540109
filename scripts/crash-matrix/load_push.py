"""Push notifications under kill -9 (docs/crash-matrix.md, "Pushes"): the chat users' devices,
the order each sender sent its messages in, and the checks after the restart, once the push
queue drained, against what the webhook receiver (push_receiver.py) recorded.

A message's push intent is queued in the message's own commit, and the queue plans it into one
push per device of every other member who is not `online` right after, so the matrix asserts
that nothing is lost only for user 3, a group member who never connects (never online). Every
push of any user must name a message that committed (it exists after the restart, or an
acknowledged `deleteMessage` removed it later), come from a registered device's token, reach a
device in its sender's order, and be delivered at most once per server run: an accepted push is
removed from the queue in a commit before the device's next one is taken, so only a kill between
the acceptance and that commit sends it again, from the next run, with the same id.
"""
import time

import load_calls

#: Each user's devices: (device id, platform). User 3 has two, so "each of its devices" means
#: something.
DEVICES = [
    [("phone", "fcm")],
    [("phone", "apns"), ("laptop", "webpush")],
    [("phone", "fcm")],
    [("phone", "fcm"), ("tablet", "apns")],
]

#: Seconds the queue has by default to drain (nothing queued, no intent left) after the
#: restart (`--push-drain-timeout`). The push service runs at a lower priority than serving
#: (docs/decisions/0018-push-delivery-beside-serving.md), so on a box saturated by other work
#: (parallel builds) it delivers slowly: generous.
DRAIN_TIMEOUT = 90.0


class Device:
    __slots__ = ("uid", "user_index", "device_id", "platform", "token")

    def __init__(self, uid, user_index, device_id, platform, token):
        self.uid, self.user_index, self.device_id, self.platform, self.token = uid, user_index, device_id, platform, token


def register_devices(rest, chat, seed):
    """Each chat user registers its devices the way its app does: its own write of
    `devices/$uid/$deviceId` under the shipped rules, with its own ID token. Answers the devices
    by (uid, device id)."""
    devices = {}
    for index, user in enumerate(chat.users):
        for device_id, platform in DEVICES[index]:
            token = f"crash-{seed}-u{index}-{device_id}"
            body = {"token": token, "platform": platform, "updatedAt": {".sv": "timestamp"}}
            answer = rest.db("PUT", f"devices/{user.uid}/{device_id}", body, token=user.id_token)
            if not answer.ok:
                raise RuntimeError(f"device registration of user {index} ({device_id}) under the shipped rules: {answer!r}")
            devices[(user.uid, device_id)] = Device(user.uid, index, device_id, platform, token)
    return devices


def note_sent(ctx, chat, key, user_index, number):
    """Records that chat user `user_index` sent its `number`th message of the iteration as
    `messages/CHAT/KEY` (one at a time: its messages commit in this order)."""
    with ctx.lock:
        ctx.push_sent[key] = (user_index, number, chat)


def before_load(ctx, state, rest):
    """What the push checks need from before the load: the group's message keys."""
    answer = rest.db("GET", f"messages/{ctx.chat.group}", query={"shallow": "true"})
    if not answer.ok:
        raise RuntimeError(f"shallow GET of the group's messages: {answer!r}")
    ctx.push_group_before = set((answer.json() or {}).keys())
    ctx.push_sent = {}


def queue_figures(ctx):
    """The default namespace's push queue figures (`GET /.settings/push.json`), or None while
    the push service has not started there."""
    answer = ctx.rest.request("GET", "/.settings/push.json", headers={"Authorization": f"Bearer {ctx.admin_secret}"})
    if not answer.ok:
        raise RuntimeError(f"GET /.settings/push.json: {answer!r}")
    return ((answer.json() or {}).get("namespaces") or {}).get("default")


def wait_for_drain(ctx):
    """Polls the queue until nothing is queued and no intent is left; answers (seconds waited,
    None) or (seconds, the last figures) when it did not drain within `ctx.push_drain_timeout`."""
    started = time.monotonic()
    figures = None
    while time.monotonic() - started < ctx.push_drain_timeout:
        figures = queue_figures(ctx)
        if figures is not None and figures.get("queued") == 0 and figures.get("intents") == 0:
            ctx.push_figures = figures
            return time.monotonic() - started, None
        time.sleep(0.1)
    return time.monotonic() - started, figures or "no queue for default"


def expected_for_user_3(ctx, tree):
    """The group messages of this iteration that committed, sent by someone else than user 3:
    those the restarted server shows that were not there before the load (acknowledged, or
    pending at the kill and applied), and every acknowledged one (deleted later or not)."""
    group, user_3 = ctx.chat.group, ctx.chat.users[3].uid
    shown = (tree.lookup("default", f"messages/{group}") or {})
    expected = {key for key, message in shown.items()
                if key not in ctx.push_group_before and (message or {}).get("sender") != user_3}
    prefix = f"messages/{group}/"
    for (ns, path), history in ctx.ledger.keys.items():
        if ns == "default" and path.startswith(prefix) and history[0].value is not None and history[0].state == "acked":
            expected.add(path[len(prefix):].split("/")[0])
    return expected


def deleted_messages(ctx):
    """(chat, key) of every message a `deleteMessage` of this iteration was sent for (each was
    acknowledged before: the chat workers delete only their acknowledged messages)."""
    deleted = set()
    for (ns, path), history in ctx.ledger.keys.items():
        segments = path.split("/")
        if ns == "default" and segments[0] == "messages" and any(entry.value is None for entry in history):
            deleted.add((segments[1], segments[2]))
    return deleted


def online_checks(ctx, state, tree):
    """Run on the restarted server after the other checks (`tree` was read right after the
    restart): waits for the queue to drain, then checks what the receiver got this iteration."""
    receiver = ctx.server.push
    violations = []
    expected = expected_for_user_3(ctx, tree)
    calls_now = ctx.rest.read("calls") or {}  # no call starts after the restart
    expected_calls = load_calls.calls_for_user_3(ctx, state, calls_now)
    waited, stuck = wait_for_drain(ctx)
    if stuck is not None:  # then what is missing may still be queued: no "lost" verdicts
        violations.append(f"the push queue did not drain within {ctx.push_drain_timeout:.0f} s of the restart: {stuck}")
    deliveries, problems, failed = receiver.since(state.push_mark)
    state.push_mark = receiver.mark()
    violations += problems
    messages_now = ctx.rest.read("messages") or {}
    state.push_deleted |= deleted_messages(ctx)
    duplicates, firsts = 0, []  # firsts: the first delivery of each push, in the order they came
    same_run = {"current": [], "killed": []}  # deliveries again from a run that had delivered them
    for delivery in deliveries:
        device = state.devices.get((delivery.uid, delivery.device))
        if device is None or (delivery.token, delivery.platform) != (device.token, device.platform):
            violations.append(f"push {delivery.id} to an unregistered device or token: {delivery.uid}/{delivery.device} "
                              f"{delivery.token!r} ({delivery.platform})")
        if delivery.message is not None:
            exists = delivery.message in (messages_now.get(delivery.chat) or {})
            if not exists and (delivery.chat, delivery.message) not in state.push_deleted:
                violations.append(f"push {delivery.id} for message /messages/{delivery.chat}/{delivery.message}, "
                                  f"which does not exist after the restart (never committed)")
        elif delivery.call not in calls_now:
            violations.append(f"push {delivery.id} for call /calls/{delivery.call}, which does not exist after the restart")
        runs = state.push_runs.setdefault(delivery.id, [])
        if delivery.generation in runs:
            same_run["current" if delivery.generation == receiver.generation else "killed"].append(delivery)
        if runs:
            duplicates += 1
        else:
            firsts.append(delivery)
        runs.append(delivery.generation)
    user_3 = ctx.chat.users[3].uid
    for (uid, device_id), device in state.devices.items():
        if uid != user_3 or stuck is not None:
            continue
        got = {d.message for d in deliveries if (d.uid, d.device) == (uid, device_id) and d.chat == ctx.chat.group}
        for key in sorted(expected - got):
            violations.append(f"push lost: /messages/{ctx.chat.group}/{key} committed but user 3's device "
                              f"{device_id} got no push for it")
        rung = {d.call for d in deliveries if (d.uid, d.device) == (uid, device_id) and d.call is not None}
        for call_id in sorted(expected_calls - rung):
            violations.append(f"call push lost: /calls/{call_id} committed but user 3's device {device_id} got no push for it")
    # A run sends an accepted push again only when it did not see the acceptance: the request
    # timed out or its connection failed (on a starved box), which its figures count. Those of
    # the killed run are gone: its repeats are counted, not judged.
    run_failures = (getattr(ctx, "push_figures", None) or {}).get("failed") or {}
    transport_failures = sum(count for reason, count in run_failures.items() if not reason.startswith("http_"))
    if stuck is None and len(same_run["current"]) > transport_failures:
        for delivery in same_run["current"]:
            violations.append(f"push {delivery.id} ({delivery.uid}/{delivery.device}, message {delivery.message}) "
                              f"delivered twice by one server run, which saw {transport_failures} timed-out or "
                              f"failed attempts for {len(same_run['current'])} repeats (failed: {run_failures})")
    order_violations, inversions, ordered = order_checks(ctx, state, firsts)
    violations += order_violations
    ctx.push_facts = {"delivered": len(deliveries), "answered_500": failed, "duplicates": duplicates,
                      "expected_for_user_3": len(expected) * len(DEVICES[3]),
                      "expected_calls_for_user_3": len(expected_calls) * len(DEVICES[3]), "drain_s": round(waited, 2),
                      "order_checked": ordered, "key_order_inversions": inversions,
                      "again_after_a_transport_failure": len(same_run["current"]),
                      "again_in_the_killed_run": len(same_run["killed"]),
                      "most_deliveries_of_one_push": max((len(state.push_runs[d.id]) for d in deliveries), default=0)}
    return violations


def order_checks(ctx, state, firsts):
    """Each device's first deliveries of this iteration: every sender's messages in the order
    it sent them (exact: one sender's messages commit in that order, and a device's pushes go
    in commit order, its next one only after the last one's removal committed). Answers the
    violations, how many neighbouring pushes of a device are out of message-key order (not a
    violation: two senders' keys do not follow their commits, nor do REST push ids and
    WebSocket keys), and how many pushes were ordered."""
    violations, inversions, ordered = [], 0, 0
    by_device = {}
    for delivery in firsts:
        if delivery.message is not None:
            by_device.setdefault((delivery.uid, delivery.device), []).append(delivery)
    for (uid, device_id), pushes in by_device.items():
        last_of_sender = {}
        for previous, delivery in zip([None] + pushes, pushes):
            if previous is not None and delivery.message < previous.message:
                inversions += 1
            sent = ctx.push_sent.get(delivery.message)
            if sent is None:
                continue  # not this iteration's, or a POST whose answer the kill cut off
            sender, number, _ = sent
            ordered += 1
            if number < last_of_sender.get(sender, (-1, None))[0]:
                earlier = last_of_sender[sender][1]
                violations.append(f"pushes out of order on {uid}/{device_id}: user {sender}'s message {number} "
                                  f"({delivery.message}) arrived after its message {last_of_sender[sender][0]} ({earlier})")
            last_of_sender[sender] = (number, delivery.message)
    return violations, inversions, ordered
