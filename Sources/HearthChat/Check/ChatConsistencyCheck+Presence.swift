import HearthCore
import HearthDatabase

extension ChatConsistencyCheck {
    /// `presence/$uid` as the server keeps it, in data at rest (a stopped server's): each entry
    /// is exactly `{state: "online"|"offline", lastChanged: <number>}`, and nobody is `online`,
    /// since no connection exists. A clean stop writes `offline` for everyone; a server that
    /// was killed (`kill -9`, a crash) leaves its users `online` until its next start sets them
    /// `offline` before serving, so its data reports them until it has been started once.
    func presenceDisagreements() -> [String] {
        var found: [String] = []
        let location = DataPath(keys: [ChildKey("presence")])
        guard case .children(let children) = reader.shallow(at: location) else { return [] }
        for child in children {
            let uid = child.key.string
            let entry = reader.node(at: location.child(child.key))
            guard case .children(let fields, _)? = entry else {
                found.append("presence/\(uid) is \(Self.describe(entry)), not {state, lastChanged}")
                continue
            }
            let state = fields[ChildKey("state")]
            switch state {
            case .leaf(.string("offline"), _)?:
                break
            case .leaf(.string("online"), _)?:
                found.append(
                    "presence/\(uid)/state is \"online\" with no server running: left by a server that did not stop "
                        + "cleanly (its next start sets it offline)"
                )
            default:
                found.append("presence/\(uid)/state is \(Self.describe(state)), not \"online\" or \"offline\"")
            }
            let lastChanged = fields[ChildKey("lastChanged")]
            if case .leaf(.number, _)? = lastChanged {
            } else {
                found.append("presence/\(uid)/lastChanged is \(Self.describe(lastChanged)), not a number")
            }
            for key in fields.keys where key.string != "state" && key.string != "lastChanged" {
                found.append("presence/\(uid)/\(key.string) is not a presence field (only state and lastChanged)")
            }
        }
        return found
    }
}
