import HearthCore
import HearthFunctions

/// The writes that finish a call, all in one commit: its final `state` and `endedAt`, its
/// ringing marker gone (when it rang), and the `kind: "call"` message in its chat
/// (`messages/$chatId/<push id>` = `{sender: the caller, kind: "call", call: {callId, state,
/// durationMs}, sentAt}`), which the message trigger counts like any message (unread counters,
/// `lastMessage`) in the same commit. `durationMs` is `endedAt - answeredAt` for an answered call,
/// else 0.
struct CallEnding {
    let call: CallRecord
    let state: CallState
    /// The server time the call ended (milliseconds since 1970).
    let endedAt: Double
    /// The id of the call message.
    let messageId: String
    /// Whether the chat still exists to take the call message (a chat deleted for everyone
    /// while its call rang gets none: the timer ends the call without one).
    var chatExists = true

    var durationMs: Double {
        guard call.state == .accepted, let answeredAt = call.answeredAt else { return 0 }
        return max(0, endedAt - answeredAt)
    }

    var updates: [DatabaseUpdate] {
        var updates: [DatabaseUpdate] = [
            .set(DataPath("calls", call.id, "state"), .string(state.rawValue)),
            .set(DataPath("calls", call.id, "endedAt"), .number(endedAt)),
        ]
        if call.state == .ringing { updates.append(.delete(CallRecord.ringingMarker(call.chatId))) }
        guard chatExists else { return updates }
        updates.append(
            .set(
                DataPath("messages", call.chatId, messageId),
                [
                    "sender": .string(call.caller),
                    "kind": "call",
                    "call": [
                        "callId": .string(call.id),
                        "state": .string(state.rawValue),
                        "durationMs": .number(durationMs),
                    ],
                    "sentAt": .serverTimestamp,
                ]
            )
        )
        return updates
    }
}
