import Foundation
import HearthCore
import HearthFunctions
import HearthServer
import Synchronization

/// The callables of the callable tests, served in `default` and `chat` only.
enum CallableFixtures {
    static let namespaces: Callables.Scope = .namespaces(["default", "chat"])

    /// `echo`: answers what it was given and who called, in which namespace.
    struct Echo: Callable {
        var name: String { "echo" }
        func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
            let who: JSONValue = request.caller.auth.map { .string($0.uid) } ?? "admin"
            return ["data": request.data, "caller": who, "ns": .string(request.database.namespace)]
        }
    }

    /// `fail {status, message}`: throws that error.
    struct Fail: Callable {
        static let codes: [String: CallableError.Code] = [
            "INVALID_ARGUMENT": .invalidArgument, "FAILED_PRECONDITION": .failedPrecondition,
            "OUT_OF_RANGE": .outOfRange, "UNAUTHENTICATED": .unauthenticated,
            "PERMISSION_DENIED": .permissionDenied, "NOT_FOUND": .notFound, "ALREADY_EXISTS": .alreadyExists,
            "ABORTED": .aborted, "RESOURCE_EXHAUSTED": .resourceExhausted, "CANCELLED": .cancelled,
            "UNKNOWN": .unknown, "INTERNAL": .internal, "DATA_LOSS": .dataLoss, "UNIMPLEMENTED": .unimplemented,
            "UNAVAILABLE": .unavailable, "DEADLINE_EXCEEDED": .deadlineExceeded,
        ]

        var name: String { "fail" }
        func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
            let status = request.data["status"]?.stringValue ?? ""
            throw CallableError(Self.codes[status] ?? .unknown, request.data["message"]?.stringValue ?? "")
        }
    }

    /// `pair {id, value}`: writes `pairs/left/<id>` and `pairs/right/<id>` in one write, plus
    /// `pairs/at/<id>` = the server time.
    struct Pair: Callable {
        var name: String { "pair" }
        func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
            guard let id = request.data["id"]?.stringValue, KeyValidator.isValid(id) else {
                throw .invalidArgument("'id' must be a key")
            }
            let value = request.data["value"] ?? .null
            try await request.database.commit([
                .set(DataPath("pairs", "left", id), value),
                .set(DataPath("pairs", "right", id), value),
                .set(DataPath("pairs", "at", id), .serverTimestamp),
            ])
            return ["written": true]
        }
    }

    /// `claim {slot}`: writes `claims/<slot>` = the caller's uid only while it is free;
    /// answers whether this call won it.
    struct Claim: Callable {
        var name: String { "claim" }
        func call(_ request: CallRequest) async throws(CallableError) -> JSONValue {
            let uid = try request.signedInUID()
            guard let slot = request.data["slot"]?.stringValue, KeyValidator.isValid(slot) else {
                throw .invalidArgument("'slot' must be a key")
            }
            let path = DataPath("claims", slot)
            let won = try await request.database.commit(
                [.set(path, .string(uid)), .increment(DataPath("claimCount"), by: 1)],
                when: { !$0.exists(path) }
            )
            return ["won": .bool(won)]
        }
    }

    static func register(_ configuration: inout HearthServerConfiguration) throws {
        for callable: any Callable in [Echo(), Fail(), Pair(), Claim()] {
            try configuration.callables.add(callable, in: namespaces)
        }
    }
}

/// Calls a callable of a `TestServer` as the SDK does.
struct CallableClient: Sendable {
    let server: TestServer

    func call(
        _ name: String,
        data: String = "null",
        token: String? = TokenMinter.token(uid: "alice"),
        ns: String? = nil,
        path: String? = nil,
        headers: [(String, String)] = [("Content-Type", "application/json")]
    ) async throws -> TestServer.Reply {
        var target = path ?? "/functions/\(name)"
        if let ns { target += "?ns=\(ns)" }
        var all = headers
        if let token { all.append(("Authorization", "Bearer \(token)")) }
        return try await server.send("POST", target, headers: all, text: #"{"data":\#(data)}"#)
    }
}
