import HearthCore
import HearthDatabase

extension RESTService {
    /// Bodies this large, or of unknown length, are worth a read of the current data to be
    /// refused before they are read; smaller ones are read and judged as usual.
    static let earlyRefusalMinimumBytes = 64 << 10

    /// Refuses (401 `Permission denied`) a `PUT` or `POST` that the rules deny whatever its body
    /// holds, before the body is read: the `.write` rules from the root down to `target` are all
    /// false without reading `newData` (`NamespaceEngine.deniesEveryWrite`). When those rules read
    /// the current data, it is read for a body of `earlyRefusalMinimumBytes` or more. `PATCH`
    /// is not refused early (its written paths come from the body), nor is `DELETE` (no body).
    func refuseBeforeBody(
        _ call: Call,
        at target: DataPath,
        announcedBytes: Int?,
        in engine: NamespaceEngine
    ) async throws {
        guard call.method == .put || call.method == .post else { return }
        let readingCurrentData = (announcedBytes ?? Int.max) >= Self.earlyRefusalMinimumBytes
        if try await engine.deniesEveryWrite(at: target, as: call.caller, readingCurrentData: readingCurrentData) {
            throw RESTError.permissionDenied
        }
    }
}
