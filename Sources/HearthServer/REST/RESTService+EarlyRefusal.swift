import HearthCore
import HearthDatabase
import HearthStore

extension RESTService {
    /// Bodies this large, or of unknown length, are worth a read of the current data to be
    /// refused before they are read; smaller ones are read and judged as usual.
    static let earlyRefusalMinimumBytes = 64 << 10

    /// Refuses (401 `Permission denied`) a `PUT` or `POST` that the rules deny whatever its body
    /// holds, before the body is read: the `.write` rules from the root down to `target` are all
    /// false without reading `newData` (`NamespaceRules.forecastWrite`). When those rules read
    /// the current data, it is read for a body of `earlyRefusalMinimumBytes` or more. `PATCH`
    /// is not refused early (its written paths come from the body), nor is `DELETE` (no body).
    func refuseBeforeBody(
        _ call: Call,
        at target: DataPath,
        announcedBytes: Int?,
        in namespace: NamespaceStore,
        rules: NamespaceRules
    ) async throws {
        guard call.method == .put || call.method == .post else { return }
        let caller = call.caller
        switch rules.forecastWrite(caller, at: target) {
        case .denied:
            throw RESTError.permissionDenied
        case .undecided:
            return
        case .needsCurrentData:
            guard (announcedBytes ?? Int.max) >= Self.earlyRefusalMinimumBytes else { return }
            let forecast = try await namespace.read { reader in
                rules.forecastWrite(caller, at: target, reader: reader)
            }
            if forecast == .denied { throw RESTError.permissionDenied }
        }
    }
}
