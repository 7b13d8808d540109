// Operator and regular-expression cases of the corpus (see ReferenceCorpus.swift).

extension CorpusCase {
    static let operators: [CorpusCase] = [
        // `+` follows JavaScript on numbers and strings, left to right (issue 13).
        CorpusCase("+", "1 + 1 == 2", .allow, "observed"),
        CorpusCase("+", "1 + 2 + 'x' == '3x'", .allow, "reference"),
        CorpusCase("+", "'x' + 1 + 2 == 'x12'", .allow, "reference"),
        CorpusCase("+", "'v' + 2 == 'v2'", .allow, "reference"),
        CorpusCase("+", "'x' + 0.5 + 'y' + -3 == 'x0.5y-3'", .allow, "reference"),
        CorpusCase(
            "+",
            "'' + 1e21 == '1e+21' && '' + 1e-7 == '1e-7' && '' + 123456789012 == '123456789012'",
            .allow,
            "reference"
        ),
        CorpusCase("+", "(auth.token.level + 'two') == '3two'", .allow, "observed"),
        CorpusCase("+", "(1 + auth.token.email) == 2", .deny, "observed"),
        CorpusCase("+", "(1 + auth.token.admin) == 2", .error, "observed"),
        CorpusCase("+", "(1 + auth.none) == 2", .error, "observed"),
        CorpusCase("+", "'users/' + auth.uid == 'users/null'", .error, "observed", signedIn: false),
        CorpusCase(
            "+",
            "'a' + null == 'anull'",
            .refused("operator '+' cannot be applied to a string and null"),
            "observed"
        ),
        CorpusCase(
            "+",
            "'a' + true == 'atrue'",
            .refused("operator '+' cannot be applied to a string and a boolean"),
            "observed"
        ),
        CorpusCase("-", "5 - 7 == -2 && -(2 + 3) == -5", .allow, "reference"),
        CorpusCase("-", "-auth.token.email == -1", .error, "observed"),
        CorpusCase("*", "(auth.token.level * 2) == 6", .allow, "observed"),
        CorpusCase("*", "(auth.token.email * 1) == 1", .error, "observed"),
        CorpusCase("/", "7 / 2 == 3.5", .allow, "reference"),
        CorpusCase("/", "(1/0 + '') == 'NaN'", .allow, "observed"),
        CorpusCase("/", "(1/0) > 2 || (1/0) < 2", .deny, "observed"),
        CorpusCase("%", "7 % 3 == 1 && -7 % 3 == -1", .allow, "reference"),
        CorpusCase("!", "!false && !(auth == null)", .allow, "reference"),
        CorpusCase("!", "!(auth.dreams.length > 1)", .error, "observed", signedIn: false),
        CorpusCase("!", "!data.child('locked').val()", .refused("operand of '!' must be a boolean"), "issue 13"),
        CorpusCase("!", "!auth.token.admin", .refused("operand of '!' must be a boolean"), "targaryen#64"),
        CorpusCase("&&", "true && 1 < 2", .allow, "reference"),
        CorpusCase("&&", "false && data.child('x').val() > 1", .deny, "reference"),
        CorpusCase("&&", "auth.token.admin && true", .refused("operand of '&&' must be a boolean"), "targaryen#64"),
        CorpusCase("||", "true || auth.foo > 1", .allow, "observed", signedIn: false),
        CorpusCase("||", "auth.foo > 1 || true", .error, "observed", signedIn: false),
        CorpusCase(
            "||",
            "false || data.child('admin').val()",
            .refused("operand of '||' must be a boolean"),
            "targaryen#64"
        ),
        CorpusCase("==", "'1' == 1", .deny, "reference"),
        CorpusCase("==", "auth.token.level == 'one'", .deny, "observed"),
        CorpusCase("==", "'foo' == auth.foo", .deny, "observed", signedIn: false),
        CorpusCase("===", "auth.provider === 'password'", .allow, "observed"),
        CorpusCase("!=", "'foo' != auth.foo", .allow, "observed", signedIn: false),
        CorpusCase("!==", "auth.token.level !== 'one'", .allow, "observed"),
        CorpusCase("<", "1 < 2 && 'a' < 'b'", .allow, "observed"),
        CorpusCase("<", "'foo' < auth.foo", .error, "observed", signedIn: false),
        CorpusCase(
            "<",
            "root.val() < true",
            .refused("operator '<' cannot be applied to a value and a boolean"),
            "observed"
        ),
        CorpusCase("<=", "1 <= auth.token.level", .allow, "observed"),
        CorpusCase("<=", "'one' <= auth.token.level", .error, "observed"),
        CorpusCase(">", "2 > auth.token.level", .deny, "observed"),
        CorpusCase(">=", "auth.token.level >= 3", .allow, "observed"),
        CorpusCase("?:", "auth.isTernary === true ? root.child('x').exists() : true", .allow, "observed"),
        CorpusCase("?:", "auth.dreams.length > 1 ? false : true", .error, "observed", signedIn: false),
        CorpusCase(
            "?:",
            "auth != null ? 'yes' : false",
            .refused("must evaluate to a boolean on every branch"),
            "issue 13"
        ),
        CorpusCase(
            "?:",
            "auth.uid === '5' ? 7 : true",
            .refused("must evaluate to a boolean on every branch, got a number"),
            "observed"
        ),
        CorpusCase(
            "?:",
            "data.child('age').val() ? true : false",
            .refused("the condition of '?:' must be a boolean, got a value that may not be one"),
            "targaryen#64"
        ),
    ]

    static let regularExpressions: [CorpusCase] = [
        CorpusCase("regex literal", "root.child('leaf').val().matches(/ex/)", .allow, "regex"),
        CorpusCase("regex ^", "root.child('leaf').val().matches(/^te/) && !'xtext'.matches(/^te/)", .allow, "regex"),
        CorpusCase("regex ^", "'a'.matches(/(^a$|b)/)", .refused("invalid regular expression"), "observed"),
        CorpusCase("regex $", "'text'.matches(/xt$/) && !'texts'.matches(/xt$/)", .allow, "regex"),
        CorpusCase("regex .", "'Firebase'.matches(/^........$/) && !'a\\nb'.matches(/^a.b$/)", .allow, "regex"),
        CorpusCase("regex *", "''.matches(/^a*$/) && 'aaa'.matches(/^a*$/)", .allow, "regex"),
        CorpusCase("regex +", "'aaa'.matches(/^a+$/) && !''.matches(/^a+$/)", .allow, "regex"),
        CorpusCase("regex ?", "''.matches(/^a?$/) && !'aa'.matches(/^a?$/)", .allow, "regex"),
        CorpusCase("regex {n}", "'aa'.matches(/^a{2}$/) && !'aaa'.matches(/^a{2}$/)", .allow, "regex"),
        CorpusCase("regex {n,}", "'aaaa'.matches(/^a{2,}$/) && !'a'.matches(/^a{2,}$/)", .allow, "regex"),
        CorpusCase("regex {n,m}", "'aaa'.matches(/^a{2,3}$/) && !'aaaa'.matches(/^a{2,3}$/)", .allow, "regex"),
        CorpusCase("regex |", "'bc'.matches(/^(a|bc)$/) && !'b'.matches(/^(a|bc)$/)", .allow, "regex"),
        CorpusCase("regex |", "'foo'.matches(/^(foo|)$/)", .refused("empty alternative after '|'"), "observed"),
        CorpusCase("regex ( )", "'abab'.matches(/^(ab)*$/) && !'aba'.matches(/^(ab)*$/)", .allow, "regex"),
        CorpusCase("regex [abc]", "'xBx'.matches(/[ABCDEF]/) && !'G'.matches(/^[ABCDEF]$/)", .allow, "regex"),
        CorpusCase("regex [a-z]", "'DEADBEEF'.matches(/^[0-9A-F]+$/)", .allow, "regex"),
        CorpusCase("regex [^...]", "'abc'.matches(/^[^0-9]+$/) && !'ab1'.matches(/^[^0-9]+$/)", .allow, "regex"),
        CorpusCase("regex \\d", "'0123'.matches(/^\\d+$/)", .allow, "regex"),
        CorpusCase("regex \\D", "'abc'.matches(/^\\D+$/)", .allow, "regex"),
        CorpusCase("regex \\w", "'a_Z9'.matches(/^\\w+$/) && !'a-b'.matches(/^\\w+$/)", .allow, "regex"),
        CorpusCase("regex \\W", "'-'.matches(/^\\W$/)", .allow, "regex"),
        CorpusCase("regex \\s", "'a b'.matches(/^a\\sb$/)", .allow, "regex"),
        CorpusCase("regex \\S", "!'a b'.matches(/^\\S+$/)", .allow, "regex"),
        CorpusCase("regex \\ escape", "'a.b'.matches(/^a\\.b$/) && !'axb'.matches(/^a\\.b$/)", .allow, "regex"),
        CorpusCase("regex \\ escape", "'{foo}'.matches(/\\{foo}/)", .allow, "observed"),
        CorpusCase("regex flag i", "'BAR'.matches(/bar/i) && !'BAR'.matches(/bar/)", .allow, "regex"),
        CorpusCase(
            "regex flag i",
            "'bar'.matches(/bar/ig)",
            .refused("unsupported regular expression flag 'g'"),
            "observed"
        ),
    ]
}
