import Foundation
import HearthTestSupport

@testable import HearthChat

/// Helpers for the blocking tests.
extension ChatServer {
    /// `blocker` calls `blockUser` (or `unblockUser`) on `blocked`, expecting `{}`.
    func block(_ blocked: String, by blocker: String, unblock: Bool = false) async throws {
        let reply = try await call(
            unblock ? "unblockUser" : "blockUser",
            as: blocker,
            data: #"{"uid":"\#(uid(blocked))"}"#
        )
        guard reply.status == 200, try ChatServer.result(reply) == "{}" else {
            throw TestFailure(
                "\(unblock ? "unblock" : "block") \(blocked) by \(blocker): \(reply.status) \(reply.body)"
            )
        }
    }

    /// The marker path of `blocker` blocking `blocked` (`BlockList.marker`), as a REST path.
    func markerPath(_ blocker: String, _ blocked: String) -> String {
        "/blockedSenders/\(CreateChat.chatID(uid(blocker), uid(blocked)))/\(uid(blocked))"
    }

    /// The error body of a refused call with `uid` replaced by `<uid>`: what a caller can tell
    /// apart.
    static func shape(_ reply: TestServer.Reply, hiding uid: String) -> String {
        "\(reply.status) " + reply.body.replacingOccurrences(of: uid, with: "<uid>")
    }
}
