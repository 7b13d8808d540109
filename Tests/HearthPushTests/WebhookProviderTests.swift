import Foundation
import HearthPush
import HearthPushFakes
import Testing

struct WebhookProviderTests {
    @Test func twoHundredAcceptsASignedPushWithTheContractsBodyAndHeaders() async throws {
        try await withWebhook { receiver, provider in
            let push = samplePush(platform: .webpush)
            #expect(await provider.send(push) == .accepted)
            #expect(receiver.violations == [])
            let delivery = try #require(receiver.deliveries.first)
            #expect(delivery.pushID == "push-1")
            #expect(delivery.signatureIsValid)
            #expect(delivery.body == push.webhookBody)
            let fields = try #require(delivery.json)
            #expect(fields.id == "push-1" && fields.uid == "alice" && fields.deviceId == "phone")
            #expect(fields.token == "token-abc" && fields.platform == "webpush")
            #expect(fields.title == "Bob" && fields.body == push.body && fields.badge == 3)
            #expect(fields.data == ["chatId": "chat-1", "messageId": "-Nmsg1"])
        }
    }

    @Test(arguments: [201, 202, 204, 299])
    func everyTwoHundredAccepts(status: Int) async throws {
        try await withWebhook { receiver, provider in
            receiver.answerNext([.status(status)])
            #expect(await provider.send(samplePush()) == .accepted)
        }
    }

    @Test(arguments: [400, 401, 404, 410, 500, 502, 503])
    func anyOtherAnswerIsRetried(status: Int) async throws {
        try await withWebhook { receiver, provider in
            receiver.answerNext([.status(status)])
            #expect(await provider.send(samplePush()) == .retry(.http(status), after: nil))
            #expect(receiver.violations == [])
        }
    }

    @Test func retryAfterOfTheAnswerIsTheHint() async throws {
        try await withWebhook { receiver, provider in
            receiver.answerNext([.status(429, retryAfter: 7), .status(503, retryAfter: 120)])
            #expect(await provider.send(samplePush()) == .retry(.http(429), after: .seconds(7)))
            #expect(await provider.send(samplePush()) == .retry(.http(503), after: .seconds(120)))
        }
    }

    @Test func aRetriedPushKeepsItsIdSoTheReceiverDropsTheDuplicate() async throws {
        try await withWebhook { receiver, provider in
            #expect(await provider.send(samplePush(id: "p-9")) == .accepted)
            #expect(await provider.send(samplePush(id: "p-9")) == .accepted)
            #expect(receiver.deliveries.map(\.pushID) == ["p-9", "p-9"])
            #expect(receiver.duplicates == ["p-9"])
            #expect(receiver.acceptedIDs == ["p-9"])
        }
    }

    @Test func aSlowReceiverTimesOut() async throws {
        let configuration = PushHTTPConfiguration(requestTimeout: .milliseconds(500))
        try await withWebhook(configuration: configuration) { receiver, provider in
            // The receiver would accept after 2 s: a timeout means the deadline cut the wait.
            receiver.answerNext([.slow(seconds: 2)])
            #expect(await provider.send(samplePush()) == .retry(.timeout, after: nil))
        }
    }

    @Test func aRefusedConnectionIsRetried() async throws {
        // A port that was just listening and no longer is.
        let receiver = try await WebhookReceiver.start(secret: "s")
        let url = receiver.url
        await receiver.shutdown()
        try await withPushClient { client in
            let provider = try WebhookProvider(
                url: url,
                secret: "s",
                httpClient: client,
                configuration: testHTTPConfiguration
            )
            let started = ContinuousClock.now
            #expect(await provider.send(samplePush()) == .retry(.connect, after: nil))
            // At once, not at the request's deadline (10 s) after the pool's own retries.
            #expect(ContinuousClock.now - started < .seconds(9))
        }
    }

    @Test func theReceiverRefusesAWrongSecretsSignature() async throws {
        try await withWebhook(secret: "right") { receiver, _ in
            try await withPushClient { client in
                let provider = try WebhookProvider(
                    url: receiver.url,
                    secret: "wrong",
                    httpClient: client,
                    configuration: testHTTPConfiguration
                )
                #expect(await provider.send(samplePush()) == .retry(.http(401), after: nil))
                #expect(receiver.violations.count == 1)
                #expect(receiver.acceptedIDs.isEmpty)
            }
        }
    }

    @Test(arguments: ["ftp://example.com/push", "/relative/path", "https://"])
    func aURLThatIsNotHTTPIsRefusedWithItsValue(text: String) async throws {
        try await withPushClient { client in
            let url = try #require(URL(string: text))
            let error = #expect(throws: PushError.self) {
                try WebhookProvider(url: url, secret: "s", httpClient: client)
            }
            #expect(error?.code == .invalidWebhook)
            #expect(error?.message.contains("'\(text)'") == true)
        }
    }

    @Test func anEmptySecretIsRefused() async throws {
        try await withPushClient { client in
            let error = #expect(throws: PushError.self) {
                try WebhookProvider(
                    url: URL(string: "https://push.example.com/hearth")!,
                    secret: "",
                    httpClient: client
                )
            }
            #expect(error?.code == .invalidWebhook)
            #expect(error?.message.contains("--admin-secret") == true)
        }
    }
}
