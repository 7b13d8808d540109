import HearthStore
import Synchronization

/// In a cluster: the storage log the catalog is a copy of (and its follower, which keeps it
/// bounded), where the objects' bytes are, and this copy's place in the log. Nil outside a
/// cluster. The position moves only under the store's change lock.
final class CatalogReplica: Sendable {
    struct State: Sendable {
        let follower: SharedLogFollower
        var log: any SharedLog { follower.log }
        let bytes: any SharedObjectBytes
        /// The position in `log` of the last batch this copy holds.
        var position: Int64
        /// Begins this node's resumable session ids (the node's id without its dashes), so
        /// other nodes know where a session's bytes are.
        let sessionTag: String
    }

    private let state = Mutex<State?>(nil)

    var current: State? { state.withLock { $0 } }

    func start(_ state: State) { self.state.withLock { $0 = state } }

    func move(to position: Int64) { state.withLock { $0?.position = position } }
}
