import HearthCore
import HearthPush
import Hummingbird

extension RESTService {
    static let pushPath = "/.settings/push.json"

    /// `GET /.settings/push.json` (admin): the push queues. `{"provider": "webhook" | "fcm" | null,
    /// "namespaces": {"<ns>": {"queued", "intents", "sent", "failed": {reason: n}, "dropped":
    /// {reason: n}, "oldestAgeSeconds", "devices": [{"uid", "deviceId", "pushId", "createdAt",
    /// "failedAttempts", "retryAt", "lastFailure"}]}}}` (no provider: null and no namespaces).
    func pushStatus(_ call: Call) async throws -> Response {
        guard call.credential == .admin else { throw RESTError.permissionDenied }
        guard call.method == .get else { throw Self.methodNotAllowed }
        var namespaces: [(String, JSONValue)] = []
        if let push {
            let now = ServerClock.system.now()
            for (name, figures) in await push.figures().sorted(by: { $0.key < $1.key }) {
                namespaces.append((name, Self.json(figures, now: now)))
            }
        }
        let document: JSONValue = .object([
            ("provider", push.map { .string($0.provider) } ?? .null), ("namespaces", .object(namespaces)),
        ])
        var out: [UInt8] = []
        JSONRenderer.render(document, into: &out)
        return ResponseBuilder.json(out, print: call.options.print)
    }

    private static func json(_ figures: PushQueueFigures, now: Double) -> JSONValue {
        func counts(_ table: [String: Int]) -> JSONValue {
            .object(table.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })
        }
        let devices: [JSONValue] = figures.devices.map { device in
            .object([
                ("uid", .string(device.uid)), ("deviceId", .string(device.deviceId)),
                ("pushId", .string(device.pushId)),
                ("createdAt", .number(device.createdAt)), ("failedAttempts", .number(Double(device.failedAttempts))),
                ("retryAt", device.retryAt.map { .number($0) } ?? .null),
                ("lastFailure", device.lastFailure.map { .string($0) } ?? .null),
            ])
        }
        return .object([
            ("queued", .number(Double(figures.queued))), ("intents", .number(Double(figures.intents))),
            ("sent", .number(Double(figures.sent))), ("failed", counts(figures.failed)),
            ("dropped", counts(figures.dropped)),
            ("oldestAgeSeconds", figures.oldestCreatedAt.map { .number(max(0, now - $0) / 1000) } ?? .null),
            ("devices", .array(devices)),
        ])
    }
}
