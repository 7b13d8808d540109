"""Blocks under kill -9: chat user 2 blocks and unblocks users 0 and 1 (`blockUser`,
`unblockUser`), one call at a time. Each call writes two keys in one commit, the block list's
entry and the marker the messages rule reads (docs/design.md, "Blocking"); both are tracked
like any key, and after the restart every block must be whole: entry and marker agree."""
import hashlib


def private_chat_id(a, b):
    """`CreateChat.chatID`: `p` and the first 128 bits of SHA-256 of the two uids in byte
    order with a NUL between them, in hex."""
    first, second = sorted([a.encode(), b.encode()])
    return "p" + hashlib.sha256(first + b"\0" + second).hexdigest()[:32]


def paths(blocker, blocked):
    """The block list entry and the marker of `blocker` blocking `blocked`."""
    return f"blocks/{blocker}/{blocked}", f"blockedSenders/{private_chat_id(blocker, blocked)}/{blocked}"


def blocks(ctx, rng):
    """User 2 (in the group only: the private chat is users 0 and 1's, so the messages the
    chat workers send are not refused) blocks or unblocks user 0 or 1 at random."""
    blocker = ctx.chat.users[2]
    targets = [user.uid for user in ctx.chat.users[:2]]
    for target in targets:
        for path in paths(blocker.uid, target):
            ctx.ledger.initial[("default", path)] = ctx.rest.read(path)
    while not ctx.stop.is_set():
        target = rng.choice(targets)
        block = rng.random() < 0.5
        entry_path, marker_path = paths(blocker.uid, target)
        entry = ctx.ledger.write(entry_path, True if block else None)
        marker = ctx.ledger.write(marker_path, blocker.uid if block else None)
        answer = ctx.rest.call("blockUser" if block else "unblockUser", {"uid": target}, blocker.id_token)
        what = "blockUser" if block else "unblockUser"
        ctx.settle(entry, answer, what)
        ctx.settle(marker, answer, what)
        ctx.stop.wait(rng.uniform(0, 0.05))


def tear(ctx):
    """For --inject torn-block: flips the marker of user 2's block of user 0 alone, as a
    block written without its marker (or left behind by an unblock) would leave it."""
    blocker, target = ctx.chat.users[2].uid, ctx.chat.users[0].uid
    _, marker_path = paths(blocker, target)
    marker = ctx.rest.read(marker_path)
    ctx.rest.db("PUT" if marker is None else "DELETE", marker_path, blocker if marker is None else None)


def online_checks(ctx, lookup):
    """Every block of user 2 is whole after the restart: its entry and its marker are both
    there (the marker naming the blocker) or both absent."""
    violations = []
    blocker = ctx.chat.users[2].uid
    for target in (user.uid for user in ctx.chat.users[:2]):
        entry_path, marker_path = paths(blocker, target)
        entry, marker = lookup("default", entry_path), lookup("default", marker_path)
        if (entry, marker) not in ((True, blocker), (None, None)):
            violations.append(f"torn block: /{entry_path} is {entry!r} but /{marker_path} is {marker!r}")
    return violations
