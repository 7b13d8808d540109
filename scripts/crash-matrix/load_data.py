"""Load on the data tree: REST writes and multi-path updates, WebSocket puts and merges
(pipelined), and transactions (REST if-match and WebSocket hashes on one shared counter)."""
from ws import WSConn, leaf_string_hash


def token(ctx, rng, kind):
    return f"{kind}-{ctx.iteration}-{rng.getrandbits(40):010x}"


def rest_writes(ctx, rng):
    """PUT, DELETE, server-value increments, POST (push) and PATCH (multi-path, deep keys) as
    the admin, one at a time."""
    base = f"{ctx.prefix}/rest"
    while not ctx.stop.is_set():
        choice = rng.random()
        if choice < 0.55:
            key, value = f"{base}/k{rng.randrange(8)}", token(ctx, rng, "put")
            entry = ctx.ledger.write(key, value)
            answer = ctx.rest.db("PUT", key, value)
        elif choice < 0.62:
            key = f"{base}/k{rng.randrange(8)}"
            entry = ctx.ledger.write(key, None)
            answer = ctx.rest.db("DELETE", key)
        elif choice < 0.70:
            ctx.increments.begin()
            answer = ctx.rest.db("PUT", f"{ctx.prefix}/inc", {".sv": {"increment": 1}})
            ctx.increments.finish(answer.ok)
            ctx.expect(answer, "increment")
            continue
        elif choice < 0.78:
            value = token(ctx, rng, "push")
            answer = ctx.rest.db("POST", f"{base}/pushed", value)
            if answer.ok:
                ctx.ledger.write(f"{base}/pushed/{answer.json()['name']}", value).ack()
            ctx.expect(answer, "POST")
            continue
        else:
            tok, body, entries = token(ctx, rng, "patch"), {}, []
            for group in rng.sample(range(6), rng.randint(1, 3)):
                parts = ("a", "b/c", "d/e/f")
                entries.append(ctx.ledger.group(f"{ctx.prefix}/multi/g{group}", parts, tok))
                body.update({f"g{group}/{part}": tok for part in parts})
            answer = ctx.rest.db("PATCH", f"{ctx.prefix}/multi", body)
            for entry in entries:
                ctx.settle(entry, answer, "PATCH")
            continue
        ctx.settle(entry, answer, "PUT/DELETE")


def ws_writes(ctx, rng):
    """Puts and merges on one admin WebSocket, up to eight requests in flight."""
    connection = ctx.track(WSConn(ctx.port))
    ctx.expect_ws(connection.call("auth", {"cred": ctx.admin_secret}), "auth")
    in_flight = []  # (request, [entries])
    while not ctx.stop.is_set():
        window = rng.randint(1, 8)
        while len(in_flight) < window:
            if rng.random() < 0.7:
                key, value = f"{ctx.prefix}/ws/k{rng.randrange(8)}", token(ctx, rng, "wsput")
                entries = [ctx.ledger.write(key, value)]
                request = connection.send("p", {"p": "/" + key, "d": value})
            else:
                tok, body, entries = token(ctx, rng, "wsmerge"), {}, []
                for group in rng.sample(range(6), rng.randint(1, 2)):
                    parts = ("a", "b/c")
                    entries.append(ctx.ledger.group(f"{ctx.prefix}/wsmulti/g{group}", parts, tok))
                    body.update({f"g{group}/{part}": tok for part in parts})
                request = connection.send("m", {"p": f"/{ctx.prefix}/wsmulti", "d": body})
            in_flight.append((request, entries))
        request, entries = in_flight.pop(0)
        answer = connection.wait(request)
        for entry in entries:
            if answer.get("s") == "ok":
                entry.ack()
            else:
                entry.refuse()
                ctx.note(f"WebSocket write refused: {answer!r}")


def rest_transactions(ctx, rng):
    """Increments the shared counter by GET with ETag, then PUT with if-match (412: retry)."""
    path = f"{ctx.prefix}/txn/counter"
    while not ctx.stop.is_set():
        current = ctx.rest.db("GET", path, headers={"X-Firebase-ETag": "true"})
        ctx.expect(current, "GET with ETag")
        value = current.json()
        ctx.counter.begin()
        answer = ctx.rest.db(
            "PUT", path, str(int(value or 0) + 1), headers={"if-match": current.headers.get("ETag", "")}
        )
        ctx.counter.finish(answer.ok)
        if answer.status != 412:
            ctx.expect(answer, "conditional PUT")


def ws_transactions(ctx, rng):
    """Increments the shared counter as the SDK's transactions do: a put with the hash of the
    value it read (`datastale`: read again and retry)."""
    path = f"/{ctx.prefix}/txn/counter"
    connection = ctx.track(WSConn(ctx.port))
    ctx.expect_ws(connection.call("auth", {"cred": ctx.admin_secret}), "auth")
    while not ctx.stop.is_set():
        read = connection.call("g", {"p": path, "q": {}})
        ctx.expect_ws(read, "get")
        value = read.get("d")
        ctx.counter.begin()
        answer = connection.call("p", {"p": path, "d": str(int(value or 0) + 1), "h": leaf_string_hash(value)})
        ctx.counter.finish(answer.get("s") == "ok")
        if answer.get("s") not in ("ok", "datastale"):
            ctx.note(f"WebSocket transaction answered {answer!r}")
