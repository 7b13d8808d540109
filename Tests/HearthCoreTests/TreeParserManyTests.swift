import Testing

@testable import HearthCore

/// `TreeParser.parsingMany` reuses one reader for many values (an update's members); every
/// value must come out exactly as a parse of its own would give it, errors included, also
/// right after an error left members behind.
struct TreeParserManyTests {
    static let texts: [String] =
        TreeParserTests.semanticCases.map(\.input) + [
            #"{"a":{"b":{"c":[1,{"d":2}]}}"#, #"{".sv":{"increment":1}}"#, #"{"x":{".sv":"timestamp"},"y":[1,2"#,
            #"{"a":1,"b":{"c":[1,2,{"d":"#,
            "", "  ", #"{"a":1} x"#, #"{"a":{".priority":{}}}"#, #""\ud800""#,
            #"{"k":"v","k2":{"k3":[true,false,null]}}"#, "-0", "1e999", #"{"bad key.":1}"#, "[[[[[[1]]]]]]",
        ]

    struct Failure: Error, Equatable {
        let text: String
        init(_ error: any Error) { text = String(describing: error) }
    }

    static let bases: [DataPath] = [.root, DataPath(keys: (0..<30).map { ChildKey("k\($0)") })]

    @Test(arguments: bases)
    func manyValuesReadOneAfterAnotherAsEachAlone(base: DataPath) {
        // Twice over, so every text also follows every kind of earlier one (errors included).
        let all = Self.texts + Self.texts.reversed()
        let together: [Result<NewValue, Failure>] = TreeParser.parsingMany { parse in
            all.map { text in
                Result { try parse(ArraySlice(Array(text.utf8)), base) }.mapError(Failure.init)
            }
        }
        let alone: [Result<NewValue, Failure>] = all.map { text in
            Result { try TreeParser.parse(Array(text.utf8), at: base) }.mapError(Failure.init)
        }
        for (index, (a, b)) in zip(together, alone).enumerated() {
            #expect(a == b, "text #\(index): \(all[index])")
        }
        #expect(together.contains { (try? $0.get()) == nil } && together.contains { (try? $0.get()) != nil })
    }
}
