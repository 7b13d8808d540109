import AsyncHTTPClient
import Foundation
import HearthPush
import HearthPushFakes

/// A push to a device, with the fields a test checks on the far side.
func samplePush(
    id: String = "push-1",
    token: String = "token-abc",
    platform: PushPlatform = .fcm,
    data: PushData = .message(chatID: "chat-1", messageID: "-Nmsg1")
) -> PushMessage {
    PushMessage(
        id: id,
        uid: "alice",
        deviceID: "phone",
        token: token,
        platform: platform,
        title: "Bob",
        body: "See you at \"8\" \\ tonight\n🎉",
        badge: 3,
        data: data
    )
}

/// A fresh directory under the system's temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-push-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// The providers' bounds in tests: a grant (RSA in a debug build) on a machine loaded by parallel
/// tests can take seconds, so only the timeout tests set a short deadline.
let testHTTPConfiguration = PushHTTPConfiguration(requestTimeout: .seconds(60))

/// A client configured as the providers' (`PushHTTPConfiguration.makeClient()`), shut down after `body`.
func withPushClient<T>(
    _ configuration: PushHTTPConfiguration = testHTTPConfiguration,
    _ body: (HTTPClient) async throws -> T
) async throws -> T {
    let client = configuration.makeClient()
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// A fake FCM and a provider pointed at it, sharing one wall clock.
func withFakeFCM(
    configuration: PushHTTPConfiguration = testHTTPConfiguration,
    _ body: (FakeFCM, FCMProvider) async throws -> Void
) async throws {
    try await withTemporaryDirectory { directory in
        let clock = FakeWallClock()
        let fake = try await FakeFCM.start(directory: directory, clock: clock)
        do {
            try await withPushClient(configuration) { client in
                let provider = try FCMProvider(
                    serviceAccount: FCMServiceAccount.load(path: fake.serviceAccountFile),
                    endpoint: fake.endpoint,
                    httpClient: client,
                    configuration: configuration,
                    now: { clock.now() }
                )
                try await body(fake, provider)
            }
        } catch {
            await fake.shutdown()
            throw error
        }
        await fake.shutdown()
    }
}

/// A webhook receiver and a provider pointed at it.
func withWebhook(
    secret: String = "test-admin-secret",
    configuration: PushHTTPConfiguration = testHTTPConfiguration,
    _ body: (WebhookReceiver, WebhookProvider) async throws -> Void
) async throws {
    let receiver = try await WebhookReceiver.start(secret: secret)
    do {
        try await withPushClient(configuration) { client in
            let provider = try WebhookProvider(
                url: receiver.url,
                secret: secret,
                httpClient: client,
                configuration: configuration
            )
            try await body(receiver, provider)
        }
    } catch {
        await receiver.shutdown()
        throw error
    }
    await receiver.shutdown()
}
