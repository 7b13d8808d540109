import HearthAccounts
import HearthCore
import HearthProtocol
import HearthStore
import Testing

@testable import HearthServer

/// The one mapping of errors to REST statuses, wire statuses and messages, by type and code.
struct ErrorAnswerTests {
    struct Case: @unchecked Sendable, CustomTestStringConvertible {
        let id: String
        let error: any Error
        let status: Int
        let wireStatus: ResponseStatus
        let message: String
        var isInternal = false
        var testDescription: String { id }
    }

    static let cases: [Case] = [
        Case(
            id: "rules denial",
            error: StoreError.permissionDenied,
            status: 401,
            wireStatus: .permissionDenied,
            message: "Permission denied"
        ),
        Case(
            id: "index not defined",
            error: StoreError(.indexNotDefined, "Index not defined"),
            status: 400,
            wireStatus: .failure,
            message: "Index not defined"
        ),
        Case(
            id: "store I/O",
            error: StoreError(.io, "disk on fire"),
            status: 500,
            wireStatus: .failure,
            message: "Internal server error",
            isInternal: true
        ),
        Case(
            id: "bad key",
            error: parseError("/a.b"),
            status: 400,
            wireStatus: .failure,
            message:
                "Invalid key 'a.b' in path '/a.b': keys cannot contain '.', '#', '$', '[', ']', '/' or control characters."
        ),
        Case(
            id: "expired token",
            error: CredentialError.expired,
            status: 401,
            wireStatus: .expiredToken,
            message: "Auth token is expired."
        ),
        Case(
            id: "unparsable token",
            error: CredentialError.unparsable,
            status: 401,
            wireStatus: .invalidToken,
            message: "Could not parse auth token."
        ),
        Case(
            id: "revoked token",
            error: CredentialError(refusing: .disabled),
            status: 401,
            wireStatus: .invalidToken,
            message: "Auth token is revoked: sign in again."
        ),
        Case(
            id: "accounts refusal",
            error: AccountsError(.emailExists),
            status: 400,
            wireStatus: .failure,
            message: "EMAIL_EXISTS"
        ),
        Case(
            id: "accounts store failure",
            error: AccountsError(.internalError, "disk on fire"),
            status: 500,
            wireStatus: .failure,
            message: "INTERNAL_ERROR",
            isInternal: true
        ),
        Case(
            id: "REST refusal",
            error: RESTError.notFound,
            status: 404,
            wireStatus: .failure,
            message: "Not Found"
        ),
        Case(
            id: "anything else",
            error: CancellationError(),
            status: 500,
            wireStatus: .failure,
            message: "Internal server error",
            isInternal: true
        ),
    ]

    static func parseError(_ path: String) -> any Error {
        do {
            _ = try DataPath.parse(path)
            return StoreError(.io, "parsed")
        } catch {
            return error
        }
    }

    @Test(arguments: cases) func answer(_ test: Case) {
        let answer = ErrorAnswer.to(test.error)
        #expect(answer.status.code == test.status)
        #expect(answer.wireStatus == test.wireStatus)
        #expect(answer.message == test.message)
        #expect(answer.isInternal == test.isInternal)
        #expect(answer.wireMessage == (test.isInternal ? "The server could not complete the request." : test.message))
    }

    /// A message that merely reads like a known error is not taken for it.
    @Test func textIsNeverMatched() {
        let lookalike = ErrorAnswer.to(StoreError(.io, "Permission denied"))
        #expect(lookalike.isInternal)
        #expect(lookalike.wireStatus == .failure)
        let rest = RESTError(.unauthorized, "Auth token is expired.")
        #expect(ErrorAnswer.to(rest).wireStatus == .failure)
    }
}
