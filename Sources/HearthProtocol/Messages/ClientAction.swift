public import HearthCore

/// What a client request asks for, one case per wire action (`a`).
public enum ClientAction: Sendable, Equatable {
    /// `q`: listen to a location, optionally through a query, with the client's tag and hash.
    case listen(ListenRequest)
    /// `n`: stop listening.
    case unlisten(UnlistenRequest)
    /// `p`: set a value (a transaction when it carries a hash).
    case put(PutRequest)
    /// `m`: update several children (keys may be deep paths).
    case merge(MergeRequest)
    /// `o`: set a value when this connection closes.
    case onDisconnectPut(PutRequest)
    /// `om`: update children when this connection closes.
    case onDisconnectMerge(MergeRequest)
    /// `oc`: cancel the onDisconnect operations at and below a path.
    case onDisconnectCancel(DataPath)
    /// `auth` / `gauth`: authenticate the connection.
    case authenticate(AuthRequest)
    /// `unauth`: return to anonymous.
    case unauthenticate
    /// `s`: client statistics (`{"c": {"sdk.js.11-0-0": 1}}`).
    case stats(JSONValue)
    /// `g`: read a location once.
    case get(GetRequest)
    /// `appcheck`: an App Check token (accepted and ignored; Hearth does not enforce App Check).
    case appCheck(token: String)
    /// `unappeck` (sic, as the SDK spells it): the App Check token was removed.
    case appCheckRemoved

    /// The wire name of the action.
    public var wireName: String {
        switch self {
        case .listen: return "q"
        case .unlisten: return "n"
        case .put: return "p"
        case .merge: return "m"
        case .onDisconnectPut: return "o"
        case .onDisconnectMerge: return "om"
        case .onDisconnectCancel: return "oc"
        case .authenticate(let request): return request.kind == .firebaseToken ? "auth" : "gauth"
        case .unauthenticate: return "unauth"
        case .stats: return "s"
        case .get: return "g"
        case .appCheck: return "appcheck"
        case .appCheckRemoved: return "unappeck"
        }
    }
}

/// `q`: `{"p": path, "q": queryObject?, "t": tag?, "h": hash}`.
public struct ListenRequest: Sendable, Equatable {
    public var path: DataPath
    /// The query; the default query (all data, priority order) when `q` is absent or `{}`.
    public var query: Query
    /// The client's tag for a filtered query (`t`); data pushes for it must carry it.
    public var tag: Int64?
    /// The hash of the data the client already has for this query (`h`, `""` for none).
    public var hash: String?

    public init(path: DataPath, query: Query = Query(), tag: Int64? = nil, hash: String? = nil) {
        self.path = path
        self.query = query
        self.tag = tag
        self.hash = hash
    }

    /// The identity of the listen on this connection.
    public var key: ListenKey { ListenKey(path: path, query: query) }
}

/// `n`: `{"p": path, "q": queryObject?, "t": tag?}`.
public struct UnlistenRequest: Sendable, Equatable {
    public var path: DataPath
    public var query: Query
    public var tag: Int64?

    public init(path: DataPath, query: Query = Query(), tag: Int64? = nil) {
        self.path = path
        self.query = query
        self.tag = tag
    }

    /// The identity of the listen to remove.
    public var key: ListenKey { ListenKey(path: path, query: query) }
}

/// `p` and `o`: `{"p": path, "d": data, "h": hash?}`.
public struct PutRequest: Sendable, Equatable {
    /// Where to write (without a trailing `.priority`).
    public var path: DataPath
    /// True when the path ended in `.priority`: `value` is then the new priority of the node at
    /// `path` (a number, a string or null), as the SDK's `setPriority` sends it.
    public var isPriority: Bool
    /// The value, parsed with `TreeParser` at `path` (server values recorded apart).
    public var value: NewValue
    /// `h`: the hash the current value must have for the write to apply (a transaction);
    /// `""` is the hash of null. Nil for a plain set.
    public var hash: String?

    public init(path: DataPath, isPriority: Bool = false, value: NewValue, hash: String? = nil) {
        self.path = path
        self.isPriority = isPriority
        self.value = value
        self.hash = hash
    }
}

/// `m` and `om`: `{"p": path, "d": {"child/path": value, ...}}`.
public struct MergeRequest: Sendable, Equatable {
    /// The location the entries are relative to.
    public var path: DataPath
    /// The children to set, in the order sent; no entry's path contains another's.
    public var entries: [MergeEntry]

    public init(path: DataPath, entries: [MergeEntry]) {
        self.path = path
        self.entries = entries
    }
}

/// One member of a merge: a path relative to the merge location and its new value.
public struct MergeEntry: Sendable, Equatable {
    /// The path relative to the merge location (one or more keys).
    public var path: DataPath
    /// True when the member's key ended in `.priority` (the priority of the node at `path`).
    public var isPriority: Bool
    /// The value, parsed at its full path; null deletes.
    public var value: NewValue

    public init(path: DataPath, isPriority: Bool = false, value: NewValue) {
        self.path = path
        self.isPriority = isPriority
        self.value = value
    }
}

/// `g`: `{"p": path, "q": queryObject}`.
public struct GetRequest: Sendable, Equatable {
    public var path: DataPath
    public var query: Query

    public init(path: DataPath, query: Query = Query()) {
        self.path = path
        self.query = query
    }
}

/// `auth` / `gauth`: `{"cred": credential, "noauth"?: true, "authvar"?: {...}}`.
public struct AuthRequest: Sendable, Equatable {
    /// Which action carried the credential.
    public enum Kind: Sendable, Equatable {
        /// `auth`: a Firebase ID token (a JWT with an `iat` claim).
        case firebaseToken
        /// `gauth`: any other credential: a Google OAuth access token, a database secret, or the
        /// emulator's `owner`.
        case googleCredential
    }

    /// What admin SDKs ask to be evaluated as (`databaseAuthVariableOverride`).
    public enum Override: Sendable, Equatable {
        /// `noauth: true`: rules apply with `auth == null`.
        case unauthenticated
        /// `authvar`: rules apply with this `auth` value.
        case authVariable(JSONValue)
    }

    /// The credential (`cred`); never log it.
    public var credential: String
    public var kind: Kind
    public var override: Override?

    public init(credential: String, kind: Kind, override: Override? = nil) {
        self.credential = credential
        self.kind = kind
        self.override = override
    }
}

extension AuthRequest: CustomStringConvertible {
    /// The request without its credential, safe for logs.
    public var description: String { "AuthRequest(kind: \(kind), credential: <redacted>)" }
}
