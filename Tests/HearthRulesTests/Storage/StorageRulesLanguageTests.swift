import Testing

@testable import HearthRules

/// The language's values, operators and methods, each through a real rule.
@Suite("Storage rules: the language")
struct StorageRulesLanguageTests {
    @Test(arguments: [
        // Numbers: ints and floats compare across types; int arithmetic is exact, overflow errs.
        "1 == 1.0", "7 / 2 == 3", "7 % 3 == 1", "7.0 / 2 == 3.5", "-3 < 2", "2 * 3 + 1 == 7",
        "!(9223372036854775807 + 1 > 0) == false || true",
        // Strings
        "'abc'.size() == 3", "'AbC'.lower() == 'abc'", "'abc'.upper() == 'ABC'", "'  x '.trim() == 'x'",
        "'image/png'.matches('image/.*')", "!'my image/png'.matches('image/.*')",
        "'a.b.c'.split('\\\\.') == ['a', 'b', 'c']",
        "'a-b-c'.replace('-', '+') == 'a+b+c'", "'abc'[1] == 'b'", "'abcdef'[1:3] == 'bc'", "'ab' + 'cd' == 'abcd'",
        "'PNG'.matches('(?i)png')", "'a' < 'b'", "'héllo'.size() == 5", "'é'.toUtf8().size() == 2",
        // Lists, sets, maps
        "[1, 2, 3].size() == 3", "2 in [1, 2, 3]", "[1, 2].hasAll([2])", "[1, 2].hasAny([3, 2])",
        "[1, 2].hasOnly([1, 2, 3])", "['a', 'b'].join('/') == 'a/b'", "[1] + [2] == [1, 2]", "[1, 2, 3][1:] == [2, 3]",
        "[1, 1, 2].toSet().size() == 2", "[1, 2, 3].removeAll([2]) == [1, 3]", "[1].concat([2]) == [1, 2]",
        "[1, 2].toSet().union([3].toSet()).size() == 3", "[1, 2].toSet().intersection([2, 3].toSet()) == [2].toSet()",
        "[1, 2].toSet().difference([2].toSet()) == [1].toSet()",
        "{'a': 1}.a == 1", "{'a': 1}['a'] == 1", "'a' in {'a': 1}", "{'a': 1, 'b': 2}.keys() == ['a', 'b']",
        "{'a': 1}.values() == [1]", "{'a': 1}.size() == 1", "{'a': {'b': 2}}.get(['a', 'b'], 0) == 2",
        "{'a': 1}.get('z', 5) == 5", "{'a': 1, 'b': 2}.diff({'a': 1, 'c': 3}).addedKeys() == ['c'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 9, 'b': 2}).changedKeys() == ['a'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1}).removedKeys() == ['b'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1}).affectedKeys() == ['b'].toSet()",
        "{'a': 1, 'b': 2}.diff({'a': 1}).unchangedKeys() == ['a'].toSet()",
        // Types
        "1 is int", "1.5 is float", "1 is number", "'x' is string", "[1] is list", "{'a': 1} is map", "null == null",
        "request.time is timestamp", "duration.value(1, 'h') is duration", "request.path is path", "b'ab' is bytes",
        "!(1 is string)", "[1].toSet() is set", "latlng.value(1, 2) is latlng",
        // Conversions
        "int('42') == 42", "int(3.9) == 3", "float(2) == 2.0", "string(12) == '12'", "string(true) == 'true'",
        "string(null) == 'null'", "path('a/b') == /a/b", "debug(1) == 1", "bool('true')",
        // Timestamps and durations (request.time is 2023-11-14T22:13:20Z)
        "request.time.year() == 2023", "request.time.month() == 11", "request.time.day() == 14",
        "request.time.hours() == 22", "request.time.minutes() == 13", "request.time.seconds() == 20",
        "request.time.toMillis() == 1700000000000", "request.time.dayOfWeek() == 2", "request.time.dayOfYear() == 318",
        "request.time.date() == timestamp.date(2023, 11, 14)", "request.time.time() == duration.time(22, 13, 20, 0)",
        "request.time > timestamp.date(2023, 1, 1)", "request.time - duration.value(1, 'd') < request.time",
        "request.time - timestamp.date(2023, 11, 14) == duration.time(22, 13, 20, 0)",
        "timestamp.value(1700000000000) == request.time", "duration.value(90, 's').seconds() == 90",
        "duration.value(1.5, 's').nanos() == 500000000",
        "duration.abs(duration.value(-2, 'm')) == duration.value(2, 'm')",
        "timestamp.date(2024, 2, 29).dayOfYear() == 60",
        "timestamp.date(2024, 3, 1) - timestamp.date(2024, 2, 28) == duration.value(2, 'd')",
        // Math
        "math.abs(-2) == 2", "math.ceil(1.2) == 2.0", "math.floor(1.8) == 1.0", "math.round(2.5) == 3.0",
        "math.sqrt(16) == 4.0", "math.pow(2, 10) == 1024.0", "math.isNaN(0.0 / 0.0)", "math.isInfinite(1.0 / 0.0)",
        // Hashing: bytes, of a string's UTF-8 or of bytes
        "hashing.md5('hello').toBase64() == 'XUFAKrxLKna5cZ2REBfFkg=='",
        "hashing.md5(b'hello') == hashing.md5('hello')",
        "hashing.sha256('abc').toHexString() == 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD'",
        "hashing.crc32('123456789').toHexString() == 'CBF43926'",
        "hashing.crc32c('123456789').toHexString() == 'E3069283'",
        "hashing.md5('').size() == 16",
        // Paths and the request
        "request.path == /b/hearth.appspot.com/o/a/b", "request.path[3] == 'a'", "request.path.size() == 5",
        "request.auth.uid == 'alice'", "request.auth.token.email == 'a@example.com'", "request.resource == null",
        "request.method == 'get'", "string(request.path) == '/b/hearth.appspot.com/o/a/b'",
        // Logic: an error is absorbed by a side that decides
        "true || request.auth.nothing", "request.auth.nothing || true", "!(false && request.auth.nothing)",
        "(1 > 0 ? 'yes' : 'no') == 'yes'", "latlng.value(0, 0).distance(latlng.value(0, 1)) > 111000",
    ])
    func holdsTrue(_ condition: String) throws {
        #expect(try holds(condition), "\(condition)")
    }

    @Test(arguments: [
        "1 == '1'", "9223372036854775807 + 1 > 0", "1 / 0 == 0", "request.auth.nothing", "null.size() == 0",
        "'abc'[5] == 'x'", "[1][3] == 1", "{'a': 1}.b == 1", "'a' < 1", "request.auth.nothing && false || false",
        "int('x') == 0", "timestamp.date(2023, 2, 30) is timestamp", "'abc'.matches('a')", "1 in 'abc'",
        "[1, 2].join('/') == '1/2'", "request.resource.size > 0", "!(request.auth.nothing)",
    ])
    func doesNotHold(_ condition: String) throws {
        #expect(try !holds(condition), "\(condition)")
    }

    @Test func functionsTakeLetsAndCallEachOther() throws {
        let functions = """
            function double(x) { return x * 2; }
            function quadruple(x) { let twice = double(x); return double(twice); }
            """
        #expect(try holds("quadruple(3) == 12", functions: functions))
    }

    @Test func aRunawayRuleIsAnErrorNotAHang() throws {
        // 2^18 calls of a function that calls itself twice would take a long time; the step
        // budget ends it (recursion itself is refused at load, so the blow-up comes from fan-out).
        var functions = "function f0(x) { return x; }\n"
        for i in 1...18 { functions += "function f\(i)(x) { return f\(i - 1)(x) && f\(i - 1)(x); }\n" }
        let rules = try conditionRules("f18(true)", functions: functions)
        let decision = rules.decide(read("a/b"))
        #expect(!decision.allowed)
        #expect(decision.trace.first?.shown.contains("steps") == true)
        // Calls nested past 20 are an error too.
        var deep = "function g0(x) { return x; }\n"
        for i in 1...25 { deep += "function g\(i)(x) { return g\(i - 1)(x); }\n" }
        let tooDeep = try conditionRules("g25(true)", functions: deep).decide(read("a/b"))
        #expect(!tooDeep.allowed)
        #expect(tooDeep.trace.first?.shown.contains("deep") == true)
    }
}
