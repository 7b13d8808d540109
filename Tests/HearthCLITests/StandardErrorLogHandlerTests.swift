import Logging
import Synchronization
import Testing

@testable import HearthCLI

/// The log handler of every command: lines as `StreamLogHandler` writes them, metadata
/// included, nothing below the level.
@Suite struct StandardErrorLogHandlerTests {
    final class Lines: Sendable {
        private let written = Mutex<String>("")
        var text: String { written.withLock { $0 } }
        func write(_ string: String) { written.withLock { $0 += string } }
    }

    struct Stream: TextOutputStream, Sendable {
        let lines: Lines
        mutating func write(_ string: String) { lines.write(string) }
    }

    @Test func linesCarryTheLoggersMetadataAndNothingBelowTheLevelIsWritten() {
        let lines = Lines()
        let stream = StreamLogHandler(label: "hearth", stream: Stream(lines: lines), metadataProvider: nil)
        var logger = Logger(label: "hearth") { _ in StandardErrorLogHandler(stream, level: .warning) }
        logger[metadataKey: "hb.request.id"] = "42"
        logger.info("not written")
        logger.warning("slow request", metadata: ["ms": "900"])
        logger[metadataKey: "hb.request.id"] = nil
        logger.error("second")
        let written = lines.text.split(separator: "\n").map(String.init)
        #expect(written.count == 2)
        let warning = " warning hearth: hb.request.id=42 ms=900 [HearthCLITests] slow request"
        #expect(written.first?.hasSuffix(warning) == true)
        #expect(written.last?.hasSuffix(" error hearth: [HearthCLITests] second") == true)
        #expect(!lines.text.contains("not written"))
    }
}
