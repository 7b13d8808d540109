import Foundation
import HearthStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where each namespace's rules document lives: `default` uses the configured rules file;
/// namespace `X` uses `X.rules.json` in the same directory.
public struct RulesFiles: Sendable {
    /// What a namespace without a rules file gets: nobody but admin reads or writes.
    public static let defaultDocument = "{\"rules\": {\".read\": false, \".write\": false}}"

    /// The `default` namespace's rules file, as configured.
    public let defaultRulesFile: String

    public init(defaultRulesFile: String) {
        self.defaultRulesFile = defaultRulesFile
    }

    /// The file's path as configured; also the file name diagnostics start with.
    public func path(for namespace: String) -> String {
        if namespace == "default" { return defaultRulesFile }
        let directory = (defaultRulesFile as NSString).deletingLastPathComponent
        return (directory as NSString).appendingPathComponent("\(namespace).rules.json")
    }

    /// The document text, or nil when the file does not exist.
    func read(for namespace: String) throws -> String? {
        let path = path(for: namespace)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8) else {
            throw DatabaseError.unreadableRules("Rules file '\(path)' is not valid UTF-8.")
        }
        return text
    }

    /// Replaces the file atomically (write beside, then rename).
    func write(_ text: String, for namespace: String) throws {
        let path = path(for: namespace)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// What the file looks like on disk now (one `stat`), or nil when it does not exist.
    func stamp(for namespace: String) -> RulesFileStamp? {
        RulesFileStamp(path: path(for: namespace))
    }

    /// The rules files in the rules folder now, by namespace: one listing of the folder and
    /// one `stat` per rules file, however many namespaces are loaded.
    func stamps() -> [String: RulesFileStamp] {
        let directory = (defaultRulesFile as NSString).deletingLastPathComponent
        let defaultName = (defaultRulesFile as NSString).lastPathComponent
        let suffix = ".rules.json"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)
        else { return [:] }
        var stamps: [String: RulesFileStamp] = [:]
        for entry in entries {
            var namespaces: [String] = []
            if entry == defaultName { namespaces.append("default") }
            if entry.hasSuffix(suffix) {
                let namespace = String(entry.dropLast(suffix.count))
                if namespace != "default", (try? Store.validateNamespaceName(namespace)) != nil {
                    namespaces.append(namespace)
                }
            }
            guard !namespaces.isEmpty,
                let stamp = RulesFileStamp(path: (directory as NSString).appendingPathComponent(entry))
            else { continue }
            for namespace in namespaces { stamps[namespace] = stamp }
        }
        return stamps
    }
}

/// Identity, size and times of a rules file: when any of them changes, the file is read again.
struct RulesFileStamp: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Timestamp
    var changed: Timestamp

    /// Seconds and nanoseconds since the epoch.
    struct Timestamp: Hashable, Sendable {
        var seconds: Int64
        var nanoseconds: Int64

        /// The current wall-clock time (the clock file times come from).
        static func now() -> Timestamp {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            return Timestamp(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
        }

        /// Nanoseconds from `self` to `later` (negative when `later` is earlier).
        func nanoseconds(until later: Timestamp) -> Int64 {
            (later.seconds - seconds) * 1_000_000_000 + (later.nanoseconds - nanoseconds)
        }
    }

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = Timestamp(seconds: Int64(info.st_mtimespec.tv_sec), nanoseconds: Int64(info.st_mtimespec.tv_nsec))
        changed = Timestamp(seconds: Int64(info.st_ctimespec.tv_sec), nanoseconds: Int64(info.st_ctimespec.tv_nsec))
        #else
        modified = Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
        changed = Timestamp(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int64(info.st_ctim.tv_nsec))
        #endif
    }

    /// File systems stamp times with a coarse clock (a few milliseconds, up to seconds): a file
    /// read within `window` of its last change may change again, same size, without its stamp
    /// changing. Such a file is compared by content until the window has passed.
    func isRacy(readAt: Timestamp, window: Int64 = 2_000_000_000) -> Bool {
        let latest = modified.nanoseconds(until: changed) > 0 ? changed : modified
        return latest.nanoseconds(until: readAt) < window
    }
}
