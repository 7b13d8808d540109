import Testing

@testable import HearthChat

/// The push queue's record of a planned intent and its done set, as stored.
@Suite struct PlannedIntentTests {
    private let planned = PlannedIntent(
        content: PushContent(
            chatId: "c1",
            messageId: nil,
            callId: "call-1",
            title: "Zoë's group ✨",
            body: "Incoming video call",
            createdAt: 1_764_400_000_123.5
        ),
        pushes: (0..<130).map { n in
            .init(
                uid: "u\(n)",
                deviceId: n.isMultiple(of: 2) ? "phone" : "tablet",
                number: n,
                badge: n * 1000,
                tokenHash: UInt64.max - UInt64(n)
            )
        }
    )

    @Test func aRecordReadsBackAsWritten() throws {
        let bytes = planned.encoded()
        #expect(PlannedIntent(decoding: bytes) == planned)
        var message = planned
        message.content.callId = nil
        message.content.messageId = "m-1"
        #expect(PlannedIntent(decoding: message.encoded()) == message)
        // Its ids, numbers and hash: no copy of the content per device.
        #expect(bytes.count < 100 + planned.pushes.count * 24)
    }

    @Test func aDamagedRecordIsRefused() {
        let bytes = planned.encoded()
        #expect(PlannedIntent(decoding: Array(bytes.dropLast())) == nil)
        #expect(PlannedIntent(decoding: bytes + [0]) == nil)
        #expect(PlannedIntent(decoding: [2] + bytes.dropFirst()) == nil)
        #expect(PlannedIntent(decoding: []) == nil)
        // A push count larger than the record could hold.
        #expect(PlannedIntent(decoding: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f]) == nil)
    }

    @Test func aDoneSetMarksEachPushApart() {
        var done = PushDoneSet(count: 130)
        #expect(done.bytes.count == 17)
        for index in [0, 7, 8, 129] { done.insert(index) }
        let read = PushDoneSet(bytes: done.bytes, count: 130)
        #expect((0..<130).filter(read.contains) == [0, 7, 8, 129])
        // Bytes shorter than the count: the rest not done.
        #expect(!PushDoneSet(bytes: [0xff], count: 130).contains(8))
        #expect(PushDoneSet(bytes: [0xff], count: 130).contains(7))
    }

    @Test func anIntentReadsBackAsWritten() {
        let message = PushIntent(
            chatId: "c1",
            subject: .message(id: "-Nabc"),
            sender: "ada",
            recipients: ["bob", "cy", "dé"],
            badges: [1, 300, 0],
            body: "hello 👋",
            createdAt: 1_764_400_000_001
        )
        #expect(PushIntent(decoding: message.encoded()) == message)
        let call = PushIntent(
            chatId: "c1",
            subject: .call(id: "-Ncall", kind: "video"),
            sender: "ada",
            recipients: ["bob"],
            body: nil,
            createdAt: 5
        )
        #expect(PushIntent(decoding: call.encoded()) == call)
        #expect(PushIntent(decoding: Array(message.encoded().dropLast())) == nil)
        #expect(PushIntent(decoding: message.encoded() + [0]) == nil)
    }

    @Test func anIntentQueuedAsJSONByAnEarlierVersionIsRead() {
        let json =
            #"{"chatId":"c1","messageId":"m1","sender":"ada","recipients":["bob","cy"],"badges":[2,3],"#
            + #""body":"hi","createdAt":12}"#
        let intent = PushIntent(decoding: Array(json.utf8))
        #expect(
            intent
                == PushIntent(
                    chatId: "c1",
                    subject: .message(id: "m1"),
                    sender: "ada",
                    recipients: ["bob", "cy"],
                    badges: [2, 3],
                    body: "hi",
                    createdAt: 12
                )
        )
    }
}
