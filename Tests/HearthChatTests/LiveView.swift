import Foundation
import HearthTestSupport

/// What one user's app shows through its realtime connection: a real WebSocket authenticated
/// with the user's ID token, listening on some paths, and the data there as the server's pushes
/// left it (`d` sets a path, `m` merges children into it; `c` cancels a listen). A test waits
/// for the view to reach a state: each wait takes the pushes as they arrive and is bounded by a
/// timeout, with no sleeping.
final class LiveView {
    let owner: String
    let client: RealtimeTestClient
    /// The data the listens delivered, as a JSON tree from the root (nil: nothing).
    private var root: Any?
    /// The paths whose listen the server cancelled (`c`: the rules no longer allow it).
    private(set) var cancelled: Set<String> = []

    private init(owner: String, client: RealtimeTestClient) {
        self.owner = owner
        self.client = client
    }

    /// A connection signed in as `name` (their ID token in the `auth` request).
    static func open(_ chat: ChatServer, as name: String) async throws -> LiveView {
        let view = LiveView(owner: name, client: try await RealtimeTestClient.connect(port: chat.server.port))
        let reply = try await view.client.response(
            to: view.client.request("auth", #"{"cred":"\#(chat.users[name]!.token)"}"#)
        )
        guard reply.body["s"] as? String == "ok" else { throw TestFailure("\(name)'s auth failed: \(reply.body)") }
        return view
    }

    /// Listens on `path` (from the root); throws unless the server accepts.
    func listen(_ path: String) async throws {
        let status = try await askToListen(path)
        guard status == "ok" else { throw TestFailure("\(owner)'s listen on \(path) answered \(status ?? "nothing")") }
    }

    /// Asks to listen on `path`; returns the answer's status (`ok`, `permission_denied`).
    func askToListen(_ path: String) async throws -> String? {
        try await send("q", #"{"p":"\#(path)","h":""}"#)["s"] as? String
    }

    /// The status of a listen on `path` by `name`, on a connection of its own.
    static func listenStatus(_ chat: ChatServer, as name: String, _ path: String) async throws -> String? {
        let view = try await open(chat, as: name)
        let status = try await view.askToListen(path)
        await view.close()
        return status
    }

    /// Sets `path` to `json` over this connection (`p`); returns the answer's status.
    func put(_ path: String, _ json: String) async throws -> String? {
        try await send("p", #"{"p":"\#(path)","d":\#(json)}"#)["s"] as? String
    }

    /// The value at `path` (slash-separated, from the root) in the view.
    func value(_ path: String) -> Any? {
        var node = root
        for key in Self.keys(path) { node = (node as? [String: Any])?[key] }
        return node
    }

    func number(_ path: String) -> Double? { value(path) as? Double }

    /// Takes pushes until `condition` holds; throws, showing the view, when it has not within
    /// `timeout`.
    func waitUntil(
        _ what: String,
        timeout: Duration = .seconds(10),
        _ condition: (LiveView) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            let left = deadline - ContinuousClock.now
            let push: [String: Any]
            do {
                guard left > .zero else { throw TestFailure("no time left") }
                push = try await client.nextPush(timeout: left)
            } catch {
                throw TestFailure(
                    "\(owner)'s view never showed \(what) within \(timeout) (\(error)); it shows \(canonicalJSON(root))"
                )
            }
            apply(push)
        }
    }

    func close() async { await client.close() }

    /// Sends request `action` and applies the pushes that came before its answer.
    private func send(_ action: String, _ body: String) async throws -> [String: Any] {
        let (pushes, answer) = try await client.response(to: client.request(action, body))
        pushes.forEach(apply)
        return answer
    }

    private func apply(_ push: [String: Any]) {
        guard let body = push["b"] as? [String: Any], let path = body["p"] as? String else { return }
        switch push["a"] as? String {
        case "d":
            root = Self.setting(root, Self.keys(path)[...], to: body["d"])
        case "m":
            for (child, value) in body["d"] as? [String: Any] ?? [:] {
                root = Self.setting(root, (Self.keys(path) + Self.keys(child))[...], to: value)
            }
        case "c":
            cancelled.insert(Self.keys(path).joined(separator: "/"))
        default:
            break
        }
    }

    private static func keys(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// `tree` with the value at `keys` replaced by `value` (null or nil: removed, with the
    /// objects it leaves empty).
    private static func setting(_ tree: Any?, _ keys: ArraySlice<String>, to value: Any?) -> Any? {
        guard let key = keys.first else { return value is NSNull ? nil : value }
        var object = tree as? [String: Any] ?? [:]
        object[key] = setting(object[key], keys.dropFirst(), to: value)
        return object.isEmpty ? nil : object
    }
}
