import AsyncHTTPClient
import Foundation
import Testing

@testable import HearthServer

/// `Hearth-Forwarded` stamps: made by a node of the cluster (the shared admin secret), for what
/// they were made for, and only for a short while, so one seen on the wire cannot be used
/// later or for something else.
struct ClusterForwarderStampTests {
    static func withForwarders(
        _ body: (_ node: ClusterForwarder, _ stranger: ClusterForwarder) throws -> Void
    ) async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try body(
                ClusterForwarder(client: client, nodeID: "node-a", adminSecret: "cluster-secret"),
                ClusterForwarder(client: client, nodeID: "node-a", adminSecret: "another-secret")
            )
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func aStampHoldsForWhatItWasMadeForOnly() async throws {
        try await Self.withForwarders { node, stranger in
            let deletion = ClusterRouting.accountDeletionBinding(namespace: "default", uid: "ada", handler: 0)
            let stamp = node.stamp(binding: deletion)
            #expect(node.isValidStamp(stamp, binding: deletion))
            // Another user's data, another namespace, another handler, a plain forward.
            #expect(
                !node.isValidStamp(
                    stamp,
                    binding: ClusterRouting.accountDeletionBinding(namespace: "default", uid: "bob", handler: 0)
                )
            )
            #expect(
                !node.isValidStamp(
                    stamp,
                    binding: ClusterRouting.accountDeletionBinding(namespace: "other", uid: "ada", handler: 0)
                )
            )
            #expect(
                !node.isValidStamp(
                    stamp,
                    binding: ClusterRouting.accountDeletionBinding(namespace: "default", uid: "ada", handler: 1)
                )
            )
            #expect(!node.isValidStamp(stamp))
            #expect(node.isValidStamp(node.stamp()))
            // Made without the cluster's secret.
            #expect(!node.isValidStamp(stranger.stamp()))
        }
    }

    @Test func aStampExpiresAndItsTimeCannotBeChanged() async throws {
        try await Self.withForwarders { node, _ in
            let stamp = node.stamp()
            let parts = stamp.split(separator: ":").map(String.init)
            let time = try #require(Int64(parts[1]))
            #expect(node.isValidStamp(stamp, now: time + ClusterForwarder.validity))
            #expect(!node.isValidStamp(stamp, now: time + ClusterForwarder.validity + 1))
            #expect(!node.isValidStamp(stamp, now: time - ClusterForwarder.validity - 1))
            // A later time with the old code, another node's id with the old code.
            let later = [parts[0], String(time + 600), parts[2]].joined(separator: ":")
            #expect(!node.isValidStamp(later, now: time + 600))
            let other = ["node-b", parts[1], parts[2]].joined(separator: ":")
            #expect(!node.isValidStamp(other, now: time))
            // The format before stamps had a time: node and code only.
            #expect(!node.isValidStamp(parts[0] + ":" + parts[2], now: time))
        }
    }
}
