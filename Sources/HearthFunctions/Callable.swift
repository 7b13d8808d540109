public import HearthCore

/// A server-side function that clients call over HTTP as Firebase's callable functions are
/// called (`POST /functions/<name>` or the emulator's `/<project>/<region>/<name>`, body
/// `{"data": ...}`). The server decodes the request, verifies the caller's ID token, finds the
/// callable registered for the namespace (`Callables`) and turns what `call` returns into
/// `{"result": ...}`, or what it throws into `{"error": {"status", "message"}}` with the
/// matching HTTP status.
///
/// A callable reads and writes through `CallRequest.database`: its writes are one atomic
/// multi-path write each, made as the server (no rules), announced to listeners like any other.
public protocol Callable: Sendable {
    /// The name clients call it by (the last segment of the URL).
    var name: String { get }

    /// Runs one call.
    /// - Returns: the result, sent as `{"result": ...}`.
    /// - Throws: `CallableError`, whose code becomes the error's `status` and HTTP status; its
    ///   message should name the offending field or value.
    func call(_ request: CallRequest) async throws(CallableError) -> JSONValue
}
