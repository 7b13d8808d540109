public import HearthCore
import HearthProtocol
import HearthStore

extension NamespaceEngine {
    /// Registers `subscriber` for the children of `path` in `range`, seen shallow (a leaf by its
    /// value, a child with children as `true`): the admin console's live page of a large node.
    /// Like a query listen, the start is the page as read now, then one merge per change to it
    /// (a child that appears, disappears, changes its value or turns from a leaf into a child
    /// with children or back); a change deep inside a child with children sends nothing. Only
    /// for the admin: Firebase has no shallow listen, so rules have nothing to say about one.
    /// - Throws: `StoreError.permissionDenied` for any other caller; `StoreError` when the store
    ///   cannot be read.
    public func listenShallow(
        path: DataPath,
        range: ShallowRange,
        subscriber: any ListenSubscriber,
        as caller: Caller
    ) async throws -> ListenStart {
        guard caller.bypassesRules, (1...ShallowRange.maxLimit).contains(range.limit) else {
            throw StoreError.permissionDenied
        }
        let registration = ListenRegistration(
            id: NamespaceEngine.nextRegistration.wrappingAdd(1, ordering: .relaxed).newValue,
            path: path,
            query: nil,
            queryIdentifier: .shallow(range.query),
            shallow: range
        )
        delivery.enqueue(.register(registration, subscriber))
        do {
            let (sequence, children) = try await store.read { reader in
                (reader.sequence, range.children(at: path, in: reader))
            }
            delivery.enqueue(.activate(id: registration.id, sequence: sequence, window: QueryWindow(children)))
            let data = QueryRunner.node(children)
            return ListenStart(
                data: data,
                hash: ValueHash.hash(data),
                registration: registration,
                warnings: [],
                sequence: sequence
            )
        } catch {
            delivery.enqueue(.unregister(id: registration.id))
            throw error
        }
    }
}
