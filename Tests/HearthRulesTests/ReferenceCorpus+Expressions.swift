// The expression cases of the corpus (see ReferenceCorpus.swift for the context and sources).

extension CorpusCase {
    static let variables: [CorpusCase] = [
        CorpusCase("auth", "auth != null", .allow, "reference"),
        CorpusCase("auth", "auth == null", .allow, "reference", signedIn: false),
        CorpusCase("auth", "auth.uid == 'alice' && auth.provider == 'password'", .allow, "reference"),
        CorpusCase("auth", "auth.token.email_verified == true", .allow, "conditions"),
        CorpusCase("auth", "auth.token.firebase.sign_in_provider == 'password'", .allow, "reference"),
        CorpusCase("auth", "auth.uid !== 'eviluser'", .allow, "observed", signedIn: false),
        CorpusCase("auth", "auth.foo.baz == null", .allow, "observed", signedIn: false),
        CorpusCase("auth", "auth.someClaim == null", .allow, "observed"),
        CorpusCase("auth", "auth.token.missing.deeper == null", .allow, "observed"),
        CorpusCase("auth", "auth.contains('75')", .error, "observed", signedIn: false),
        CorpusCase("auth", "auth.dreams.length > 1", .error, "observed", signedIn: false),
        CorpusCase("$location", "$id == 'a'", .allow, "conditions"),
        CorpusCase("$location", "$id + 1 == 'a1'", .allow, "conditions"),
        CorpusCase("$location", "$color == 'red'", .refused("wildcard '$color' is not in scope"), "observed"),
        CorpusCase("now", "now == 1000", .allow, "reference"),
        CorpusCase("now", "now + 1 > now", .allow, "reference"),
        CorpusCase("root", "root.child('users/alice/role').val() == 'admin'", .allow, "reference"),
        CorpusCase("root", "root.child('users').child(auth.uid).exists()", .error, "observed", signedIn: false),
        CorpusCase("data", "data.child('name').val() == 'Alice'", .allow, "reference"),
        CorpusCase("data", "data.exists()", .allow, "reference"),
        CorpusCase("newData", "newData.child('name').val() == 'Ada'", .allow, "reference", write: #"{"name":"Ada"}"#),
        CorpusCase("newData", "newData.exists()", .deny, "reference", write: "null"),
        CorpusCase("newData", "newData.exists()", .refused("'newData' is not available in '.read'"), "reference"),
        CorpusCase(
            "query",
            "query.orderByChild == 'owner' && query.equalTo == auth.uid",
            .allow,
            "conditions",
            query: #"{"orderByChild": "owner", "equalTo": "alice"}"#
        ),
        CorpusCase(
            "query",
            "query.orderByChild == 'owner' && query.equalTo == auth.uid",
            .deny,
            "conditions",
            query: #"{"orderByChild": "owner", "equalTo": "bob"}"#
        ),
    ]

    static let queries: [CorpusCase] = [
        CorpusCase("query.orderByKey", "query.orderByKey", .allow, "conditions", query: #"{"orderByKey": true}"#),
        CorpusCase(
            "query.orderByKey",
            "query.orderByKey == true && query.orderByValue == false && query.orderByPriority == false",
            .allow,
            "observed"
        ),
        CorpusCase("query.orderByKey", "query.orderByKey", .deny, "conditions", query: #"{"orderByChild": "a"}"#),
        CorpusCase(
            "query.orderByPriority",
            "query.orderByPriority",
            .allow,
            "conditions",
            query: #"{"orderByPriority": true}"#
        ),
        CorpusCase(
            "query.orderByValue",
            "query.orderByValue && !query.orderByKey",
            .allow,
            "conditions",
            query: #"{"orderByValue": true}"#
        ),
        CorpusCase(
            "query.orderByChild",
            "query.orderByChild == 'foo/bar'",
            .allow,
            "observed",
            query: #"{"orderByChild": "foo/bar"}"#
        ),
        CorpusCase("query.orderByChild", "query.orderByChild == null", .allow, "observed"),
        CorpusCase(
            "query.orderByChild",
            "query.orderByChild == 'members/' + auth.uid",
            .refused("'query.orderByChild' can only be compared with a string literal or null"),
            "firebase-tools#944"
        ),
        CorpusCase(
            "query.orderByChild",
            "query.orderByChild == 'members/' + 'x'",
            .refused("'query.orderByChild' can only be compared with a string literal or null"),
            "firebase-tools#944"
        ),
        CorpusCase("query.startAt", "query.startAt == 'foo'", .allow, "observed", query: #"{"startAt": "foo"}"#),
        CorpusCase(
            "query.startAt",
            "query.startAt == null && query.endAt == null && query.equalTo == null",
            .allow,
            "observed"
        ),
        CorpusCase(
            "query.endAt",
            "query.endAt == 3",
            .allow,
            "observed",
            query: #"{"orderByValue": true, "endAt": 3}"#
        ),
        CorpusCase(
            "query.equalTo",
            "query.equalTo == true",
            .allow,
            "observed",
            query: #"{"orderByValue": true, "equalTo": true}"#
        ),
        CorpusCase(
            "query.limitToFirst",
            "query.limitToFirst <= 10",
            .allow,
            "conditions",
            query: #"{"limitToFirst": 10}"#
        ),
        CorpusCase("query.limitToFirst", "query.limitToFirst <= 10", .error, "observed"),
        CorpusCase("query.limitToLast", "query.limitToLast == 10", .allow, "observed", query: #"{"limitToLast": 10}"#),
        CorpusCase("query.limitToLast", "query.limitToLast == null && query.limitToFirst == null", .allow, "observed"),
        CorpusCase("query", "query.foo == 1", .refused("unknown property 'foo' on query"), "observed"),
    ]

    static let snapshotMethods: [CorpusCase] = [
        CorpusCase("val()", "data.child('age').val() == 30", .allow, "reference"),
        CorpusCase("val()", "data.val() != null", .allow, "reference"),
        CorpusCase("val()", "root.val().notFound == false", .refused("unknown property 'notFound'"), "observed"),
        CorpusCase("child()", "data.child('nested/deep/v').val() == 'z'", .allow, "reference"),
        CorpusCase("child()", "root.child('banned/bob@example.com').val() != true", .allow, "observed"),
        CorpusCase("child()", "root.child('banned/' + auth.token.email).exists()", .deny, "observed"),
        CorpusCase("child()", "root.child('x').child(auth.foo).exists()", .error, "observed", signedIn: false),
        CorpusCase("child()", "root.child('foo') != null", .refused("a snapshot cannot be compared"), "observed"),
        CorpusCase("parent()", "data.parent().child('b/name').val() == 'Bob'", .allow, "reference"),
        CorpusCase("parent()", "root.parent().exists()", .error, "observed"),
        CorpusCase("hasChild()", "data.hasChild('name') && !data.hasChild('nope')", .allow, "reference"),
        CorpusCase("hasChild()", "root.hasChild('banned/' + auth.token.email) == false", .allow, "observed"),
        CorpusCase("hasChildren()", "data.hasChildren(['name', 'age'])", .allow, "reference"),
        CorpusCase("hasChildren()", "data.child('name').hasChildren()", .deny, "reference"),
        CorpusCase("hasChildren()", "root.hasChildren([auth.uid])", .error, "observed", signedIn: false),
        CorpusCase(
            "hasChildren()",
            "root.hasChildren(['foo', 7])",
            .refused("argument 1 of 'hasChildren'"),
            "observed"
        ),
        CorpusCase("hasChildren()", "root.hasChildren('foo', 'bar')", .refused("'hasChildren' expects"), "observed"),
        CorpusCase("exists()", "data.exists() && !data.child('nope').exists()", .allow, "reference"),
        CorpusCase("exists()", "root['exists']() == true", .allow, "observed"),
        CorpusCase("exists()", "root[$id]() == true", .refused("only methods can be called"), "observed"),
        CorpusCase("getPriority()", "data.getPriority() == 5", .allow, "reference"),
        CorpusCase("getPriority()", "root.child('items/b').getPriority() == 'p'", .allow, "reference"),
        CorpusCase("isNumber()", "data.child('age').isNumber() && !data.child('name').isNumber()", .allow, "reference"),
        CorpusCase("isString()", "data.child('name').isString() && !data.isString()", .allow, "reference"),
        CorpusCase("isBoolean()", "data.child('admin').isBoolean() && !root.isBoolean()", .allow, "observed"),
    ]

    static let strings: [CorpusCase] = [
        CorpusCase("length", "'hello'.length == 5", .allow, "reference"),
        CorpusCase("length", "root.child('empty').val().length < 100", .allow, "observed"),
        CorpusCase("length", "data.child('missing').val().length == null", .allow, "observed"),
        CorpusCase("contains()", "'foo'.contains('o')", .allow, "observed"),
        CorpusCase("contains()", "'foo'.contains(auth.foo)", .error, "observed", signedIn: false),
        CorpusCase(
            "contains()",
            "auth.foo.contains(7)",
            .refused("argument 1 of 'contains' must be a string"),
            "observed"
        ),
        CorpusCase("contains()", "auth.token.email['contains']('@') == true", .allow, "observed"),
        CorpusCase("beginsWith()", "auth.token.email.beginsWith('alice@')", .allow, "reference"),
        CorpusCase("beginsWith()", "'1foo'.beginsWith(auth.token.level)", .error, "observed"),
        CorpusCase("endsWith()", "auth.token.email.endsWith('@example.com')", .allow, "reference"),
        CorpusCase("replace()", "'a.b.c'.replace('.', '/') == 'a/b/c'", .allow, "reference"),
        CorpusCase("replace()", "'foobar'.replace('bar', auth.token.level) == 'foo3'", .error, "observed"),
        CorpusCase("toLowerCase()", "'MiXeD'.toLowerCase() == 'mixed'", .allow, "reference"),
        CorpusCase("toUpperCase()", "auth.token.email.toUpperCase() == 'ALICE@EXAMPLE.COM'", .allow, "reference"),
        CorpusCase(
            "toUpperCase()",
            "root.child(auth.foo.toUpperCase()).val() === null",
            .error,
            "observed",
            signedIn: false
        ),
        CorpusCase("matches()", "data.child('name').val().matches(/^Al/)", .allow, "reference"),
        CorpusCase(
            "matches()",
            "root.child('str').val().matches('/foo/')",
            .refused("argument 1 of 'matches' must be a regular expression literal"),
            "observed"
        ),
    ]
}
