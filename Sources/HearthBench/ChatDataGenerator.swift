import Foundation

/// A small deterministic random source (SplitMix64), so every run loads the same data.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Firebase-style chronological push ids: 8 time characters, 12 random ones, incremented within a millisecond.
struct PushIDGenerator: Sendable {
    static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)
    private var lastTime: Int64 = -1
    private var lastRandom = [Int](repeating: 0, count: 12)

    /// A push id for now, random part seeded from the monotonic clock: names one benchmark run.
    static func fresh() -> String {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds))
        var generator = PushIDGenerator()
        return String(
            decoding: generator.next(time: Int64(Date().timeIntervalSince1970 * 1000), using: &random),
            as: UTF8.self
        )
    }

    mutating func next(time: Int64, using rng: inout SplitMix64) -> [UInt8] {
        var id = [UInt8](repeating: 0, count: 20)
        var t = time
        for i in stride(from: 7, through: 0, by: -1) {
            id[i] = Self.alphabet[Int(t % 64)]
            t /= 64
        }
        if time == lastTime {
            var i = 11
            while i >= 0 && lastRandom[i] == 63 {
                lastRandom[i] = 0
                i -= 1
            }
            if i >= 0 { lastRandom[i] += 1 }
        } else {
            for i in 0..<12 { lastRandom[i] = Int(rng.next() & 63) }
            lastTime = time
        }
        for i in 0..<12 { id[8 + i] = Self.alphabet[lastRandom[i]] }
        return id
    }
}

/// Writes chat-like JSON (users, messages) quickly, straight into a byte array.
struct ChatDataGenerator: Sendable {
    private var rng: SplitMix64
    private var pushIDs = PushIDGenerator()
    private var clock: Int64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z
    private let senders: [[UInt8]]

    private static let words: [[UInt8]] = [
        "hey", "so", "I", "think", "we", "should", "meet", "at", "the", "café", "tomorrow", "morning", "sounds",
        "good", "to", "me", "what", "time", "works", "for", "you", "lol", "that's", "hilarious", "did", "see",
        "game", "last", "night", "running", "late", "sorry", "on", "my", "way", "can't", "wait", "🎉", "👍",
        "weekend", "trip", "flights", "are", "booked", "who", "is", "driving", "bring", "snacks", "and", "water",
        "thanks", "so", "much", "no", "worries", "let", "me", "check", "get", "back", "today", "really", "nice",
    ].map { Array($0.utf8) }

    init(seed: UInt64, senderCount: Int = 200) {
        var rng = SplitMix64(seed: seed)
        let uidAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        senders = (0..<senderCount).map { _ in
            (0..<28).map { _ in uidAlphabet[Int(rng.next() % UInt64(uidAlphabet.count))] }
        }
        self.rng = rng
    }

    /// A push id for "now" on the generator's clock, which advances a few seconds per call.
    mutating func nextKey() -> [UInt8] {
        clock += Int64(rng.next() % 20_000)
        return pushIDs.next(time: clock, using: &rng)
    }

    mutating func randomInt(below bound: Int) -> Int {
        Int(rng.next() % UInt64(bound))
    }

    /// Appends `"<push id>":{"kind":"text","sender":"…","sentAt":…,"text":"…"}`.
    mutating func appendMessage(to out: inout [UInt8]) {
        let key = nextKey()
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: key)
        out.append(contentsOf: #"":{"kind":"text","sender":""#.utf8)
        out.append(contentsOf: senders[randomInt(below: senders.count)])
        out.append(contentsOf: #"","sentAt":"#.utf8)
        out.append(contentsOf: String(clock).utf8)
        out.append(contentsOf: #","text":""#.utf8)
        let wordCount = 2 + randomInt(below: 24)
        for i in 0..<wordCount {
            if i > 0 { out.append(UInt8(ascii: " ")) }
            out.append(contentsOf: Self.words[randomInt(below: Self.words.count)])
        }
        out.append(contentsOf: "\"}".utf8)
    }

    /// Appends `{…messages…}` of about `bytes` bytes.
    mutating func appendMessages(approximately bytes: Int, to out: inout [UInt8]) {
        let end = out.count + bytes
        out.append(UInt8(ascii: "{"))
        var first = true
        while out.count < end {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            appendMessage(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends `"<uid>":{"createdAt":…,"displayName":"…","email":"…","phoneNumber":"+1…","status":"…"}` for every sender.
    func appendUsers(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, uid) in senders.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: uid)
            let number = String(1_000_000 + i).dropFirst()
            out.append(
                contentsOf: #"":{"createdAt":1704067200000,"displayName":"User \#(i)","email":"user\#(i)@example.com","#
                    .utf8
            )
            out.append(contentsOf: #""phoneNumber":"+1415555\#(number.suffix(4))","status":"Available"}"#.utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}
