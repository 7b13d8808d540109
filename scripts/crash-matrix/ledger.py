"""What the clients of one iteration asked for and what the server acknowledged, and the check
of what a restarted server shows against it.

Every tracked key (a namespace and a path) is written by one client only, in order (one REST
request at a time, or pipelined on one WebSocket, whose requests the server applies in order),
so its writes form one sequence. An entry is `pending` from the moment it is sent until the
answer: `acked` (it must be there), `refused` (an answer that says it was not applied: a 412,
`datastale`, a cancelled onDisconnect) or still `pending` when the server died (it may or may
not have been applied). After a restart the key must hold the value of its last acknowledged
write, or of a later write still pending at the kill (a pending write may have been applied, and
it then replaces the acknowledged one). With no acknowledged write it holds its value from
before the iteration (`initial`) or a pending one.

A group is a multi-path update written by one client: every update writes all of its parts with
one token, so a restarted server must show every part with the same token or none of them.
"""
import threading

PENDING, ACKED, REFUSED = "pending", "acked", "refused"


class Entry:
    __slots__ = ("value", "state")

    def __init__(self, value):
        self.value = value
        self.state = PENDING

    def ack(self):
        self.state = ACKED

    def refuse(self):
        self.state = REFUSED


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.keys = {}  # (ns, path) -> [Entry]
        self.groups = {}  # (ns, base, parts) -> [Entry]
        self.initial = {}  # (ns, path) or group key -> value before the iteration

    def write(self, path, value, ns="default"):
        """Records a write about to be sent; the caller acks or refuses the entry it returns."""
        entry = Entry(value)
        with self.lock:
            self.keys.setdefault((ns, path.strip("/")), []).append(entry)
        return entry

    def group(self, base, parts, token, ns="default"):
        """Records a multi-path update of `parts` (paths under `base`) all set to `token`."""
        entry = Entry(token)
        with self.lock:
            self.groups.setdefault((ns, base.strip("/"), tuple(parts)), []).append(entry)
        return entry

    def counts(self):
        entries = [e for history in list(self.keys.values()) + list(self.groups.values()) for e in history]
        return {state: sum(1 for e in entries if e.state == state) for state in (PENDING, ACKED, REFUSED)}

    def acked_by_kind(self):
        """Acknowledged writes by what they were: `rest`, `ws`, `multi`, `odc`, `imp`,
        `messages`, `items`, `rules`, ..."""
        kinds = {}
        for (ns, path), history in list(self.keys.items()) + [((g[0], g[1]), h) for g, h in self.groups.items()]:
            if ns == "crashns.settings":
                kind = "rules"
            elif ns == "crashns":
                kind = "items"
            else:
                segments = path.split("/")
                kind = segments[2] if segments[0] == "crash" and len(segments) > 2 else segments[0]
            kinds[kind] = kinds.get(kind, 0) + sum(1 for entry in history if entry.state == ACKED)
        return kinds

    def check(self, lookup):
        """Violations (strings) of what `lookup(ns, path)` shows against the recorded writes."""
        violations = []
        for (ns, path), history in sorted(self.keys.items()):
            observed = lookup(ns, path)
            allowed = allowed_values(history, self.initial.get((ns, path)))
            if observed not in allowed:
                violations.append(describe("lost or wrong write", ns, path, observed, allowed, history))
        for (ns, base, parts), history in sorted(self.groups.items()):
            values = [lookup(ns, f"{base}/{part}") for part in parts]
            if any(value != values[0] for value in values):
                shown = dict(zip(parts, values))
                violations.append(f"partial multi-path update at {ns}:/{base}: parts {shown}")
                continue
            allowed = allowed_values(history, self.initial.get((ns, base, parts)))
            if values[0] not in allowed:
                violations.append(describe("lost multi-path update", ns, base, values[0], allowed, history))
        return violations


def allowed_values(history, initial):
    last_acked = max((i for i, entry in enumerate(history) if entry.state == ACKED), default=None)
    if last_acked is None:
        allowed = [initial]
        start = 0
    else:
        allowed = [history[last_acked].value]
        start = last_acked + 1
    allowed += [entry.value for entry in history[start:] if entry.state == PENDING]
    return allowed


def describe(what, ns, path, observed, allowed, history):
    trail = ", ".join(f"{entry.value!r}:{entry.state}" for entry in history[-6:])
    return f"{what} at {ns}:/{path}: found {observed!r}, expected one of {allowed!r} (last writes: {trail})"


class Counter:
    """A counter that clients increment by one, by compare-and-set (REST if-match, WebSocket
    hash) or by the server value `increment`. Every applied increment moves it by one, so after
    a restart it must lie between the acknowledged increments and those plus the ones still
    pending at the kill."""

    def __init__(self, start=0):
        self.lock = threading.Lock()
        self.start = start
        self.acked = 0
        self.pending = 0

    def begin(self):
        with self.lock:
            self.pending += 1

    def finish(self, applied):
        with self.lock:
            self.pending -= 1
            if applied:
                self.acked += 1

    def check(self, observed, where):
        low, high = self.start + self.acked, self.start + self.acked + self.pending
        if not isinstance(observed, int) or not low <= observed <= high:
            return [f"counter {where}: found {observed!r}, expected {low}..{high} "
                    f"({self.acked} acknowledged increments, {self.pending} pending at the kill)"]
        return []
