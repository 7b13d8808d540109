import CLibFuzzer
import Glibc

/// Runs libFuzzer on one of `targets`: `BINARY TARGET [libFuzzer flags] [corpus dirs]` (or
/// `HEARTH_FUZZ_TARGET=TARGET BINARY ...`, which is also what libFuzzer's `-fork` and `-jobs` children
/// inherit). See docs/fuzzing.md.
public enum FuzzDriver {
    /// The target this process fuzzes (set once, before libFuzzer starts).
    nonisolated(unsafe) static var selected: FuzzTarget?

    public static func run(_ targets: [FuzzTarget]) -> Never {
        var arguments = CommandLine.arguments
        let name: String
        if let fromEnvironment = getenv("HEARTH_FUZZ_TARGET").map({ String(cString: $0) }) {
            name = fromEnvironment
        } else if arguments.count > 1, !arguments[1].hasPrefix("-") {
            name = arguments.remove(at: 1)
            setenv("HEARTH_FUZZ_TARGET", name, 1)
        } else {
            fail("Missing fuzz target: run '\(arguments[0]) TARGET [libFuzzer flags] [corpus]'.")
        }
        guard let target = targets.first(where: { $0.name == name }) else {
            fail("Unknown fuzz target '\(name)': use one of \(targets.map(\.name).joined(separator: ", ")).")
        }
        selected = target
        // What lives for the whole process is not a leak; LeakSanitizer would report some of it: it
        // does not see pointers to indirect enums' boxes (Swift keeps the case in their spare bits).
        __lsan_disable()
        target.prepare()
        __lsan_enable()
        var argc = CInt(arguments.count)
        var cStrings = arguments.map { strdup($0) } + [nil]
        let status = cStrings.withUnsafeMutableBufferPointer { buffer -> CInt in
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput)
        }
        exit(status)
    }

    static func fail(_ message: String) -> Never {
        let line = message + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}

/// libFuzzer's callback: runs the selected target on one input. (The fuzzer runtime's own `main`,
/// which SwiftPM's entry point replaces, refers to it too.)
@_cdecl("LLVMFuzzerTestOneInput")
func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = FuzzDriver.selected else { return 0 }
    target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
