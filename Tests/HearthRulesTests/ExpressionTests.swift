import HearthCore
import Testing

@testable import HearthRules

/// One expression evaluated as the `.read` rule of `/items/$id`, reading `/items/a`, so `data`
/// is `/items/a`, `$id` is "a", and `root` is the whole tree below.
/// Semantics from firebase.google.com/docs/reference/security/database (variables, RuleDataSnapshot
/// methods, string methods, operators) and /docs/database/security/rules-conditions.
struct ExpressionCase: CustomTestStringConvertible, Sendable {
    let expression: String
    let allow: Bool
    var uid: String? = "alice"
    var testDescription: String { "\(expression) → \(allow ? "allow" : "deny")" }

    init(_ expression: String, _ allow: Bool, uid: String? = "alice") {
        self.expression = expression
        self.allow = allow
        self.uid = uid
    }
}

let expressionData = #"""
    {"items": {"a": {"name": "Alice", "age": 30, "admin": true, "score": 2.5, "email": "alice@example.com",
                     "tags": {"x": true, "y": false}, "nested": {"deep": {"v": "z"}}, ".priority": 5},
               "b": {"name": "Bob", ".priority": "p"}},
     "users": {"alice": {"role": "admin"}, "bob": {"role": "member"}},
     "leaf": "text", "num": 42, "flag": false, "zero": 0, "empty": ""}
    """#

let expressionToken: JSONValue = .object([
    ("email", .string("alice@example.com")), ("email_verified", .bool(true)), ("admin", .bool(true)),
    ("level", .number(3)),
    (
        "firebase",
        .object([
            ("sign_in_provider", .string("password")),
            ("identities", .object([("email", .array([.string("alice@example.com")]))])),
        ])
    ),
])

struct ExpressionTests {
    static let literalsAndOperators: [ExpressionCase] = [
        // Literals
        ExpressionCase("true", true),
        ExpressionCase("false", false),
        ExpressionCase("!false", true),
        ExpressionCase("!!true", true),
        ExpressionCase("null == null", true),
        ExpressionCase("1 == 1.0", true),
        ExpressionCase("1e3 == 1000", true),
        ExpressionCase(".5 == 0.5", true),
        ExpressionCase("'a' == \"a\"", true),
        ExpressionCase("'it\\'s' == \"it's\"", true),
        ExpressionCase("'a\\nb'.length == 3", true),
        ExpressionCase("'\\u0041' == 'A'", true),
        ExpressionCase("'\\x41' == 'A'", true),
        ExpressionCase("'tab\\there'.contains('\\t')", true),
        ExpressionCase("'back\\\\slash'.length == 10", true),
        // Arithmetic
        ExpressionCase("1 + 2 == 3", true),
        ExpressionCase("5 - 7 == -2", true),
        ExpressionCase("2 * 3 == 6", true),
        ExpressionCase("7 / 2 == 3.5", true),
        ExpressionCase("7 % 3 == 1", true),
        ExpressionCase("-7 % 3 == -1", true),
        ExpressionCase("-(2 + 3) == -5", true),
        ExpressionCase("- -3 == 3", true),
        // Firebase divides by zero to NaN (observed, see ReferenceCorpus.swift).
        ExpressionCase("1 / 0 > 1000000", false),
        ExpressionCase("0.1 + 0.2 == 0.3", false),
        // Precedence (JavaScript)
        ExpressionCase("1 + 2 * 3 == 7", true),
        ExpressionCase("(1 + 2) * 3 == 9", true),
        ExpressionCase("10 - 4 - 3 == 3", true),
        ExpressionCase("100 / 10 / 5 == 2", true),
        ExpressionCase("2 + 3 % 2 == 3", true),
        ExpressionCase("true || false && false", true),
        ExpressionCase("(true || false) && false", false),
        ExpressionCase("!true || true", true),
        ExpressionCase("!(true || true)", false),
        ExpressionCase("1 < 2 == true", true),
        ExpressionCase("1 + 1 == 2 && 2 * 2 == 4", true),
        ExpressionCase("false ? false : true", true),
        ExpressionCase("true ? 1 == 1 : false", true),
        ExpressionCase("false ? true : false ? true : true", true),
        ExpressionCase("true ? false : true ? true : true", false),
        ExpressionCase("1 == 2 || 3 == 3 ? true : false", true),
        // Comparison
        ExpressionCase("1 < 2", true),
        ExpressionCase("2 <= 2", true),
        ExpressionCase("3 > 2", true),
        ExpressionCase("2 >= 3", false),
        ExpressionCase("'a' < 'b'", true),
        ExpressionCase("'B' < 'a'", true),
        ExpressionCase("'abc' >= 'abc'", true),
        ExpressionCase("'' < 'a'", true),
        ExpressionCase("'\\uFF5E' < '\\uD83D\\uDE00'", false),
        // Strict equality, no coercion
        ExpressionCase("1 === 1", true),
        ExpressionCase("1 !== 2", true),
        ExpressionCase("1 != 1", false),
        ExpressionCase("'1' == 1", false),
        ExpressionCase("'1' != 1", true),
        ExpressionCase("0 == false", false),
        ExpressionCase("'' == false", false),
        ExpressionCase("null == false", false),
        ExpressionCase("null == 0", false),
        ExpressionCase("'true' == true", false),
        // `+`: numbers add; a string on either side concatenates (JavaScript)
        ExpressionCase("'a' + 'b' == 'ab'", true),
        ExpressionCase("'a' + $id == 'aa'", true),
        ExpressionCase("'n' + data.child('age').val() == 'n30'", true),
        ExpressionCase("data.child('age').val() + 1 == 31", true),
        ExpressionCase("data.child('name').val() + '!' == 'Alice!'", true),
        // Type errors at run time make the rule false, also under `!`
        ExpressionCase("!(data.child('name').val() > 1)", false),
        ExpressionCase("!(data.child('name').val() - 1 == 0)", false),
        ExpressionCase("!(-data.child('name').val() == 0)", false),
        // (`&&`, `||`, `!` and `?:` on what may not be a boolean are refused at load: Firebase
        // refuses them at deploy; see DeployCompatibilityTests.)
        ExpressionCase("!(data.child('age').val() < 'x' && true)", false),
        ExpressionCase("data.child('age').val() < 'x' ? true : true", false),
        ExpressionCase("false && data.child('age').val() < 'x'", false),
        ExpressionCase("true || data.child('age').val() < 'x'", true),
        ExpressionCase("false || data.child('admin').val() == true", true),
        ExpressionCase("true && data.child('age').val() < 'x'", false),
        ExpressionCase("data.child('missing').val() + 1 == 1", false),
        // A property of null is null: `null == 0` is false.
        ExpressionCase("!(data.child('missing').val().length == 0)", true),
        ExpressionCase("data.child('missing').val() == null", true),
        ExpressionCase("data.child('age').val() < 'x' || true", false),
    ]

    static let variables: [ExpressionCase] = [
        ExpressionCase("auth != null", true),
        ExpressionCase("auth != null", false, uid: nil),
        ExpressionCase("auth == null", true, uid: nil),
        ExpressionCase("auth.uid == 'alice'", true),
        ExpressionCase("auth.uid === $id + 'lice'", true),
        // `auth.uid` of null is null, so the comparison is false, not an error (issue 13).
        ExpressionCase("!(auth.uid == 'x')", true, uid: nil),
        ExpressionCase("auth.provider == 'password'", true),
        ExpressionCase("auth.token.email == 'alice@example.com'", true),
        ExpressionCase("auth.token.email_verified == true", true),
        ExpressionCase("auth.token.admin === true", true),
        ExpressionCase("auth.token.missing == null", true),
        ExpressionCase("auth.token.level > 2", true),
        ExpressionCase("auth.token.firebase.sign_in_provider == 'password'", true),
        ExpressionCase("auth.token['email'] == 'alice@example.com'", true),
        ExpressionCase("auth.token.firebase.identities.email[0] == 'alice@example.com'", true),
        ExpressionCase("auth.token.email.endsWith('@example.com')", true),
        ExpressionCase("auth.token.sub == auth.uid", true),
        ExpressionCase("now == 1000", true),
        ExpressionCase("now > 999 && now < 1001", true),
        ExpressionCase("$id == 'a'", true),
        ExpressionCase("$id.length == 1", true),
        ExpressionCase("$id.toUpperCase() == 'A'", true),
        // A plain read is ordered by key (observed, see ReferenceCorpus.swift).
        ExpressionCase("query.orderByKey == true && !query.orderByValue && !query.orderByPriority", true),
        ExpressionCase("query.orderByChild == null", true),
        ExpressionCase("query.limitToFirst == null", true),
        ExpressionCase("query.startAt == null && query.endAt == null && query.equalTo == null", true),
    ]

    static let snapshots: [ExpressionCase] = [
        // val(): primitives; objects give a sentinel that equals no primitive
        ExpressionCase("data.child('name').val() == 'Alice'", true),
        ExpressionCase("data.child('age').val() == 30", true),
        ExpressionCase("data.child('admin').val() == true", true),
        ExpressionCase("data.child('score').val() == 2.5", true),
        ExpressionCase("data.val() == null", false),
        ExpressionCase("data.val() != null", true),
        ExpressionCase("data.child('nope').val() == null", true),
        ExpressionCase("root.child('leaf').val() == 'text'", true),
        ExpressionCase("root.child('zero').val() == 0", true),
        ExpressionCase("root.child('empty').val() == ''", true),
        ExpressionCase("root.child('flag').val() == false", true),
        // child(): names and slash paths
        ExpressionCase("data.child('nested/deep/v').val() == 'z'", true),
        ExpressionCase("data.child('nested').child('deep').child('v').val() == 'z'", true),
        ExpressionCase("data.child('/nested//deep/').child('v').val() == 'z'", true),
        ExpressionCase("root.child('items/' + $id + '/name').val() == 'Alice'", true),
        ExpressionCase("root.child('users').child(auth.uid).child('role').val() == 'admin'", true),
        ExpressionCase("root.child('users').child(auth.uid).exists()", false, uid: nil),
        ExpressionCase("!root.child('users').child(auth.uid).exists()", false, uid: nil),
        // A key no data can have is a location with nothing, not an error (observed).
        ExpressionCase("data.child($id + '.b').exists() || true", true),
        ExpressionCase("data.child($id + '/#').exists()", false),
        ExpressionCase("data.child('name').child('x').exists()", false),
        // parent()
        ExpressionCase("data.parent().child('b').child('name').val() == 'Bob'", true),
        ExpressionCase("data.child('nested/deep').parent().parent().child('age').val() == 30", true),
        ExpressionCase("root.parent().exists() || true", false),
        ExpressionCase("data.parent().parent().parent().exists() || true", false),
        // hasChild / hasChildren
        ExpressionCase("data.hasChild('name')", true),
        ExpressionCase("data.hasChild('nested/deep/v')", true),
        ExpressionCase("data.hasChild('nope')", false),
        ExpressionCase("data.hasChildren()", true),
        ExpressionCase("data.child('name').hasChildren()", false),
        ExpressionCase("data.child('nope').hasChildren()", false),
        ExpressionCase("data.hasChildren(['name', 'age'])", true),
        ExpressionCase("data.hasChildren(['name', 'nope'])", false),
        ExpressionCase("data.hasChildren(['nested/deep'])", true),
        ExpressionCase("data.hasChildren([$id == 'a' ? 'name' : 'nope'])", true),
        // exists
        ExpressionCase("data.exists()", true),
        ExpressionCase("data.child('nope').exists()", false),
        ExpressionCase("root.child('items/c').exists()", false),
        ExpressionCase("root.exists()", true),
        // getPriority
        ExpressionCase("data.getPriority() == 5", true),
        ExpressionCase("root.child('items/b').getPriority() == 'p'", true),
        ExpressionCase("data.child('name').getPriority() == null", true),
        ExpressionCase("root.child('nope').getPriority() == null", true),
        // isNumber / isString / isBoolean
        ExpressionCase("data.child('age').isNumber()", true),
        ExpressionCase("data.child('name').isNumber()", false),
        ExpressionCase("data.child('name').isString()", true),
        ExpressionCase("data.child('admin').isBoolean()", true),
        ExpressionCase("data.child('tags/y').isBoolean()", true),
        ExpressionCase("data.isString()", false),
        ExpressionCase("data.child('nope').isString()", false),
        ExpressionCase("root.child('empty').isString()", true),
        ExpressionCase("root.child('zero').isNumber()", true),
    ]

    static let strings: [ExpressionCase] = [
        ExpressionCase("'hello'.length == 5", true),
        ExpressionCase("''.length == 0", true),
        ExpressionCase("'é'.length == 1", true),
        ExpressionCase("'😀'.length == 2", true),
        ExpressionCase("data.child('name').val().length == 5", true),
        ExpressionCase("data.child('age').val().length == 2", false),
        ExpressionCase("'hello'.contains('ell')", true),
        ExpressionCase("'hello'.contains('xyz')", false),
        ExpressionCase("'hello'.contains('')", true),
        ExpressionCase("'hello'.beginsWith('he')", true),
        ExpressionCase("'hello'.beginsWith('lo')", false),
        ExpressionCase("'hello'.endsWith('lo')", true),
        ExpressionCase("'hello'.endsWith('he')", false),
        ExpressionCase("'hello'.endsWith('')", true),
        ExpressionCase("'a.b.c'.replace('.', '/') == 'a/b/c'", true),
        ExpressionCase("'aaa'.replace('a', 'bb') == 'bbbbbb'", true),
        ExpressionCase("'abc'.replace('x', 'y') == 'abc'", true),
        ExpressionCase("auth.token.email.replace('.', ',') == 'alice@example,com'", true),
        ExpressionCase("'MiXeD'.toLowerCase() == 'mixed'", true),
        ExpressionCase("'MiXeD'.toUpperCase() == 'MIXED'", true),
        ExpressionCase("'Straße'.toUpperCase() == 'STRASSE'", true),
        ExpressionCase("'ÉCOLE'.toLowerCase() == 'école'", true),
        ExpressionCase("data.child('email').val().toLowerCase().endsWith('@example.com')", true),
        ExpressionCase("data.child('age').val().contains('3')", false),
        ExpressionCase("data.child('nope').val().beginsWith('a') || true", false),
        ExpressionCase("data.child('name').val().matches(/^Al/)", true),
        ExpressionCase("data.child('name').val().matches(/^al/)", false),
        ExpressionCase("data.child('name').val().matches(/^al/i)", true),
        ExpressionCase("data.child('email').val().matches(/^[A-Z0-9._%+-]+@[A-Z0-9.-]+\\.[A-Z]{2,4}$/i)", true),
        ExpressionCase(
            "'2015-12-31'.matches(/^(19|20)[0-9][0-9][-\\/. ](0[1-9]|1[012])[-\\/. ](0[1-9]|[12][0-9]|3[01])$/)",
            true
        ),
        ExpressionCase(
            "'2215-12-31'.matches(/^(19|20)[0-9][0-9][-\\/. ](0[1-9]|1[012])[-\\/. ](0[1-9]|[12][0-9]|3[01])$/)",
            false
        ),
        ExpressionCase("'+14155550123'.matches(/^\\+[1-9]\\d{1,14}$/)", true),
        ExpressionCase("'14155550123'.matches(/^\\+[1-9]\\d{1,14}$/)", false),
        ExpressionCase("data.child('age').val().matches(/3/)", false),
    ]

    @Test(arguments: literalsAndOperators + variables + snapshots + strings)
    func readRuleExpression(_ testCase: ExpressionCase) {
        let rules = #"{"rules": {"items": {"$id": {".read": \#(jsonString(testCase.expression))}}}}"#
        guard let program = compile(rules) else { return }
        let decision = program.canRead(
            path: path("/items/a"),
            auth: auth(testCase.uid, token: expressionToken),
            root: RuleMemorySource(root: tree(expressionData)),
            now: 1000,
            trace: true
        )
        #expect(decision.allowed == testCase.allow, "\(decision)")
    }
}
