import Dispatch
import Foundation
import HTTPTypes
import HearthAccounts
import HearthDatabase
import HearthStorage
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// `GET /.backup` (the admin credential only): a backup of the running server streamed while
/// writes go on (`DatabaseBackup`: every namespace at one snapshot, the accounts, the token key,
/// the storage objects: `ObjectBackup`), the format `hearth restore` reads. One backup runs at a time; another gets 503 meanwhile.
final class BackupEndpoint: Sendable {
    static let path = "/.backup"

    let database: Database
    let accounts: AccountsStore
    let objects: ObjectStore
    let credentials: CredentialResolver
    let dataDirectory: String
    let logger: Logger
    private let running = Atomic<Bool>(false)
    private static let queue = DispatchQueue(label: "hearth.backup", qos: .utility)

    init(
        database: Database,
        accounts: AccountsStore,
        objects: ObjectStore,
        credentials: CredentialResolver,
        dataDirectory: String,
        logger: Logger
    ) {
        self.database = database
        self.accounts = accounts
        self.objects = objects
        self.credentials = credentials
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    func respond(to request: Request, query: Substring?) async throws -> Response {
        guard credentials.isAdmin(request, query: query) else {
            return ResponseBuilder.json(
                #"{"error":"GET /.backup needs the admin credential: 'Authorization: Bearer <admin secret>'."}"#,
                status: .unauthorized
            )
        }
        guard request.method == .get else {
            return ResponseBuilder.json(
                #"{"error":"Use GET /.backup to download a backup."}"#,
                status: .methodNotAllowed
            )
        }
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            var response = ResponseBuilder.json(
                #"{"error":"A backup is already running; try again when it is done."}"#,
                status: .serviceUnavailable
            )
            response.headers[.retryAfter] = "10"
            return response
        }
        let stream: DatabaseBackup
        do {
            let objects = objects
            stream = try database.backup(
                accounts: accounts.databaseForBackup,
                files: tokenKeyFile(),
                objects: { try objects.backup() }
            )
        } catch {
            running.store(false, ordering: .releasing)
            throw error
        }
        let namespaces = stream.sequences.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        logger.info("backup started", metadata: ["hearth.namespaces": "\(namespaces.joined(separator: ","))"])
        var headers: HTTPFields = [
            .contentType: "application/octet-stream",
            .contentDisposition: #"attachment; filename="hearth.backup""#,
            .cacheControl: "no-store",
        ]
        headers[HTTPField.Name("X-Hearth-Backup-Sequences")!] = namespaces.joined(separator: ",")
        let logger = logger
        let body = ResponseBody { [self] writer in
            defer {
                stream.close()
                running.store(false, ordering: .releasing)
            }
            var bytes = 0
            while let chunk = await Self.nextChunk(of: stream) {
                bytes += chunk.count
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            if let failure = stream.failure {
                // Cut off before the end record: the client's copy is refused by a restore.
                logger.error("backup stopped: the store is damaged", metadata: ["hearth.error": "\(failure.message)"])
                throw failure
            }
            try await writer.finish(nil)
            logger.info("backup sent", metadata: ["hearth.bytes": "\(bytes)"])
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The next chunk, read off the event loops and the cooperative pool.
    private static func nextChunk(of stream: DatabaseBackup) async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: stream.next()) }
        }
    }

    /// The token key, so that ID tokens and sessions stay valid after a restore.
    private func tokenKeyFile() -> [(name: String, bytes: [UInt8])] {
        let name = JWTSecretFile.fileName
        guard let data = FileManager.default.contents(atPath: dataDirectory + "/" + name) else { return [] }
        return [(name, Array(data))]
    }
}
