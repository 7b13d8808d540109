import AsyncHTTPClient
import Foundation
import HearthPush
import HearthPushFakes
import NIOCore
import Testing

/// The fake FCM refuses what Google would refuse, so a provider test that passes against it means
/// something.
struct FakeFCMTests {
    @Test func aJWTSignedWithAnotherKeyIsRefused() async throws {
        try await withFakeFCM { fake, _ in
            // The same account, another key: the signature cannot verify with the fake's public half.
            let other = try FakeServiceAccount(projectID: fake.account.projectID, tokenURI: fake.account.tokenURI)
            let path = fake.serviceAccountFile + ".other.json"
            try other.write(
                to: path,
                replacing: ["client_email": fake.account.clientEmail, "private_key_id": fake.account.privateKeyID]
            )
            try await withPushClient { client in
                let provider = try FCMProvider(
                    serviceAccountFile: path,
                    endpoint: fake.endpoint,
                    httpClient: client,
                    configuration: testHTTPConfiguration
                )
                #expect(await provider.send(samplePush()) == .retry(.auth, after: nil))
            }
            #expect(fake.violations == ["grant: Invalid JWT Signature."])
            #expect(fake.sends.isEmpty)
        }
    }

    @Test func aMessageBreakingGooglesRulesIsRefusedFieldByField() async throws {
        try await withFakeFCM { fake, provider in
            #expect(await provider.send(samplePush()) == .accepted)
            let accessToken = try #require(fake.grants.first?.accessToken)
            let body = #"""
                {"message": {"token": "t", "data": {"badge": 3, "from": "x"}, "apns": {"payload": {"aps": {"badge": -1}}},
                 "android": {"priority": "urgent"}, "notification": {"title": "a", "subtitle": "b"}}}
                """#
            var request = HTTPClientRequest(
                url: fake.endpoint.absoluteString + "/v1/projects/\(fake.account.projectID)/messages:send"
            )
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            let answer = String(buffer: try await response.body.collect(upTo: 1 << 16))
            #expect(response.status.code == 400)
            #expect(answer.contains(#""status":"INVALID_ARGUMENT""#))
            for field in [
                "message.data[0].value", "Invalid data key 'from'", "message.apns.payload.aps.badge",
                "message.android.priority", "message.notification.subtitle",
            ] {
                #expect(fake.violations.last?.contains(field) == true, "\(field)")
            }
        }
    }

    @Test func aTokenItNeverIssuedIsAViolation() async throws {
        try await withFakeFCM { fake, _ in
            var request = HTTPClientRequest(
                url: fake.endpoint.absoluteString + "/v1/projects/\(fake.account.projectID)/messages:send"
            )
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer made-up")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"message":{"token":"t"}}"#))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            #expect(response.status.code == 401)
            #expect(fake.violations == ["send: a bearer token it never issued"])
        }
    }
}
