#!/usr/bin/env python3
"""Check seed/fireside.json against the contract's chat schema and its invariants.

    python3 scripts/check-seed.py [FILE]

Prints every violation, then `ok: ...` or `N problem(s)`; exits 1 when any invariant fails.
Python 3 standard library only.
"""

import hashlib
import json
import os
import re
import sys

PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
E164 = re.compile(r"^\+[1-9][0-9]{6,14}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
PUSH_ID = re.compile(r"^[-0-9A-Za-z_]{20}$")
BAD_KEY = re.compile(r"[.#$\[\]/\x00-\x1f\x7f]")
INT_KEY = re.compile(r"^-?(0|[1-9][0-9]*)$")

MIN_USERS, CHATS, MIN_MESSAGES = 30, 13, 400
MIN_CONTACTS = 20

problems = []


def fail(message):
    problems.append(message)


def push_time(push_id):
    t = 0
    for ch in push_id[:8]:
        t = t * 64 + PUSH_CHARS.index(ch)
    return t


def derived_chat_id(uid_a, uid_b):
    """The id createChat gives the private chat of a pair (CreateChat.chatID)."""
    first, second = sorted([uid_a.encode(), uid_b.encode()])
    return "p" + hashlib.sha256(first + b"\0" + second).digest()[:16].hex()


def utf16_key(s):
    """Firebase/JavaScript string order: by UTF-16 code units."""
    return s.encode("utf-16-be")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_firebase_tree(node, path):
    """Every key is a valid Firebase key; no nulls, empty objects, arrays or integer-like keys."""
    if node is None:
        fail(f"{path}: null value (Firebase stores no nulls)")
    elif isinstance(node, list):
        fail(f"{path}: array (use objects keyed by id)")
    elif isinstance(node, dict):
        if not node:
            fail(f"{path}: empty object (Firebase stores no empty objects)")
        for key, child in node.items():
            if not key or BAD_KEY.search(key) or len(key.encode()) > 768:
                fail(f"{path}: invalid key {key!r}")
            if INT_KEY.match(key):
                fail(f"{path}: integer-like key {key!r} (could render as an array)")
            check_firebase_tree(child, f"{path}/{key}")


def check_fields(obj, path, required, optional=()):
    if not isinstance(obj, dict):
        fail(f"{path}: expected an object")
        return False
    for field in required:
        if field not in obj:
            fail(f"{path}: missing '{field}'")
    for field in obj:
        if field not in required and field not in optional:
            fail(f"{path}: unexpected field '{field}'")
    return True


def read_avatars(seed_dir):
    """seed/files.json (the files the server uploads at first start), each file checked to exist."""
    path = os.path.join(seed_dir, "files.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest.get("objects", []):
        file = os.path.join(seed_dir, entry.get("file", ""))
        if not os.path.isfile(file):
            fail(f"files.json: {entry.get('name')!r} names {entry.get('file')!r}, which is not a file")
        elif entry.get("contentType") == "image/png":
            with open(file, "rb") as image:
                if image.read(8) != b"\x89PNG\r\n\x1a\n":
                    fail(f"files.json: {entry.get('file')!r} is not a PNG")
    return manifest


def check(data, seed_dir):
    avatars = read_avatars(seed_dir)
    avatar_entries = {entry.get("name"): entry for entry in avatars.get("objects", [])}
    check_firebase_tree(data, "")
    expected_top = {
        "users", "chats", "members", "messages", "userChats", "unreadTotals", "contacts", "blocks", "blockedSenders",
        "devices", "calls",
    }
    if set(data) != expected_top:
        fail(f"top-level keys {sorted(data)} != {sorted(expected_top)}")
        return
    users, chats, members = data["users"], data["chats"], data["members"]
    messages, user_chats, totals = data["messages"], data["userChats"], data["unreadTotals"]

    # users/$uid
    if len(users) < MIN_USERS:
        fail(f"users: {len(users)} < {MIN_USERS}")
    phones, emails = {}, {}
    for uid, user in users.items():
        p = f"/users/{uid}"
        if not check_fields(user, p, ["displayName", "phoneNumber", "email", "status", "photoUrl", "createdAt"]):
            continue
        name = user.get("displayName")
        if not isinstance(name, str) or not (1 <= len(name.strip()) <= 50) or name != name.strip():
            fail(f"{p}/displayName: {name!r} is not 1-50 characters, trimmed")
        phone = user.get("phoneNumber")
        if not isinstance(phone, str) or not E164.match(phone):
            fail(f"{p}/phoneNumber: {phone!r} is not E.164")
        elif "555" not in phone:
            fail(f"{p}/phoneNumber: {phone!r} is not a fictional 555 number")
        elif phone in phones:
            fail(f"{p}/phoneNumber: {phone!r} also belongs to {phones[phone]}")
        else:
            phones[phone] = uid
        email = user.get("email")
        if not isinstance(email, str) or not EMAIL.match(email):
            fail(f"{p}/email: {email!r} is not an e-mail address")
        elif email.lower() in emails:
            fail(f"{p}/email: {email!r} also belongs to {emails[email.lower()]}")
        else:
            emails[email.lower()] = uid
        status = user.get("status")
        if not isinstance(status, str) or len(status) > 256:
            fail(f"{p}/status: not a string of at most 256 characters")
        url = user.get("photoUrl")
        storage_url = f"http://127.0.0.1:9000/v0/b/{avatars.get('bucket')}/o/users%2F{uid}%2Favatar.png?alt=media&token="
        if not isinstance(url, str) or len(url) > 2048:
            fail(f"{p}/photoUrl: {url!r} is not a URL of at most 2048 characters")
        elif url.startswith("http://127.0.0.1:9000/"):
            entry = avatar_entries.get(f"users/{uid}/avatar.png")
            if entry is None or url != storage_url + entry.get("downloadToken", ""):
                fail(f"{p}/photoUrl: {url!r} is not the download URL of an avatar in seed/files.json")
        elif not url.startswith("https://"):
            fail(f"{p}/photoUrl: {url!r} is neither an https URL nor a seeded avatar's download URL")
        if not is_int(user.get("createdAt")) or user.get("createdAt", 0) <= 0:
            fail(f"{p}/createdAt: not a millisecond timestamp")
    countries = {ph[:3] for ph in phones}
    if len(countries) < 4:
        fail(f"users: phone numbers from too few countries ({sorted(countries)})")

    # chats/$chatId, members/$chatId
    if len(chats) != CHATS:
        fail(f"chats: {len(chats)} != {CHATS}")
    types = {c.get("type") for c in chats.values() if isinstance(c, dict)}
    if types != {"private", "group"}:
        fail(f"chats: types {sorted(map(str, types))} should be both private and group")
    if set(members) != set(chats):
        fail(f"members: chat ids {sorted(set(members) ^ set(chats))} not in both chats and members")
    if set(messages) != set(chats):
        fail(f"messages: chat ids {sorted(set(messages) ^ set(chats))} not in both chats and messages")
    for chat_id, chat in chats.items():
        p = f"/chats/{chat_id}"
        kind = chat.get("type")
        pair = sorted(members.get(chat_id, {}))
        if kind == "private" and len(pair) == 2:
            if chat_id != derived_chat_id(*pair):
                fail(f"{p}: a private chat's id is not the one createChat derives for its pair ({derived_chat_id(*pair)})")
        elif not PUSH_ID.match(chat_id):
            fail(f"{p}: chat id is not a 20-character push id")
        if kind == "group":
            required = ["type", "name", "photoUrl", "owner", "createdAt", "lastMessage"]
        else:
            required = ["type", "owner", "createdAt", "lastMessage"]
        if not check_fields(chat, p, required, ["name", "photoUrl"]):
            continue
        if kind not in ("private", "group"):
            fail(f"{p}/type: {kind!r}")
        if kind == "group":
            name = chat.get("name")
            # Code points >= grapheme clusters, so <= 25 code points means <= 25 characters.
            if not isinstance(name, str) or not (1 <= len(name) <= 25) or name != name.strip():
                fail(f"{p}/name: {name!r} is not 1-25 characters, trimmed")
        chat_members = members.get(chat_id, {})
        if kind == "private" and len(chat_members) != 2:
            fail(f"/members/{chat_id}: private chat with {len(chat_members)} members")
        if kind == "group" and len(chat_members) < 3:
            fail(f"/members/{chat_id}: group with {len(chat_members)} members (< 3)")
        owner = chat.get("owner")
        if owner not in chat_members:
            fail(f"{p}/owner: {owner!r} is not a member")
        for uid, m in chat_members.items():
            mp = f"/members/{chat_id}/{uid}"
            if uid not in users:
                fail(f"{mp}: unknown user")
            if not check_fields(m, mp, ["role", "joinedAt"]):
                continue
            role = m.get("role")
            if role not in ("owner", "member"):
                fail(f"{mp}/role: {role!r}")
            if (role == "owner") != (uid == owner):
                fail(f"{mp}/role: {role!r} but chat owner is {owner!r}")
            if not is_int(m.get("joinedAt")) or m["joinedAt"] < chat.get("createdAt", 0):
                fail(f"{mp}/joinedAt: before the chat was created")
            elif m["joinedAt"] < users.get(uid, {}).get("createdAt", 0):
                fail(f"{mp}/joinedAt: before the user registered")
        if kind == "private":
            for other_id, other in chats.items():
                if other_id < chat_id and other.get("type") == "private" and sorted(members.get(other_id, {})) == pair:
                    fail(f"{p}: a second private chat for the pair (also {other_id})")

    # messages/$chatId/$messageId
    total_messages = sum(len(m) for m in messages.values())
    if total_messages < MIN_MESSAGES:
        fail(f"messages: {total_messages} < {MIN_MESSAGES}")
    for chat_id, chat_messages in messages.items():
        chat = chats.get(chat_id, {})
        chat_members = members.get(chat_id, {})
        previous_key, previous_time = None, None
        for message_id in sorted(chat_messages, key=utf16_key):
            msg = chat_messages[message_id]
            p = f"/messages/{chat_id}/{message_id}"
            if msg.get("kind") == "call":
                check_call_message(data, chat_id, msg, p)
                continue
            if not check_fields(msg, p, ["sender", "kind", "sentAt"], ["text", "attachmentUrl"]):
                continue
            sent = msg.get("sentAt")
            if not PUSH_ID.match(message_id):
                fail(f"{p}: message id is not a 20-character push id")
            elif not is_int(sent) or push_time(message_id) != sent:
                fail(f"{p}: push id time {push_time(message_id)} != sentAt {sent!r}")
            if previous_time is not None and is_int(sent) and sent < previous_time:
                fail(f"{p}: sentAt goes back in time after {previous_key}")
            previous_key, previous_time = message_id, sent
            sender = msg.get("sender")
            if sender not in chat_members:
                fail(f"{p}/sender: {sender!r} is not a member of the chat")
            elif is_int(sent) and sent < chat_members[sender].get("joinedAt", 0):
                fail(f"{p}/sender: sent before the sender joined")
            if is_int(sent) and sent < chat.get("createdAt", 0):
                fail(f"{p}/sentAt: before the chat was created")
            kind = msg.get("kind")
            text = msg.get("text")
            if kind not in ("text", "image", "video"):
                fail(f"{p}/kind: {kind!r}")
            if text is not None and (not isinstance(text, str) or len(text) > 4096):
                fail(f"{p}/text: not a string of at most 4096 characters")
            if kind == "text" and (not isinstance(text, str) or not text.strip()):
                fail(f"{p}/text: required for kind 'text'")
            if kind == "text" and "attachmentUrl" in msg:
                fail(f"{p}/attachmentUrl: present on a text message")
            if kind in ("image", "video"):
                url = msg.get("attachmentUrl")
                if not isinstance(url, str) or not url.startswith("https://"):
                    fail(f"{p}/attachmentUrl: required https URL for kind {kind!r}")
        # lastMessage = the newest message by key
        if chat_messages:
            newest_id = max(chat_messages, key=utf16_key)
            newest = chat_messages[newest_id]
            want = {"id": newest_id, "sender": newest.get("sender"), "sentAt": newest.get("sentAt")}
            if "text" in newest:
                want["text"] = newest["text"]
            if chat.get("lastMessage") != want:
                fail(f"/chats/{chat_id}/lastMessage: {chat.get('lastMessage')!r} != newest message {want!r}")
        elif "lastMessage" in chat:
            fail(f"/chats/{chat_id}/lastMessage: present on a chat without messages")

    # userChats/$uid/$chatId, unreadTotals/$uid
    for uid in user_chats:
        if uid not in users:
            fail(f"/userChats/{uid}: unknown user")
    for chat_id, chat_members in members.items():
        for uid in chat_members:
            if chat_id not in user_chats.get(uid, {}):
                fail(f"/userChats/{uid}/{chat_id}: missing for a member")
    for uid, entries in user_chats.items():
        total = 0
        for chat_id, entry in entries.items():
            p = f"/userChats/{uid}/{chat_id}"
            if chat_id not in chats:
                fail(f"{p}: unknown chat")
                continue
            if uid not in members.get(chat_id, {}):
                fail(f"{p}: user is not a member")
            if not check_fields(entry, p, ["unread", "lastMessageAt", "lastReadAt", "name"], ["request"]):
                continue
            chat = chats[chat_id]
            chat_messages = messages.get(chat_id, {})
            if "request" in entry:
                check_request(entry["request"], uid, chat_id, chat, members.get(chat_id, {}), chat_messages,
                              data["contacts"])
            read_at = entry.get("lastReadAt")
            if not is_int(read_at):
                fail(f"{p}/lastReadAt: not a millisecond timestamp")
                continue
            unread = sum(1 for m in chat_messages.values() if m.get("sentAt", 0) > read_at and m.get("sender") != uid)
            if entry.get("unread") != unread:
                fail(f"{p}/unread: {entry.get('unread')!r} != {unread} messages after lastReadAt not sent by the user")
            total += entry.get("unread") if is_int(entry.get("unread")) else 0
            newest = max((m.get("sentAt", 0) for m in chat_messages.values()), default=None)
            if entry.get("lastMessageAt") != newest:
                fail(f"{p}/lastMessageAt: {entry.get('lastMessageAt')!r} != newest sentAt {newest!r}")
            if chat.get("type") == "group":
                want_name = chat.get("name")
            else:
                others = [u for u in members.get(chat_id, {}) if u != uid]
                want_name = users.get(others[0], {}).get("displayName") if others else None
            if entry.get("name") != want_name:
                fail(f"{p}/name: {entry.get('name')!r} != {want_name!r}")
        if totals.get(uid) != total:
            fail(f"/unreadTotals/{uid}: {totals.get(uid)!r} != sum of unread {total}")
    for uid, value in totals.items():
        if uid not in users:
            fail(f"/unreadTotals/{uid}: unknown user")
        elif uid not in user_chats and value != 0:
            fail(f"/unreadTotals/{uid}: {value!r} for a user without chats")
    if not any(is_int(v) and v > 0 for v in totals.values()):
        fail("unreadTotals: nobody has unread messages (the fixture should exercise counters)")
    if not any(entry.get("request") for entries in user_chats.values() for entry in entries.values()):
        fail("userChats: no pending conversation request (the fixture should show one)")
    check_contacts(data["contacts"], users)
    check_blocks(data["blocks"], data["blockedSenders"], users, messages)
    check_devices_and_calls(data)
    return total_messages


def check_request(flag, uid, chat_id, chat, chat_members, chat_messages, contacts):
    """A pending conversation request, as createChat leaves it between strangers and nothing
    has cleared yet: on the other party's entry of a private chat, no reply from them, and
    neither has the other in contacts (hearth chat check says the same)."""
    p = f"/userChats/{uid}/{chat_id}/request"
    if flag is not True:
        fail(f"{p}: {flag!r} is not true")
    if chat.get("type") != "private":
        fail(f"{p}: on a chat that is not private")
        return
    if chat.get("owner") == uid:
        fail(f"{p}: on the entry of the chat's creator, not of the other party")
    if any(m.get("sender") == uid for m in chat_messages.values()):
        fail(f"{p}: {uid} has replied, which clears the request")
    for other in chat_members:
        if other != uid and (other in contacts.get(uid, {}) or uid in contacts.get(other, {})):
            fail(f"{p}: {uid} and {other} are not strangers (contacts), so no request is made")


def check_blocks(blocks, markers, users, messages):
    """blocks/$uid/$blockedUid = true, as blockUser writes it: registered users, not oneself,
    each with its marker blockedSenders/<the pair's private chat id>/$blockedUid = $uid, and no
    marker without its block (hearth chat check says the same); nothing the blocked user posted
    in that chat. At least one block."""
    wanted = {}
    for uid, entries in blocks.items():
        for other, value in entries.items():
            p = f"/blocks/{uid}/{other}"
            if value is not True:
                fail(f"{p}: {value!r} is not true")
            if uid not in users or other not in users:
                fail(f"{p}: not between registered users")
            if uid == other:
                fail(f"{p}: a user blocking themselves")
            chat_id = derived_chat_id(uid, other)
            wanted[(chat_id, other)] = uid
            if any(m.get("sender") == other for m in messages.get(chat_id, {}).values()):
                fail(f"{p}: {other} posted into the private chat {chat_id}, which the rules refuse")
    found = {(chat_id, other): uid for chat_id, entries in markers.items() for other, uid in entries.items()}
    if found != wanted:
        fail(f"blockedSenders {sorted(found.items())} != the markers the blocks need {sorted(wanted.items())}")
    if not wanted:
        fail("blocks: nobody is blocked (the fixture should show one)")


def check_contacts(contacts, users):
    """contacts/$uid/$contactUid = {addedAt, favorite}: registered users other than the owner,
    added after both registered; at least one favorite."""
    count, favorites = 0, 0
    for uid, entries in contacts.items():
        if uid not in users:
            fail(f"/contacts/{uid}: unknown user")
        for other, entry in entries.items():
            p = f"/contacts/{uid}/{other}"
            count += 1
            if other not in users:
                fail(f"{p}: not a registered user")
            if other == uid:
                fail(f"{p}: the owner in their own contacts")
            if not check_fields(entry, p, ["addedAt", "favorite"]):
                continue
            if not isinstance(entry["favorite"], bool):
                fail(f"{p}/favorite: {entry['favorite']!r} is not a boolean")
            favorites += entry["favorite"] is True
            added = entry["addedAt"]
            registered = max(users.get(uid, {}).get("createdAt", 0), users.get(other, {}).get("createdAt", 0))
            if not is_int(added) or added < registered:
                fail(f"{p}/addedAt: {added!r} is not a millisecond time after both users registered")
    if count < MIN_CONTACTS:
        fail(f"contacts: {count} < {MIN_CONTACTS}")
    if favorites == 0:
        fail("contacts: no favorite (the fixture should show one)")


def check_call_message(data, chat_id, msg, p):
    """A kind "call" message, as the server writes it when a call ends: {sender (the caller),
    kind, call: {callId, state, durationMs}, sentAt (the call's endedAt)}."""
    if not check_fields(msg, p, ["sender", "kind", "sentAt", "call"]):
        return
    call = msg["call"]
    if not isinstance(call, dict) or not check_fields(call, p + "/call", ["callId", "state", "durationMs"]):
        return
    record = data.get("calls", {}).get(call["callId"])
    if record is None:
        fail(f"{p}/call/callId: {call['callId']!r} is not a call")
        return
    if record.get("chatId") != chat_id or record.get("caller") != msg["sender"]:
        fail(f"{p}: the call {call['callId']} is not this chat's call by its sender")
    if record.get("state") != call["state"] or call["state"] not in ("declined", "missed", "cancelled", "ended"):
        fail(f"{p}/call/state: {call['state']!r} is not the call's finished state")
    if record.get("endedAt") != msg["sentAt"]:
        fail(f"{p}/sentAt: not the call's endedAt")
    answered = record.get("answeredAt")
    want = record["endedAt"] - answered if is_int(answered) else 0
    if call["durationMs"] != want:
        fail(f"{p}/call/durationMs: {call['durationMs']!r} != {want}")


def check_devices_and_calls(data):
    """devices/$uid/$deviceId = {token, platform, updatedAt} of registered users; every call
    finished ({chatId, caller, callee, kind, state, createdAt, answeredAt, endedAt, offer,
    answer}) in a chat of both parties; at least one of each."""
    users, members = data["users"], data["members"]
    devices = data.get("devices", {})
    for uid, entries in devices.items():
        if uid not in users:
            fail(f"/devices/{uid}: unknown user")
        for device, entry in entries.items():
            p = f"/devices/{uid}/{device}"
            if not check_fields(entry, p, ["token", "platform", "updatedAt"]):
                continue
            if not isinstance(entry["token"], str) or not (1 <= len(entry["token"]) <= 4096):
                fail(f"{p}/token: not a string of 1-4096 characters")
            if entry["platform"] not in ("fcm", "apns", "webpush"):
                fail(f"{p}/platform: {entry['platform']!r}")
            if not is_int(entry["updatedAt"]):
                fail(f"{p}/updatedAt: not a millisecond time")
    if not devices:
        fail("devices: none (the fixture should show one)")
    calls = data.get("calls", {})
    for call_id, call in calls.items():
        p = f"/calls/{call_id}"
        if not check_fields(call, p, ["chatId", "caller", "callee", "kind", "state", "createdAt", "answeredAt",
                                      "endedAt", "offer", "answer"]):
            continue
        chat_members = members.get(call["chatId"], {})
        if call["caller"] not in chat_members or call["callee"] not in chat_members:
            fail(f"{p}: caller and callee are not both members of {call['chatId']}")
        if call["state"] != "ended" or call["kind"] not in ("audio", "video"):
            fail(f"{p}: not a finished audio or video call")
        if not (call["createdAt"] <= call["answeredAt"] <= call["endedAt"]):
            fail(f"{p}: its times are out of order")
    if not calls:
        fail("calls: none (the fixture should show a finished call)")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "seed", "fireside.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        print(f"Error: cannot read '{path}': {error}", file=sys.stderr)
        return 1
    if not isinstance(data, dict):
        print(f"Error: '{path}' is not a JSON object", file=sys.stderr)
        return 1
    total_messages = check(data, os.path.dirname(os.path.abspath(path)))
    for message in problems:
        print(message)
    if problems:
        print(f"{len(problems)} problem(s) in {path}", file=sys.stderr)
        return 1
    print(
        f"ok: {path}: {len(data['users'])} users, {len(data['chats'])} chats, "
        f"{total_messages} messages, {sum(data['unreadTotals'].values())} unread"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
