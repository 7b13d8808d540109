import Crypto
import Foundation
public import HearthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `hearth doctor` found in a stopped data directory's objects (`<data>/storage`): every
/// object the catalog names has its file, of the catalogued size, hashing to the catalogued
/// MD5; and which files no object names (orphans in `objects/`, part files left in `tmp/`).
/// Orphans and part files are what a killed upload or delete leaves (the next start removes
/// them), or the bytes of objects whose catalog records were lost: not damage, but kept aside
/// by `moveAside` before a start would remove them.
///
/// A cluster node's copy (`ObjectStore.replicate`) keeps only a cache of the bytes, which are
/// in the cluster's PostgreSQL: an object without a file here is counted in `notCached`, not a
/// problem; the files it has are checked as a single node's are.
public struct ObjectStoreCheck: Sendable {
    /// Objects checked and their catalogued bytes.
    public var objects = 0
    public var bytes: UInt64 = 0
    /// One sentence per object whose file is missing or does not match its metadata.
    public var problems: [String] = []
    /// Files of `objects/` that no object names (paths).
    public var orphans: [String] = []
    /// Part files in `tmp/` (paths).
    public var leftovers: [String] = []
    /// Whether the catalog is a cluster node's copy.
    public var isClusterCopy = false
    /// In a cluster node's copy: objects whose bytes are only in the cluster's PostgreSQL.
    public var notCached = 0

    /// No object is missing or mismatched.
    public var isHealthy: Bool { problems.isEmpty }

    /// Checks the objects of `dataDirectory`, reading every file whole (in chunks); nil when it
    /// has no storage catalog. Run it on a stopped directory, after the catalog's LevelDB check.
    /// - Throws: `StorageError` `.io` when the catalog cannot be opened or read.
    public static func run(dataDirectory: String) throws(StorageError) -> ObjectStoreCheck? {
        let root = dataDirectory + "/storage"
        guard FileManager.default.fileExists(atPath: root + "/db") else { return nil }
        let objectsDirectory = root + "/objects"
        let catalog = try ObjectCatalog(path: root + "/db", syncMode: .periodic(milliseconds: 100))
        defer { catalog.close() }
        var check = ObjectStoreCheck()
        check.isClusterCopy = try catalog.storedPosition() != nil
        var named = Set<String>()
        let reader = try ObjectCatalog.typed { () throws(StoreError) in
            try catalog.database.snapshotReader(prefix: [ObjectCatalog.objectTag])
        }
        defer { reader.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while let row = try ObjectCatalog.typed({ () throws(StoreError) in try reader.next() }) {
            let object = try ObjectCatalog.decode(row.value)
            check.objects += 1
            check.bytes += object.size
            named.insert(object.generation)
            if check.isClusterCopy, access(objectsDirectory + "/" + object.generation, F_OK) != 0 {
                check.notCached += 1
                continue
            }
            if let problem = Self.problem(of: object, in: objectsDirectory, buffer: &buffer) {
                check.problems.append(problem)
            }
        }
        let manager = FileManager.default
        for name in ((try? manager.contentsOfDirectory(atPath: objectsDirectory)) ?? []).sorted()
        where !named.contains(name) {
            check.orphans.append(objectsDirectory + "/" + name)
        }
        for name in ((try? manager.contentsOfDirectory(atPath: root + "/tmp")) ?? []).sorted() {
            check.leftovers.append(root + "/tmp/" + name)
        }
        return check
    }

    /// Moves the orphans and part files into `aside` (keeping their paths relative to
    /// `dataDirectory`, e.g. `<aside>/storage/objects/<generation>`).
    /// - Returns: how many files were moved.
    public func moveAside(from dataDirectory: String, to aside: String) throws -> Int {
        let manager = FileManager.default
        var moved = 0
        for path in orphans + leftovers {
            let target = aside + path.dropFirst(dataDirectory.count)
            try manager.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try manager.moveItem(atPath: path, toPath: target)
            moved += 1
        }
        return moved
    }

    /// What is wrong with `object`'s file, or nil.
    private static func problem(of object: ObjectMetadata, in directory: String, buffer: inout [UInt8]) -> String? {
        let label = "object '\(object.name)' in bucket '\(object.bucket)' (generation \(object.generation))"
        let path = directory + "/" + object.generation
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return errno == ENOENT
                ? "The file of \(label) is missing."
                : "The file of \(label) cannot be opened: \(String(cString: strerror(errno)))."
        }
        defer { systemCloseDescriptor(descriptor) }
        var md5 = Insecure.MD5()
        var size: UInt64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return "The file of \(label) cannot be read: \(String(cString: strerror(errno)))."
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { md5.update(bufferPointer: .init(rebasing: $0[0..<count])) }
            size += UInt64(count)
        }
        guard size == object.size else {
            return "The file of \(label) has \(size) bytes; its metadata says \(object.size)."
        }
        let digest = Data(md5.finalize()).base64EncodedString()
        guard digest == object.md5Hash else {
            return "The bytes of \(label) have MD5 \(digest); its metadata says \(object.md5Hash)."
        }
        return nil
    }
}
