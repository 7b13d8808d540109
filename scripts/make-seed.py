#!/usr/bin/env python3
"""Generate seed/fireside.json, the FiresideChat demo fixture, in the contract's chat schema.

Deterministic: a fixed random seed and a fixed clock, so every run writes the same bytes.
Python 3 standard library only.

    python3 scripts/make-seed.py [--out seed/fireside.json]

Then check it with scripts/check-seed.py.
"""

import argparse
import hashlib
import json
import os
import random
import struct
import uuid
import zlib

SEED = 20250301
# 2025-03-01T09:00:00Z; everything in the fixture happens before this instant.
NOW_MS = 1740819600000
DAY_MS = 86_400_000

PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
UID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

rng = random.Random(SEED)


class PushIdGenerator:
    """Firebase's chronological push ids: 8 timestamp characters, then 12 random ones.

    Ids generated in the same millisecond increment the random part, as the SDKs do, so ids
    generated in non-decreasing time order sort in generation order.
    """

    def __init__(self, random_source):
        self.random = random_source
        self.last_time = -1
        self.last_random = [0] * 12

    def make(self, time_ms):
        if time_ms < self.last_time:
            raise ValueError("push ids must be generated in non-decreasing time order")
        stamp = []
        t = time_ms
        for _ in range(8):
            stamp.append(PUSH_CHARS[t % 64])
            t //= 64
        if t != 0:
            raise ValueError("timestamp out of range for a push id")
        stamp.reverse()
        if time_ms == self.last_time:
            i = 11
            while i >= 0 and self.last_random[i] == 63:
                self.last_random[i] = 0
                i -= 1
            self.last_random[i] += 1
        else:
            self.last_random = [self.random.randrange(64) for _ in range(12)]
        self.last_time = time_ms
        return "".join(stamp) + "".join(PUSH_CHARS[c] for c in self.last_random)


def make_uid():
    """A Firebase Auth style uid: 28 alphanumeric characters."""
    return "".join(rng.choice(UID_CHARS) for _ in range(28))


# ---------------------------------------------------------------------------------------------
# Users

# (displayName, email local part, country code, national prefix before "555", digits after "555")
PEOPLE = [
    ("Ava Thompson", "ava.thompson", "1", "415", 4),
    ("Liam O'Brien", "liam.obrien", "1", "212", 4),
    ("Sofia Martínez", "sofia.martinez", "1", "305", 4),
    ("Noah Williams", "noah.w", "1", "312", 4),
    ("Mia Chen", "mia.chen", "1", "206", 4),
    ("Ethan Brooks", "ethan.brooks", "1", "512", 4),
    ("Chloé Tremblay", "chloe.tremblay", "1", "514", 4),
    ("Jacob Singh", "jacob.singh", "1", "604", 4),
    ("Harriet Wells", "harriet.wells", "44", "7700", 3),
    ("Oliver Pratt", "oliver.pratt", "44", "7700", 3),
    ("Amelia Khan", "amelia.khan", "44", "7700", 3),
    ("Rhys Llewellyn", "rhys.llewellyn", "44", "7700", 3),
    ("Lukas Schneider", "lukas.schneider", "49", "151", 4),
    ("Lena Fischer", "lena.fischer", "49", "170", 4),
    ("Jonas Weiß", "jonas.weiss", "49", "160", 4),
    ("Camille Dubois", "camille.dubois", "33", "6", 5),
    ("Théo Laurent", "theo.laurent", "33", "7", 5),
    ("Priya Raman", "priya.raman", "91", "98", 5),
    ("Arjun Mehta", "arjun.mehta", "91", "99", 5),
    ("Ananya Iyer", "ananya.iyer", "91", "90", 5),
    ("Lucas Oliveira", "lucas.oliveira", "55", "119", 5),
    ("Beatriz Santos", "beatriz.santos", "55", "219", 5),
    ("Haruto Sato", "haruto.sato", "81", "90", 5),
    ("Yui Tanaka", "yui.tanaka", "81", "80", 5),
    ("Charlotte Nguyen", "charlotte.nguyen", "61", "4", 5),
    ("Jack Murphy", "jack.murphy", "61", "4", 5),
    ("Isabella Rossi", "isabella.rossi", "39", "3", 6),
    ("Marco Bianchi", "marco.bianchi", "39", "3", 6),
    ("Ольга Петрова", "olga.petrova", "7", "9", 6),
    ("李雷", "li.lei", "86", "13", 6),
    ("Zoë van Dijk", "zoe.vandijk", "31", "6", 5),
    ("Søren Nielsen", "soren.nielsen", "45", "", 5),
    ("Kwame Mensah", "kwame.mensah", "233", "24", 4),
    ("Fatima Al-Sayed", "fatima.alsayed", "971", "50", 4),
    ("María José Fernández-Castillo", "mariajose.fc", "34", "6", 5),
    ("Sam", "sam", "1", "646", 4),
]

STATUSES = [
    "Hey there! I am using FiresideChat.",
    "Available",
    "Busy",
    "At the gym 🏋️",
    "Battery about to die",
    "In a meeting",
    "Can't talk, FiresideChat only",
    "Sleeping 😴",
    "On holiday until Monday 🌴",
    "Urgent calls only",
    "☕ first, questions later",
    "Living my best life",
    "Coding…",
    "Back in 5",
    "Reading: The Left Hand of Darkness",
]

EMAIL_DOMAINS = ["example.com", "example.org", "example.net", "mail.example.com"]


# ---------------------------------------------------------------------------------------------
# Avatars: a small PNG per user in seed/files/ (the server uploads them to the default bucket at
# first start, seed/files.json naming each one's type and download token), and the profile's
# photoUrl is its download URL on the default address. Each token comes from its own generator,
# so the rest of the seed is the same with or without them.

AVATAR_BUCKET = "hearth.appspot.com"


def avatar_token(uid):
    return str(uuid.UUID(int=random.Random("avatar-" + uid).getrandbits(128), version=4))


def avatar_name(uid):
    return f"users/{uid}/avatar.png"


def avatar_url(uid):
    encoded = avatar_name(uid).replace("/", "%2F")
    return f"http://127.0.0.1:9000/v0/b/{AVATAR_BUCKET}/o/{encoded}?alt=media&token={avatar_token(uid)}"


def avatar_png(uid):
    """An 8x8 symmetric pattern in a colour of the uid, scaled to 64x64."""
    rng = random.Random("avatar-image-" + uid)
    colour = bytes(rng.randrange(60, 200) for _ in range(3))
    cells = [[rng.random() < 0.5 for _ in range(4)] for _ in range(8)]
    rows = []
    for y in range(64):
        row = bytearray([0])
        for x in range(64):
            cx = x // 8
            on = cells[y // 8][cx if cx < 4 else 7 - cx]
            row += colour if on else b"\xf4\xf1\xea"
        rows.append(bytes(row))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


def write_avatars(users, seed_dir):
    """Writes seed/files/users/<uid>/avatar.png and seed/files.json."""
    objects = []
    for uid in sorted(users):
        path = os.path.join(seed_dir, "files", avatar_name(uid))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(avatar_png(uid))
        objects.append({"name": avatar_name(uid), "file": "files/" + avatar_name(uid),
                        "contentType": "image/png", "downloadToken": avatar_token(uid)})
    with open(os.path.join(seed_dir, "files.json"), "w", encoding="utf-8") as f:
        json.dump({"bucket": AVATAR_BUCKET, "objects": objects}, f, indent=2, sort_keys=True)
        f.write("\n")


def make_users():
    users = {}
    order = []
    used_phones = set()
    for index, (name, local, cc, prefix, tail_len) in enumerate(PEOPLE):
        uid = make_uid()
        while True:
            tail = "".join(str(rng.randrange(10)) for _ in range(tail_len))
            if cc == "1":
                tail = "01" + tail[2:]  # NANP's fictional range 555-0100..0199
            phone = "+" + cc + prefix + "555" + tail
            if phone not in used_phones:
                used_phones.add(phone)
                break
        created = NOW_MS - 400 * DAY_MS + index * 3 * DAY_MS + rng.randrange(DAY_MS)
        users[uid] = {
            "displayName": name,
            "phoneNumber": phone,
            "email": f"{local}@{EMAIL_DOMAINS[index % len(EMAIL_DOMAINS)]}",
            "status": STATUSES[index % len(STATUSES)] if index % 7 else STATUSES[0],
            "photoUrl": avatar_url(uid),
            "createdAt": created,
        }
        order.append(uid)
    return users, order


# ---------------------------------------------------------------------------------------------
# Messages

SMALL_TALK = [
    "hey!", "Hey 👋", "morning", "Good morning ☀️", "you around?", "yep", "nope", "ok", "OK 👍",
    "sounds good", "haha", "hahaha 😂", "lol", "omg", "no way", "really?", "wait what", "sure",
    "thanks!", "Thank you so much 🙏", "np", "on my way", "running 10 min late, sorry!",
    "almost there", "I'm here", "where are you?", "can you call me when you get a sec?",
    "just saw this", "sorry, was in a meeting", "brb", "back", "good night 🌙", "night!",
    "see you tomorrow", "👍", "❤️", "🔥🔥🔥", "😅", "that's hilarious", "love it",
    "Did you see the game last night?", "What time works for you?", "Let me check and get back to you",
    "I'll bring snacks", "Who's driving?", "Happy birthday!!! 🎂🎉", "congrats!! 🎉",
    "ugh, Mondays", "Friday finally", "it's raining again 🌧️", "anyone want coffee?",
    "I owe you one", "no worries at all", "can't wait!", "totally agree", "hmm, not sure about that",
    "fair point", "let's do it", "count me in", "I'm out this time, sorry 😕", "next week maybe?",
    "did you get my email?", "sent you the link", "link doesn't work for me", "try now",
    "works now, thanks", "what's the address again?", "12 Baker Street, 2nd floor",
    "I'll share my location", "the wifi password is on the fridge",
    "Café au lait or flat white? ☕", "naïve question but how does this work?",
]

TOPICS = {
    "hiking": [
        "Trail report: mud everywhere but the view was worth it", "Who has spare poles?",
        "Forecast says clear skies on Saturday 🌤️", "Meeting at the trailhead at 7:30",
        "Don't forget water, it's 14 km round trip", "I'm bringing the first aid kit",
        "My boots finally gave up 🥾💀", "Summit selfie incoming", "That last climb nearly killed me",
        "Next one: the ridge loop?",
    ],
    "books": [
        "Finished it last night, that ending!!", "No spoilers please, I'm on chapter 9",
        "Next pick: something shorter?", "I vote for The Dispossessed",
        "Can we meet Thursday instead?", "I'll host this month, bring wine 🍷",
        "The middle part dragged a bit for me", "Best book we've read this year imo",
    ],
    "family": [
        "Dinner at mum's on Sunday?", "Who's picking up grandma from the airport?",
        "Photos from the weekend ❤️", "The dog ate my sock again 🐶", "Happy anniversary you two!",
        "Can someone send me the recipe?", "I'll bring dessert", "Call me when you land",
    ],
    "work": [
        "Standup moved to 10:15", "PR is up, can someone review?", "Deploy went out 🚀",
        "Rollback, rollback!", "Fixed, it was a cache issue", "Who's on call this weekend?",
        "Can we push the launch to Thursday?", "Design review at 3pm", "Great job everyone 👏",
        "Numbers look good this week", "I'll write up the notes",
    ],
    "flat": [
        "Who finished the milk? 🥛", "Rent is due Friday", "Bins go out tonight",
        "The boiler guy comes at 9", "I'm doing a Tesco run, need anything?",
        "Party on Saturday, neighbours are invited", "Someone left the window open again",
        "Cleaning rota updated, check the fridge",
    ],
    "climbing": [
        "Gym at 6?", "New routes are up on the left wall", "I finally sent the purple V5!",
        "Skin is destroyed, taking a rest day", "Anyone want to split a rope?",
        "Outdoor trip in May?", "Chalk bag left at the gym, anyone grab it?",
    ],
    "travel": [
        "Flights booked ✈️", "Hotel or Airbnb?", "I made a shared packing list",
        "Passport expires in June, need to renew 😬", "Train from the airport is 40 min",
        "Who wants the window seat?", "Itinerary v3 attached", "Currency: bring some cash",
    ],
}

LONG_TEXT = (
    "Okay, long message incoming, sorry in advance. "
    + " ".join(
        [
            "Here's the plan for the trip so far: we meet at the station at 8, the train leaves at 8:25,"
            " and we should be there by lunch. Bags can go in the hotel lockers until check-in at 3."
        ]
        * 3
    )
    + "\n\nDay 1: walking tour, the old town, dinner at the place with the terrace."
    + "\nDay 2: boat trip in the morning (weather permitting), free afternoon, group dinner."
    + "\nDay 3: market, museum for whoever wants it, train back at 17:40."
    + "\n\nBudget: roughly 350 each including the hotel, food is extra. If anyone has dietary"
    " requirements tell me before Thursday so I can let the restaurants know. Also, the hotel"
    " wants everyone's full name as it appears on the passport, so please send those to me"
    " privately. Let me know if anything doesn't work for you! 🙏"
)


def message_text(topic):
    pool = TOPICS.get(topic, [])
    if pool and rng.random() < 0.45:
        return rng.choice(pool)
    text = rng.choice(SMALL_TALK)
    if rng.random() < 0.08:
        text += "\n" + rng.choice(SMALL_TALK)
    return text


# ---------------------------------------------------------------------------------------------
# Chats

# (group name, topic, number of members, number of messages, index of owner, late joiner?)
GROUPS = [
    ("Weekend Hikers 🥾", "hiking", 6, 58, 0, True),
    ("Book Club", "books", 5, 41, 8, False),
    ("Family ❤️", "family", 4, 52, 4, False),
    ("Launch Team Q2", "work", 8, 64, 12, True),
    ("Flat 4B", "flat", 3, 37, 9, False),
    ("Café Lumière regulars", "climbing", 5, 29, 15, False),
    ("Lisbon trip ✈️ 2025", "travel", 7, 47, 1, True),
]

# (index of creator, index of the other party, number of messages)
PRIVATES = [
    (0, 1, 44),
    (0, 2, 23),
    (4, 12, 31),
    (8, 9, 18),
    (17, 22, 26),
]


def private_chat_id(push_ids, created_ms, uid_a, uid_b):
    """Id of the private chat of a pair, the one createChat derives for them (CreateChat.chatID):
    "p" and the first 128 bits of SHA-256 of the two uids in byte order, a NUL between them, in
    hex. The id generator still draws a push id for the creation time, so the group ids and
    everything random after them come out the same as when private chats had push ids."""
    push_ids.make(created_ms)
    return derived_chat_id(uid_a, uid_b)


def derived_chat_id(uid_a, uid_b):
    first, second = sorted([uid_a.encode(), uid_b.encode()])
    return "p" + hashlib.sha256(first + b"\0" + second).digest()[:16].hex()


def pick_members(user_order, count, owner_index, exclude_first_n=0):
    owner = user_order[owner_index]
    others = [u for u in user_order[exclude_first_n:] if u != owner]
    return [owner] + rng.sample(others, count - 1)


def make_conversation(chat, members, join_times, count, topic, long_message):
    """Messages of one chat as (sentAt, sender, body-without-sentAt) tuples, chronological."""
    messages = []
    t = chat["createdAt"] + rng.randrange(60_000, 3_600_000)
    speaker = members[0]
    long_at = rng.randrange(count // 3, count - 2) if long_message else -1
    for i in range(count):
        # Bursts of quick replies, with hours or days between conversations.
        if rng.random() < 0.18:
            t += rng.randrange(2 * 3_600_000, 3 * DAY_MS)
        else:
            t += rng.randrange(4_000, 600_000)
        eligible = [m for m in members if join_times[m] <= t]
        if rng.random() < 0.55 or speaker not in eligible:
            speaker = rng.choice([m for m in eligible if m != speaker] or eligible)
        body = {"sender": speaker}
        if i == long_at:
            body.update(kind="text", text=LONG_TEXT)
        elif i < count - 1 and rng.random() < 0.09:
            kind = "image" if rng.random() < 0.75 else "video"
            ext = "jpg" if kind == "image" else "mp4"
            body["kind"] = kind
            body["attachmentUrl"] = f"https://cdn.example.com/media/{rng.getrandbits(64):016x}.{ext}"
            if rng.random() < 0.5:
                body["text"] = rng.choice(["look at this", "📸", "from today", "lol this", "the view!!"])
        else:
            # The newest message of every chat is a text, so lastMessage always has text.
            body.update(kind="text", text=message_text(topic))
        messages.append((t, speaker, body))
    return messages


def build():
    users, order = make_users()
    # Chat creation times, spread over the last ~120 days, in creation order.
    specs = []
    for g in GROUPS:
        specs.append(("group", g))
    for p in PRIVATES:
        specs.append(("private", p))
    rng.shuffle(specs)
    start = NOW_MS - 120 * DAY_MS
    created_times = sorted(start + rng.randrange(60 * DAY_MS) for _ in specs)

    chat_ids = PushIdGenerator(rng)
    chats, members, pending = {}, {}, []
    for (kind, spec), created in zip(specs, created_times):
        if kind == "group":
            name, topic, count, n_messages, owner_index, late_joiner = spec
            group_members = pick_members(order, count, owner_index)
            chat_id = chat_ids.make(created)
            chat = {
                "type": "group",
                "name": name,
                "photoUrl": f"https://cdn.example.com/groups/{chat_id}.jpg",
                "owner": group_members[0],
                "createdAt": created,
            }
            joins = {m: created for m in group_members}
            if late_joiner:  # added by addMembers some days later
                joins[group_members[-1]] = created + rng.randrange(3, 10) * DAY_MS
            long_message = topic in ("travel", "hiking")
        else:
            a, b, n_messages = spec
            group_members = [order[a], order[b]]
            chat_id = private_chat_id(chat_ids, created, order[a], order[b])
            chat = {"type": "private", "owner": order[a], "createdAt": created}
            joins = {m: created for m in group_members}
            topic, long_message = None, False
        chats[chat_id] = chat
        members[chat_id] = {
            m: {"role": "owner" if m == chat["owner"] else "member", "joinedAt": joins[m]}
            for m in group_members
        }
        pending.append(
            (chat_id, group_members, make_conversation(chat, group_members, joins, n_messages, topic, long_message))
        )

    # Message ids from one generator over every message in time order, as one clock would make them.
    everything = sorted(
        ((t, chat_id, seq, sender, body) for chat_id, _, msgs in pending for seq, (t, sender, body) in enumerate(msgs)),
        key=lambda m: (m[0], m[1], m[2]),
    )
    message_ids = PushIdGenerator(rng)
    messages = {chat_id: {} for chat_id in chats}
    for t, chat_id, _, _, body in everything:
        message_id = message_ids.make(t)
        messages[chat_id][message_id] = dict(body, sentAt=t)

    # Derived state: lastMessage, userChats, unreadTotals.
    user_chats, unread_totals = {}, {uid: 0 for uid in users}
    for chat_id, chat in chats.items():
        ordered = sorted(messages[chat_id].items())
        newest_id, newest = ordered[-1]
        chat["lastMessage"] = {
            "id": newest_id,
            "text": newest["text"],
            "sender": newest["sender"],
            "sentAt": newest["sentAt"],
        }
        for uid, membership in members[chat_id].items():
            own = [m["sentAt"] for _, m in ordered if m["sender"] == uid]
            roll = rng.random()
            if roll < 0.35:
                read_at = newest["sentAt"]  # all caught up
            elif roll < 0.85:
                # read up to a random point in the last part of the conversation
                k = rng.randrange(max(0, len(ordered) - 25), len(ordered))
                read_at = ordered[k][1]["sentAt"]
            else:
                read_at = ordered[max(0, len(ordered) - rng.randrange(25, 60))][1]["sentAt"]
            # Sending a message means having read everything before it.
            read_at = max([read_at, membership["joinedAt"]] + own[-1:])
            unread = sum(1 for _, m in ordered if m["sentAt"] > read_at and m["sender"] != uid)
            if chat["type"] == "group":
                name = chat["name"]
            else:
                other = next(u for u in members[chat_id] if u != uid)
                name = users[other]["displayName"]
            user_chats.setdefault(uid, {})[chat_id] = {
                "unread": unread,
                "lastMessageAt": newest["sentAt"],
                "lastReadAt": read_at,
                "name": name,
            }
            unread_totals[uid] += unread

    data = {
        "users": users,
        "chats": chats,
        "members": members,
        "messages": messages,
        "userChats": user_chats,
        "unreadTotals": unread_totals,
    }
    add_pending_request(data, order)
    data["contacts"] = make_contacts(data, order)
    add_block(data, order)
    add_device_and_call(data, order)
    return data


# ---------------------------------------------------------------------------------------------
# Contacts and a conversation request. Their own random generators, so the rest of the fixture
# does not move when they change.

# The user who starts a chat with a stranger, who has not answered yet.
REQUEST_FROM = "Sam"
REQUEST_MESSAGES = ["Hi! Got your number from the climbing gym sign-up sheet 🧗", "Are you going on Saturday?"]


def shared_chats(data):
    """uid -> the set of uids sharing a chat with them."""
    together = {}
    for chat_members in data["members"].values():
        for uid in chat_members:
            together.setdefault(uid, set()).update(u for u in chat_members if u != uid)
    return together


def add_pending_request(data, order):
    """A private chat REQUEST_FROM started two hours before NOW_MS with someone they share no
    chat with: two messages from the starter, none back. The other party's entry carries
    request: true, as createChat leaves it between strangers (make_contacts keeps them so)."""
    users = data["users"]
    starter = next(uid for uid in order if users[uid]["displayName"] == REQUEST_FROM)
    together = shared_chats(data).get(starter, set())
    other = next(uid for uid in order if uid != starter and uid not in together)
    created = NOW_MS - 2 * 3_600_000
    chat_id = derived_chat_id(starter, other)
    ids = PushIdGenerator(random.Random("request-messages"))
    messages = {}
    for n, text in enumerate(REQUEST_MESSAGES):
        sent = created + 1_000 + n * 45_000
        messages[ids.make(sent)] = {"sender": starter, "kind": "text", "text": text, "sentAt": sent}
    newest_id = max(messages)
    newest = messages[newest_id]
    data["chats"][chat_id] = {
        "type": "private",
        "owner": starter,
        "createdAt": created,
        "lastMessage": {"id": newest_id, "text": newest["text"], "sender": starter, "sentAt": newest["sentAt"]},
    }
    data["members"][chat_id] = {
        starter: {"role": "owner", "joinedAt": created},
        other: {"role": "member", "joinedAt": created},
    }
    data["messages"][chat_id] = messages
    data["userChats"].setdefault(starter, {})[chat_id] = {
        "unread": 0,
        "lastMessageAt": newest["sentAt"],
        "lastReadAt": newest["sentAt"],
        "name": users[other]["displayName"],
    }
    data["userChats"].setdefault(other, {})[chat_id] = {
        "unread": len(messages),
        "lastMessageAt": newest["sentAt"],
        "lastReadAt": created,
        "name": users[starter]["displayName"],
        "request": True,
    }
    data["unreadTotals"][other] += len(messages)


def make_contacts(data, order):
    """contacts/$uid/$contactUid = {addedAt, favorite}: the parties of each private chat have
    each other (the longest-standing ones as favorites), and each user some of the people they
    share a group with; never the two parties of a pending request. addedAt falls after both
    users registered."""
    crng = random.Random("contacts")
    users = data["users"]
    pending = set()
    for uid, entries in data["userChats"].items():
        for chat_id, entry in entries.items():
            if entry.get("request"):
                pending.update({(uid, o) for o in data["members"][chat_id] if o != uid})
                pending.update({(o, uid) for o in data["members"][chat_id] if o != uid})
    contacts = {}

    def add(uid, other, favorite):
        if uid == other or (uid, other) in pending or other in contacts.get(uid, {}):
            return
        earliest = max(users[uid]["createdAt"], users[other]["createdAt"])
        added = earliest + crng.randrange(DAY_MS, 20 * DAY_MS)
        contacts.setdefault(uid, {})[other] = {"addedAt": added, "favorite": favorite}

    privates = sorted(
        (chat["createdAt"], chat_id) for chat_id, chat in data["chats"].items() if chat["type"] == "private"
    )
    for rank, (_, chat_id) in enumerate(privates):
        a, b = sorted(data["members"][chat_id])
        add(a, b, favorite=rank < 3)
        add(b, a, favorite=rank < 2)
    together = shared_chats(data)
    for uid in order:
        for other in sorted(together.get(uid, set()), key=order.index):
            if crng.random() < 0.3:
                add(uid, other, favorite=False)
    return contacts


# The user who blocked someone: blockUser's entry and the marker the messages rule reads.
BLOCKER = "Sam"


def add_block(data, order):
    """BLOCKER blocks the first user (in registration order) they share no chat with, have no
    contact with either way, and who is not in the pending request: blocks/$blocker/$blocked =
    true and blockedSenders/<their private chat id>/$blocked = $blocker, as blockUser writes
    them (the chat need not exist; nothing the blocked user posted is in it)."""
    users = data["users"]
    blocker = next(uid for uid in order if users[uid]["displayName"] == BLOCKER)
    together = shared_chats(data).get(blocker, set())
    contacts = data["contacts"]
    blocked = next(
        uid
        for uid in order
        if uid != blocker
        and uid not in together
        and uid not in contacts.get(blocker, {})
        and blocker not in contacts.get(uid, {})
    )
    data["blocks"] = {blocker: {blocked: True}}
    data["blockedSenders"] = {derived_chat_id(blocker, blocked): {blocked: blocker}}


# The user with a registered device (their pushes go there), and the finished call: the first
# private chat whose first message came at least ten minutes after its creation, called by its
# owner a few minutes in (answered, then ended), with the call message the server writes.
DEVICE_OWNER = "Sam"
CALL_SECONDS = 125


def add_device_and_call(data, order):
    """devices/$uid/$deviceId = {token, platform, updatedAt} for DEVICE_OWNER; calls/$callId of a
    finished audio call and its kind "call" message (sender the caller, call: {callId, state,
    durationMs}), placed before the chat's first message so that lastMessage and lastMessageAt
    stay the newest message's; the callee's unread counts it when it is after their lastReadAt."""
    users = data["users"]
    owner = next(uid for uid in order if users[uid]["displayName"] == DEVICE_OWNER)
    data["devices"] = {
        owner: {"pixel-8": {"token": "seed-fcm-token-" + owner[:12], "platform": "fcm", "updatedAt": NOW_MS - 3 * DAY_MS}}
    }
    ids = PushIdGenerator(random.Random("call"))
    for chat_id in sorted(data["chats"]):
        chat = data["chats"][chat_id]
        if chat["type"] != "private" or chat_id not in data["messages"]:
            continue
        first = min(m["sentAt"] for m in data["messages"][chat_id].values())
        if first - chat["createdAt"] < 600_000:
            continue
        caller = chat["owner"]
        callee = next(uid for uid in data["members"][chat_id] if uid != caller)
        created = chat["createdAt"] + 120_000
        answered = created + 8_000
        ended = answered + CALL_SECONDS * 1000
        call_id = ids.make(created)
        data["calls"] = {
            call_id: {
                "chatId": chat_id, "caller": caller, "callee": callee, "kind": "audio", "state": "ended",
                "createdAt": created, "answeredAt": answered, "endedAt": ended,
                "offer": "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n",
                "answer": "v=0\r\no=- 1045193926553466018 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n",
            }
        }
        data["messages"][chat_id][ids.make(ended)] = {
            "sender": caller, "kind": "call", "sentAt": ended,
            "call": {"callId": call_id, "state": "ended", "durationMs": CALL_SECONDS * 1000},
        }
        entry = data["userChats"][callee][chat_id]
        if ended > entry["lastReadAt"]:
            entry["unread"] += 1
            data["unreadTotals"][callee] += 1
        return
    raise SystemExit("no private chat leaves room for the seed's call")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "seed", "fireside.json"))
    args = parser.parse_args()
    data = build()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    write_avatars(data["users"], os.path.dirname(args.out))
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")
    n_messages = sum(len(m) for m in data["messages"].values())
    print(f"wrote {args.out}: {len(data['users'])} users, {len(data['chats'])} chats, {n_messages} messages")


if __name__ == "__main__":
    main()
