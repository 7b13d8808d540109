import AsyncHTTPClient
import Foundation
import HearthCore
import Hummingbird

extension ClusterRouting {
    /// The owner's side of an account deletion another node was asked for: only nodes of the
    /// cluster (a valid `Hearth-Forwarded` stamp) may call it.
    static let accountDeletionPath = "/.well-known/hearth/cluster/account-deletion"

    /// Runs account-deletion handler `handler` for `uid` on the node that owns `namespace`, when
    /// that is another node; false when it is this one (the caller runs it).
    /// - Throws: when the owner stopped answering or refused.
    func deleteAccountDataElsewhere(handler: Int, namespace: String, uid: String) async throws -> Bool {
        switch try await membership.route(namespace) {
        case .local:
            return false
        case .ownerSilent:
            throw ClusterRoutingError("the node serving namespace '\(namespace)' stopped answering; retry")
        case .forward(let url):
            let query = [("ns", namespace), ("uid", uid), ("handler", String(handler))].map { name, value in
                name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            }
            var request = HTTPClientRequest(url: url + Self.accountDeletionPath + "?" + query.joined(separator: "&"))
            request.method = .POST
            request.headers.add(
                name: ClusterForwarder.header.rawName,
                value: forwarder.stamp(
                    binding: Self.accountDeletionBinding(namespace: namespace, uid: uid, handler: handler)
                )
            )
            let answer = try await membership.client.execute(request, timeout: .minutes(10))
            let body = try await answer.body.collect(upTo: 64 << 10)
            guard answer.status == .ok else {
                membership.forgetOwner(namespace)
                throw ClusterRoutingError(
                    "the node serving namespace '\(namespace)' answered \(answer.status.code): \(String(buffer: body))"
                )
            }
            return true
        }
    }

    /// What an account deletion's stamp binds: the deletion's arguments.
    static func accountDeletionBinding(namespace: String, uid: String, handler: Int) -> String {
        "account-deletion\n" + namespace + "\n" + uid + "\n" + String(handler)
    }

    /// `POST /.well-known/hearth/cluster/account-deletion?ns=&uid=&handler=` from another node:
    /// runs the handler here while this node owns the namespace (else 503: it moved).
    func deleteAccountData(_ request: Request, query: Substring?) async -> Response {
        let refused = ResponseBuilder.json(#"{"error":"Only nodes of the cluster call this."}"#, status: .forbidden)
        guard request.method == .post, let stamp = request.headers[ClusterForwarder.header] else { return refused }
        guard let values = try? QueryString(query), let namespace = values["ns"], let uid = values["uid"],
            let handler = values["handler"].flatMap(Int.init), handler >= 0
        else {
            return ResponseBuilder.json(#"{"error":"Give ns, uid and handler."}"#, status: .badRequest)
        }
        // The stamp names this deletion: one seen on the wire deletes nothing else, and only
        // for a short while.
        let binding = Self.accountDeletionBinding(namespace: namespace, uid: uid, handler: handler)
        guard forwarder.isValidStamp(stamp, binding: binding) else { return refused }
        do {
            guard try await membership.route(namespace) == .local else {
                return Self.unavailable("Namespace '\(namespace)' is moving between nodes; retry.")
            }
            try await runAccountDeletion(handler, uid)
            return ResponseBuilder.json(#"{"status":"ok"}"#)
        } catch {
            logger.warning(
                "account data deletion failed",
                metadata: ["hearth.ns": "\(namespace)", "hearth.error": "\(error)"]
            )
            return Self.unavailable("Removing the account's data in '\(namespace)' failed (\(error)); retry.")
        }
    }
}

/// A cluster step that could not be taken (its message says what to do).
struct ClusterRoutingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
