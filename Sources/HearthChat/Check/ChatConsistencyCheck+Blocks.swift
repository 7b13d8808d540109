import HearthCore

extension ChatConsistencyCheck {
    /// Every block names two registered users (a profile at `users/$uid`: deleting an account
    /// removes its blocks and the blocks naming it) and has its marker, and every marker is
    /// that of a block (`BlockList`): `blockedSenders/$chatId/$uid` holds the blocker's uid,
    /// `$chatId` is the private chat of the pair, and `blocks/<blocker>/$uid` is `true`.
    func checkBlocks() -> [String] {
        var found: [String] = []
        for blocker in keys(at: DataPath("blocks")) {
            for blocked in keys(at: BlockList.list(of: blocker)) {
                let entry = "blocks/\(blocker)/\(blocked)"
                let value = reader.node(at: BlockList.entry(blocker, blocked))
                if value != .leaf(.bool(true), priority: nil) {
                    found.append("\(entry) is \(Self.describe(value)), not true")
                }
                for uid in [blocker, blocked] where reader.node(at: DataPath("users", uid)) == nil {
                    found.append("\(entry) names \(uid), who has no profile (a deleted account's blocks go with it)")
                }
                let marker = reader.node(at: BlockList.marker(blocker, blocked))
                if marker != .leaf(.string(blocker), priority: nil) {
                    found.append(
                        "\(BlockList.markersKey)/\(CreateChat.chatID(blocker, blocked))/\(blocked) is "
                            + "\(Self.describe(marker)), but \(entry) calls for \"\(blocker)\""
                    )
                }
            }
        }
        for chat in keys(at: DataPath(BlockList.markersKey)) {
            for blocked in keys(at: DataPath(BlockList.markersKey, chat)) {
                let path = "\(BlockList.markersKey)/\(chat)/\(blocked)"
                let marker = reader.node(at: DataPath(BlockList.markersKey, chat, blocked))
                guard case .leaf(.string(let blocker), _)? = marker, CreateChat.chatID(blocker, blocked) == chat else {
                    found.append(
                        "\(path) is \(Self.describe(marker)), not the uid of a user whose private chat with "
                            + "\(blocked) is \(chat)"
                    )
                    continue
                }
                if reader.node(at: BlockList.entry(blocker, blocked)) == nil {
                    found.append(
                        "\(path) says \(blocker) blocks \(blocked), but blocks/\(blocker)/\(blocked) is absent"
                    )
                }
            }
        }
        return found
    }
}
