public import HearthAccounts
public import HearthCore
public import HearthDatabase
public import HearthFunctions
public import HearthPush

/// Settings of a Hearth server; the CLI fills it from flags, environment and defaults.
public struct HearthServerConfiguration: Sendable {
    /// Address to bind.
    public var host: String
    /// In a cluster (`--cluster`): where its state lives and how this node takes part; nil for
    /// a single server.
    public var cluster: ClusterSettings?
    /// Port to bind; 0 picks a free port (see `RunningServer.port`).
    public var port: Int
    /// Directory of the LevelDB store.
    public var dataDirectory: String
    /// Rules document of the `default` namespace; namespace `X` uses `X.rules.json` beside it.
    public var rulesFile: String
    /// JSON imported into `default` when the whole store is empty; nil or a missing file skips it.
    public var seedFile: String?
    /// The admin credential (bypasses rules).
    public var adminSecret: String
    /// HS256 key of user ID tokens; nil refuses every ID token.
    public var jwtSecret: String?
    /// PEM certificate chain; with `tlsKeyPath`, serves HTTPS.
    public var tlsCertificatePath: String?
    /// PEM private key.
    public var tlsKeyPath: String?
    /// Firebase-emulator conventions: bearer `owner` is admin, unsigned ID tokens accepted.
    public var emulator: Bool
    /// Durability of acknowledged writes.
    public var syncMode: SyncMode
    /// `Access-Control-Allow-Origin` sent to browsers.
    public var corsAllowedOrigin: String
    /// Largest accepted request body in bytes; a larger one is answered 413 as soon as its
    /// `Content-Length`, or the bytes read so far, pass it.
    public var maxRequestBodyBytes: Int
    /// Bytes all request bodies being read may hold in memory together; a body that would pass
    /// it is answered 503 with `Retry-After`. Never below `maxRequestBodyBytes`.
    public var maxBodyMemoryBytes: Int = 512 << 20
    /// Whether plain REST writes with small bodies are answered on their connection's event
    /// loop rather than through the router's task (docs/decisions/0032); the answers are the
    /// same either way. Outside a cluster only.
    public var directRESTWrites = true
    /// Largest file (Storage object) in bytes, 5 GiB by default; a larger upload is answered 413
    /// as soon as its `Content-Length`, or the bytes read so far, pass it, and nothing of it stays.
    public var maxObjectSize: UInt64 = 5 << 30
    /// The storage rules (`rules/storage.rules`); nil: `storage.rules` beside `rulesFile`.
    /// Without the file only the admin reads or writes files.
    public var storageRulesFile: String?
    /// The namespace the storage rules' `database.get/exists` read (the default database).
    public var storageNamespace = "default"
    /// Resumable uploads (Storage) open at once, 10,000 by default; one more start is answered 429
    /// until some finish or expire (7 days after their start).
    public var maxResumableSessions: Int = 10_000
    /// The bytes unfinished resumable uploads hold together, 20 GiB by default: past it a chunk is
    /// answered 429 until uploads finish, are cancelled or expire (the disk the database needs
    /// stays free of uploads nobody finishes).
    public var maxResumableBytes: UInt64 = 20 << 30
    /// Timeouts and limits of connections: header and idle timeouts, the cap on open
    /// connections, the largest request line and head.
    public var connections = ConnectionConfiguration()
    /// Limits and timings of WebSocket and SSE connections.
    public var realtime = RealtimeConfiguration()
    /// Server-kept presence (`presence/$uid`) from signed-in realtime connections: in which
    /// namespaces (none by default; `hearth serve` names the chat app's), and its batching.
    public var presence = PresenceConfiguration()
    /// Password hashing cost, token lifetimes and sign-in limits of the accounts
    /// (`<data>/accounts/`); under `emulator`, email enumeration protection is off, as in the
    /// Firebase emulator.
    public var accounts = AccountsConfiguration()
    /// How often the rules files of loaded namespaces are checked for changes (hot reload);
    /// nil turns hot reload off.
    public var rulesReloadInterval: Duration? = .milliseconds(250)
    /// The time of server timestamps (`{".sv": "timestamp"}`) and of the rules' `now`: the
    /// wall clock; a test passes a clock it moves by hand.
    public var clock: ServerClock = .system
    /// Triggers, lookup indexes and commit observers, per namespace or for all (see `TreeTrigger`).
    public var triggers = DatabaseTriggers()
    /// Where the namespaces' writers run their rounds (refused at start when it cannot work).
    public var writer = WriterTuning()
    /// Callable functions, per namespace or for all (`POST /functions/<name>?ns=...`; see
    /// `Callable`). A name not served in a namespace answers `NOT_FOUND` there.
    public var callables = Callables()
    /// Work that runs while the server serves (`DatabaseService`): started after the database
    /// opened and presence was swept, cancelled and awaited before the database closes.
    public var services: [any DatabaseService] = []
    /// The push queues (`GET /.settings/push.json`, `hearth_push_*` metrics), when push
    /// notifications are on (their service is one of `services`).
    public var pushStatus: (any PushQueueStatus)?
    /// Largest request body of a callable (its `{"data": ...}`); a larger one is refused with
    /// `INVALID_ARGUMENT` as soon as its `Content-Length` or the bytes read pass it.
    public var maxCallableBodyBytes = 1 << 20

    public init(
        host: String = "127.0.0.1",
        port: Int = 9000,
        dataDirectory: String = ".hearth",
        rulesFile: String = "rules/database.rules.json",
        seedFile: String? = "seed/fireside.json",
        adminSecret: String,
        jwtSecret: String? = nil,
        tlsCertificatePath: String? = nil,
        tlsKeyPath: String? = nil,
        emulator: Bool = false,
        syncMode: SyncMode = .periodic(milliseconds: 100),
        corsAllowedOrigin: String = "*",
        maxRequestBodyBytes: Int = 256 << 20
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.rulesFile = rulesFile
        self.seedFile = seedFile
        self.adminSecret = adminSecret
        self.jwtSecret = jwtSecret
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsKeyPath = tlsKeyPath
        self.emulator = emulator
        self.syncMode = syncMode
        self.corsAllowedOrigin = corsAllowedOrigin
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }
}

extension HearthServerConfiguration {
    /// The seed's files manifest: `files.json` beside `seedFile` (nil without a seed file).
    var storageSeedPath: String? {
        seedFile.map { Self.sibling(of: $0, named: "files.json") }
    }

    /// Where the storage rules are: `storageRulesFile`, else `storage.rules` beside `rulesFile`.
    var storageRulesPath: String {
        storageRulesFile ?? Self.sibling(of: rulesFile, named: "storage.rules")
    }

    /// The default storage bucket, `<project-id>.appspot.com`.
    var defaultBucket: String { "\(accounts.projectID).appspot.com" }

    /// The file `name` in the directory of `path`.
    static func sibling(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return name }
        return path[...slash] + name
    }
}
