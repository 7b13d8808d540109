import Foundation
import HearthPush
import HearthPushFakes
import Testing

struct FCMProviderTests {
    @Test func aPushIsGrantedASignedTokenAndSentWithEveryField() async throws {
        try await withFakeFCM { fake, provider in
            let push = samplePush()
            #expect(await provider.send(push) == .accepted)
            #expect(fake.violations == [])
            let grant = try #require(fake.grants.first)
            #expect(grant.header == ["alg": "RS256", "typ": "JWT", "kid": fake.account.privateKeyID])
            #expect(grant.claims["iss"] == fake.account.clientEmail)
            #expect(grant.claims["scope"] == "https://www.googleapis.com/auth/firebase.messaging")
            #expect(grant.claims["aud"] == fake.account.tokenURI)
            let iat = try #require(Int(grant.claims["iat"] ?? ""))
            #expect(Int(grant.claims["exp"] ?? "") == iat + 3600)
            let send = try #require(fake.accepted.first)
            #expect(send.accessToken == grant.accessToken)
            #expect(send.messageKeys == ["token", "notification", "data", "apns", "android"])
            #expect(send.token == "token-abc")
            #expect(send.title == "Bob" && send.body == push.body)
            #expect(send.data == ["chatId": "chat-1", "messageId": "-Nmsg1", "pushId": "push-1"])
            #expect(send.badge == 3)
            #expect(send.androidPriority == "high")
        }
    }

    @Test func aCallPushCarriesCallIdAndApnsTokensGoThroughFCM() async throws {
        try await withFakeFCM { fake, provider in
            let push = samplePush(platform: .apns, data: .call(chatID: "chat-2", callID: "call-5"))
            #expect(await provider.send(push) == .accepted)
            #expect(fake.accepted.first?.data == ["chatId": "chat-2", "callId": "call-5", "pushId": "push-1"])
            #expect(fake.violations == [])
        }
    }

    @Test func oneGrantServesManyConcurrentSends() async throws {
        try await withFakeFCM { fake, provider in
            await withTaskGroup(of: PushOutcome.self) { group in
                for index in 0..<40 { group.addTask { await provider.send(samplePush(id: "p\(index)")) } }
                for await outcome in group { #expect(outcome == .accepted) }
            }
            #expect(fake.grants.count == 1)
            #expect(await provider.grantCount == 1)
            #expect(fake.accepted.count == 40)
            #expect(Set(fake.accepted.map(\.accessToken)).count == 1)
            #expect(fake.violations == [])
        }
    }

    @Test func theTokenIsRenewedAMinuteBeforeItExpires() async throws {
        try await withFakeFCM { fake, provider in
            #expect(await provider.send(samplePush()) == .accepted)
            // Still well inside the hour (with room for a slow machine between the two sends).
            fake.clock.advance(by: .seconds(3600 - 120))
            #expect(await provider.send(samplePush()) == .accepted)
            #expect(fake.grants.count == 1)
            // Less than a minute before the token expires: a new one, though the old still works.
            fake.clock.advance(by: .seconds(61))
            #expect(await provider.send(samplePush()) == .accepted)
            #expect(fake.grants.count == 2)
            #expect(fake.accepted.map(\.accessToken)[1] != fake.accepted.map(\.accessToken)[2])
            #expect(fake.sends.map(\.answerStatus) == [200, 200, 200])
            #expect(fake.violations == [])
        }
    }

    @Test func aRefusedAccessTokenIsReplacedOnceAndTheSendRepeated() async throws {
        try await withFakeFCM { fake, provider in
            #expect(await provider.send(samplePush()) == .accepted)
            fake.revokeAccessTokens()
            #expect(await provider.send(samplePush()) == .accepted)
            #expect(fake.grants.count == 2)
            #expect(fake.sends.map(\.answerStatus) == [200, 200])
            // A 401 answered on demand to a valid token: the same.
            fake.answerNextSends([.expiredAccessToken])
            #expect(await provider.send(samplePush()) == .accepted)
            #expect(fake.grants.count == 3)
            #expect(fake.sends.map(\.answerStatus) == [200, 200, 401, 200])
            #expect(fake.violations == [])
        }
    }

    @Test func aSecond401InARowIsRetriedLaterAsAuth() async throws {
        try await withFakeFCM { fake, provider in
            fake.answerNextSends([.expiredAccessToken, .expiredAccessToken])
            #expect(await provider.send(samplePush()) == .retry(.auth, after: nil))
            #expect(fake.grants.count == 2)
        }
    }

    @Test func aRefusedGrantIsRetriedAsAuthAndTheNextSendGrantsAgain() async throws {
        try await withFakeFCM { fake, provider in
            fake.answerNextGrants([FakeFCM.invalidGrant])
            #expect(await provider.send(samplePush()) == .retry(.auth, after: nil))
            #expect(fake.sends.isEmpty)
            #expect(await provider.send(samplePush()) == .accepted)
            #expect(fake.grants.count == 2)
        }
    }

    static let errorCases: [(FakeFCMAnswer, PushOutcome)] = [
        (.unregistered, .unregistered(.unregistered)),
        (.notFound, .unregistered(.notFound)),
        (.invalidToken, .unregistered(.invalidToken)),
        (.invalidPayload(field: "message.data[0].value"), .rejected(.invalidArgument)),
        (.invalidPayload(field: "message.token"), .unregistered(.invalidToken)),
        (.senderIDMismatch, .unregistered(.senderIDMismatch)),
        (.thirdPartyAuthError, .rejected(.thirdPartyAuth)),
        (.permissionDenied, .retry(.permissionDenied, after: nil)),
        (.quotaExceeded(retryAfter: 30), .retry(.quotaExceeded, after: .seconds(30))),
        (.quotaExceeded(retryAfter: nil), .retry(.quotaExceeded, after: .seconds(60))),
        (.unavailable(retryAfter: 10), .retry(.unavailable, after: .seconds(10))),
        (.unavailable(retryAfter: nil), .retry(.unavailable, after: nil)),
        (.internalError, .retry(.internal, after: nil)),
        (.html(status: 404), .retry(.http(404), after: nil)),
        (.html(status: 502), .retry(.http(502), after: nil)),
    ]

    @Test(arguments: errorCases)
    func errorsMapAsGoogleDocumentsThem(answer: FakeFCMAnswer, outcome: PushOutcome) async throws {
        try await withFakeFCM { fake, provider in
            fake.answerNextSends([answer])
            #expect(await provider.send(samplePush()) == outcome)
            #expect(fake.sends.count == 1)
            #expect(await provider.send(samplePush()) == .accepted)
        }
    }

    @Test func aDeadTokensAnswerConcernsOnlyItsDevice() async throws {
        try await withFakeFCM { fake, provider in
            fake.answerSends(toToken: "dead", with: .unregistered)
            #expect(await provider.send(samplePush(token: "dead")) == .unregistered(.unregistered))
            #expect(await provider.send(samplePush(token: "alive")) == .accepted)
            #expect(fake.accepted.map(\.token) == ["alive"])
        }
    }

    @Test func aSlowSendTimesOut() async throws {
        try await withFakeFCM(configuration: PushHTTPConfiguration(requestTimeout: .milliseconds(500))) {
            fake,
            provider in
            fake.answerNextSends([.slow(seconds: 2)])
            #expect(await provider.send(samplePush()) == .retry(.timeout, after: nil))
        }
    }

    @Test func anUnreachableFCMIsRetried() async throws {
        try await withTemporaryDirectory { directory in
            let fake = try await FakeFCM.start(directory: directory)
            await fake.shutdown()
            try await withPushClient { client in
                let provider = try FCMProvider(
                    serviceAccountFile: fake.serviceAccountFile,
                    endpoint: fake.endpoint,
                    httpClient: client,
                    configuration: testHTTPConfiguration
                )
                #expect(await provider.send(samplePush()) == .retry(.connect, after: nil))
            }
        }
    }

    @Test func plainHTTPIsRefusedForAnotherMachine() async throws {
        try await withFakeFCM { fake, _ in
            try await withPushClient { client in
                let error = #expect(throws: PushError.self) {
                    try FCMProvider(
                        serviceAccountFile: fake.serviceAccountFile,
                        endpoint: URL(string: "http://fcm.example.com")!,
                        httpClient: client
                    )
                }
                #expect(error?.code == .invalidEndpoint)
                #expect(error?.message.contains("'http://fcm.example.com'") == true)
            }
        }
    }
}

extension FakeFCMAnswer: CustomTestStringConvertible {
    public var testDescription: String { "\(self)" }
}
