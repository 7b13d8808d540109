import ArgumentParser
import Foundation
import HearthChat
import HearthPush

/// The push provider `hearth serve` delivers through: `--push-webhook URL` or `--push-fcm FILE`
/// (with `--push-fcm-endpoint URL`), checked when the flags are read so that a bad URL or key
/// file stops the start with a message that names it.
enum PushProviderSettings: Equatable, Sendable {
    case webhook(url: URL)
    case fcm(serviceAccountFile: String, endpoint: URL?)

    /// The provider the flags (or environment) name; nil for none.
    /// - Throws: `ValidationError` for both providers at once, a URL that is not http(s), a
    ///   service-account file that cannot be used, or an endpoint without `--push-fcm`.
    static func resolve(_ flags: ServeCommand, environment: Environment) throws -> PushProviderSettings? {
        let webhook = environment.string(flags.pushWebhook, "HEARTH_PUSH_WEBHOOK")
        let fcm = environment.string(flags.pushFcm, "HEARTH_PUSH_FCM")
        let endpoint = environment.string(flags.pushFcmEndpoint, "HEARTH_PUSH_FCM_ENDPOINT")
        switch (webhook, fcm) {
        case (nil, nil):
            if endpoint != nil {
                throw ValidationError("'--push-fcm-endpoint' needs '--push-fcm FILE' (a Google service-account key).")
            }
            return nil
        case (_?, _?):
            throw ValidationError(
                "Give one push provider: '--push-webhook URL' or '--push-fcm FILE' (and its environment variables), not both."
            )
        case (let url?, nil):
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host?.isEmpty == false
            else {
                throw ValidationError(
                    "Invalid '--push-webhook' URL '\(url)': give an http or https URL with a host, e.g. https://push.example.com/hearth."
                )
            }
            return .webhook(url: parsed)
        case (nil, let file?):
            do {
                _ = try FCMServiceAccount.load(path: file)
            } catch {
                throw ValidationError("\(error)")
            }
            var endpointURL: URL?
            if let endpoint {
                guard let parsed = URL(string: endpoint), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "")
                else {
                    throw ValidationError(
                        "Invalid '--push-fcm-endpoint' URL '\(endpoint)': give an http(s) URL, e.g. https://fcm.googleapis.com."
                    )
                }
                endpointURL = parsed
            }
            return .fcm(serviceAccountFile: file, endpoint: endpointURL)
        }
    }

    /// The chat app's push service delivering through this provider.
    func service(namespaces: Set<String>, adminSecret: String) -> ChatPushService {
        switch self {
        case .webhook(let url):
            return ChatPushService(provider: "webhook", namespaces: namespaces) { client in
                try WebhookProvider(url: url, secret: adminSecret, httpClient: client)
            }
        case .fcm(let file, let endpoint):
            return ChatPushService(provider: "fcm", namespaces: namespaces) { client in
                try FCMProvider(serviceAccountFile: file, endpoint: endpoint, httpClient: client)
            }
        }
    }
}
