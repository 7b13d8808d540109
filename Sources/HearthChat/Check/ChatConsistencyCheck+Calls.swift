import HearthCore

extension ChatConsistencyCheck {
    /// The calls' ringing markers and states agree (`CallRecord.ringingMarker`): every marker
    /// `ringingCalls/$chatId` names a ringing call of that chat, every ringing call has its
    /// chat's marker, and, in data at rest, no call is still ringing `ringTimeout` (45 s) after
    /// its `createdAt` as of `now`: a server that stopped while it rang marks it `missed` at its
    /// next start, so its data reports it until it has been started once.
    func callDisagreements(now: Double = ServerClock.system.now(), ringTimeout: Duration = .seconds(45)) -> [String] {
        var found: [String] = []
        let markers = DataPath(CallRecord.ringingKey)
        for chat in keys(at: markers) {
            let marker = reader.node(at: CallRecord.ringingMarker(chat))
            let call = marker?.string.flatMap { CallRecord.read($0, in: reader) }
            if call?.chatId != chat || call?.state != .ringing {
                found.append(
                    "\(CallRecord.ringingKey)/\(chat) is \(Self.describe(marker)), not the id of a ringing call of "
                        + "the chat \(chat) (it keeps the chat from ringing; the missed-call timer removes it)"
                )
            }
        }
        for id in keys(at: DataPath("calls")) {
            // The state alone first: most calls are over, and their offers are not read.
            guard reader.node(at: DataPath("calls", id, "state"))?.string == "ringing",
                let call = CallRecord.read(id, in: reader)
            else { continue }
            if reader.node(at: CallRecord.ringingMarker(call.chatId))?.string != id {
                found.append(
                    "calls/\(id) rings in the chat \(call.chatId), but \(CallRecord.ringingKey)/\(call.chatId) "
                        + "does not name it"
                )
            }
            if let createdAt = call.createdAt, now - createdAt >= ringTimeout.milliseconds {
                found.append(
                    "calls/\(id) is still ringing \(Self.number(((now - createdAt) / 1000).rounded(.down))) s after "
                        + "its createdAt: stuck (the server marks it missed at its next start)"
                )
            }
        }
        return found
    }
}
