import HearthFuzzSupport

/// `hearth-fuzz-rest TARGET [libFuzzer flags] [corpus dirs]`: the fuzz targets that need the server's
/// REST code, apart because their sanitizer build includes SwiftNIO and Hummingbird. See docs/fuzzing.md.
@main
enum HearthFuzzREST {
    static func main() {
        FuzzDriver.run([RESTQueryFuzz.target])
    }
}
