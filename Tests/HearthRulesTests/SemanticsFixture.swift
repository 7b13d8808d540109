import Testing

// Cascade, non-filter reads, validate (non-cascading, skipped on null, ancestors see the merged
// data), multi-path updates, wildcards at depth and `$other`, query-based rules — in the format
// `hearth rules test` reads (docs/rules.md). Semantics from
// firebase.google.com/docs/database/security/core-syntax ("Read and write rules cascade",
// "Rules are not filters", "Validating data"), /docs/database/security/rules-conditions
// (query-based rules) and /docs/reference/security/database.
let semanticsFixture = #"""
    {
      "rules": {
        "rules": {
          ".read": false,
          "public": { ".read": true, ".write": "auth != null", "secret": { ".read": false, ".write": false } },
          "private": { "$uid": { ".read": "auth.uid == $uid", "inbox": { ".read": true } } },
          "colors": { ".read": true },
          "widget": {
            ".write": true,
            ".validate": "newData.hasChildren(['color', 'size'])",
            "size": { ".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() <= 99" },
            "color": { ".validate": "root.child('colors/' + newData.val()).exists()" }
          },
          "open": {
            ".write": true,
            ".validate": "newData.hasChildren(['a'])",
            "a": { ".validate": "newData.isNumber()" },
            "b": { ".validate": "newData.isString()" },
            "$other": { ".validate": false }
          },
          "counters": { "$id": {
            ".write": "auth != null",
            ".validate": "newData.isNumber() && (!data.exists() || newData.val() == data.val() + 1)"
          } },
          "deep": { "$a": { "$b": { "$c": {
            ".write": "$a == auth.uid && $b != $c",
            "x": { ".validate": "newData.val() == $a + $b + $c" }
          } } } },
          "posts": { "$post": {
            ".write": "!data.exists() || data.child('owner').val() == auth.uid",
            ".validate": "newData.child('owner').val() == auth.uid",
            "title": { ".validate": "newData.isString() && newData.val().length > 0 && newData.val().length <= 20" }
          } },
          "times": { "$t": { ".write": true, ".validate": "newData.val() <= now" } },
          "rooms": {
            ".read": "query.orderByChild == 'owner' && query.equalTo == auth.uid",
            ".indexOn": "owner",
            "$room": { ".read": "data.child('owner').val() == auth.uid" }
          },
          "feed": { ".read": "(query.limitToFirst != null && query.limitToFirst <= 10) || (query.limitToLast != null && query.limitToLast <= 10)" },
          "strictFeed": { ".read": "query.limitToFirst <= 10 || query.limitToLast <= 10" },
          "byKey": { ".read": "query.orderByKey && query.startAt == 'a'" },
          "ranked": { ".read": "query.orderByPriority || query.orderByValue && query.endAt == 10" },
          "prio": { "$p": { ".write": true, ".validate": "newData.getPriority() == null || newData.getPriority() > 0" } }
        }
      },
      "now": 1000,
      "data": {
        "public": { "x": 1, "secret": { "s": 1 } },
        "private": { "alice": { "inbox": { "m": 1 }, "diary": "d" }, "bob": { "inbox": { "m": 2 } } },
        "widget": { "color": "red", "size": 5 },
        "colors": { "red": true, "blue": true },
        "counters": { "c": 1 },
        "posts": { "p1": { "owner": "alice", "title": "Hi" } },
        "rooms": { "r1": { "owner": "alice" }, "r2": { "owner": "bob" } }
      },
      "cases": [
        { "name": "read cascades: a grant at /public covers /public", "op": "read", "path": "/public", "auth": null, "expected": "allow" },
        { "name": "read cascades to children", "op": "read", "path": "/public/x", "auth": null, "expected": "allow" },
        { "name": "a grant at a parent cannot be revoked below", "op": "read", "path": "/public/secret/s", "auth": null, "expected": "allow" },
        { "name": "root .read false denies the root", "op": "read", "path": "/", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "rules are not filters: /private is denied though children are readable", "op": "read", "path": "/private", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "wildcard read by the owner", "op": "read", "path": "/private/alice", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "wildcard read by another user", "op": "read", "path": "/private/alice", "auth": {"uid": "bob"}, "expected": "deny" },
        { "name": "wildcard grant cascades below", "op": "read", "path": "/private/alice/diary", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "a grant deeper down applies there", "op": "read", "path": "/private/bob/inbox", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "a grant deeper down does not apply above", "op": "read", "path": "/private/bob", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "no rule at all denies", "op": "read", "path": "/nothing/here", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "query rule: orderByChild owner equalTo own uid", "op": "read", "path": "/rooms", "auth": {"uid": "alice"}, "query": {"orderByChild": "owner", "equalTo": "alice"}, "expected": "allow" },
        { "name": "query rule: equalTo another uid", "op": "read", "path": "/rooms", "auth": {"uid": "alice"}, "query": {"orderByChild": "owner", "equalTo": "bob"}, "expected": "deny" },
        { "name": "query rule: a plain read of the list", "op": "read", "path": "/rooms", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "query rule: own room read directly", "op": "read", "path": "/rooms/r1", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "query rule: another room read directly", "op": "read", "path": "/rooms/r2", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "query rule: limitToFirst within bounds", "op": "read", "path": "/feed", "query": {"limitToFirst": 5}, "expected": "allow" },
        { "name": "query rule: limitToLast within bounds", "op": "read", "path": "/feed", "query": {"limitToLast": 10}, "expected": "allow" },
        { "name": "query rule: limit too large", "op": "read", "path": "/feed", "query": {"limitToFirst": 50}, "expected": "deny" },
        { "name": "query rule: no limit", "op": "read", "path": "/feed", "expected": "deny" },
        { "name": "query rule: null <= 10 is an error, so the whole rule is false", "op": "read", "path": "/strictFeed", "query": {"limitToLast": 5}, "expected": "deny" },
        { "name": "query rule: the first operand decides before an error", "op": "read", "path": "/strictFeed", "query": {"limitToFirst": 5}, "expected": "allow" },
        { "name": "query rule: orderByKey startAt", "op": "read", "path": "/byKey", "query": {"orderByKey": true, "startAt": "a"}, "expected": "allow" },
        { "name": "query rule: orderByValue is not orderByKey", "op": "read", "path": "/byKey", "query": {"orderByValue": true, "startAt": "a"}, "expected": "deny" },
        { "name": "query rule: orderByPriority", "op": "read", "path": "/ranked", "query": {"orderByPriority": true}, "expected": "allow" },
        { "name": "query rule: orderByValue endAt", "op": "read", "path": "/ranked", "query": {"orderByValue": true, "endAt": 10}, "expected": "allow" },
        { "name": "query rule: orderByValue other endAt", "op": "read", "path": "/ranked", "query": {"orderByValue": true, "endAt": 11}, "expected": "deny" },

        { "name": "write cascade: signed-in user writes under /public", "op": "write", "path": "/public/y", "value": "v", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "write cascade: anonymous denied", "op": "write", "path": "/public/y", "value": "v", "auth": null, "expected": "deny" },
        { "name": "write grant at a parent cannot be revoked below", "op": "write", "path": "/public/secret/s", "value": 2, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "writing the root with no root .write", "op": "write", "path": "/", "value": {"a": 1}, "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "validate on ancestors sees merged data: size alone", "op": "write", "path": "/widget/size", "value": 10, "expected": "allow" },
        { "name": "validate: size out of range", "op": "write", "path": "/widget/size", "value": 100, "expected": "deny" },
        { "name": "validate: size not a number", "op": "write", "path": "/widget/size", "value": "big", "expected": "deny" },
        { "name": "validate: whole widget", "op": "write", "path": "/widget", "value": {"color": "blue", "size": 1}, "expected": "allow" },
        { "name": "validate: color must exist under /colors (root)", "op": "write", "path": "/widget", "value": {"color": "green", "size": 1}, "expected": "deny" },
        { "name": "validate: hasChildren fails", "op": "write", "path": "/widget", "value": {"size": 1}, "expected": "deny" },
        { "name": "validate is skipped for a delete", "op": "write", "path": "/widget", "value": null, "expected": "allow" },
        { "name": "deleting a child: the parent still exists and fails hasChildren", "op": "write", "path": "/widget/color", "value": null, "expected": "deny" },
        { "name": "multi-path update: all valid", "op": "update", "path": "/widget", "value": {"size": 3, "color": "blue"}, "expected": "allow" },
        { "name": "multi-path update: one invalid path denies all", "op": "update", "path": "/widget", "value": {"size": 3, "color": "green"}, "expected": "deny" },
        { "name": "multi-path update across locations, all writable", "op": "update", "path": "/", "value": {"widget/size": 4, "public/z": 1}, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "multi-path update: one unwritable path denies all", "op": "update", "path": "/", "value": {"widget/size": 4, "public/z": 1}, "auth": null, "expected": "deny" },
        { "name": "multi-path update: newData is the merged result", "op": "update", "path": "/widget", "value": {"size": 7}, "expected": "allow" },
        { "name": "$other: a known child", "op": "write", "path": "/open", "value": {"a": 1, "b": "s"}, "expected": "allow" },
        { "name": "$other matches keys no sibling names", "op": "write", "path": "/open", "value": {"a": 1, "c": 2}, "expected": "deny" },
        { "name": "$other: a literal sibling wins over the wildcard", "op": "write", "path": "/open", "value": {"a": 1}, "expected": "allow" },
        { "name": "validate below: a must be a number", "op": "write", "path": "/open", "value": {"a": "x"}, "expected": "deny" },
        { "name": "validate of an absent child is skipped", "op": "write", "path": "/open", "value": {"a": 2}, "expected": "allow" },
        { "name": "ancestor validate with new data at the parent", "op": "write", "path": "/open/b", "value": "s", "expected": "deny" },
        { "name": "$other write directly", "op": "write", "path": "/open/c", "value": 1, "expected": "deny" },
        { "name": "counter increments by one", "op": "write", "path": "/counters/c", "value": 2, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "counter cannot jump", "op": "write", "path": "/counters/c", "value": 3, "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "new counter (data does not exist)", "op": "write", "path": "/counters/n", "value": 7, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "counter must be a number", "op": "write", "path": "/counters/n", "value": "7", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "counter delete skips validate", "op": "write", "path": "/counters/c", "value": null, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "wildcards at depth 3 in scope below", "op": "write", "path": "/deep/alice/b1/c1/x", "value": "aliceb1c1", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "wildcards at depth: validate value", "op": "write", "path": "/deep/alice/b1/c1/x", "value": "nope", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "wildcards at depth: $b != $c", "op": "write", "path": "/deep/alice/b1/b1/x", "value": "aliceb1b1", "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "wildcards at depth: another user", "op": "write", "path": "/deep/alice/b1/c1/x", "value": "aliceb1c1", "auth": {"uid": "bob"}, "expected": "deny" },
        { "name": "writes are not filtered either: above the .write rule", "op": "write", "path": "/deep/alice/b1", "value": {"c1": {"x": "aliceb1c1"}}, "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "create a post", "op": "write", "path": "/posts/p2", "value": {"owner": "alice", "title": "T"}, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "create a post for someone else", "op": "write", "path": "/posts/p2", "value": {"owner": "alice", "title": "T"}, "auth": {"uid": "bob"}, "expected": "deny" },
        { "name": "overwrite another's post", "op": "write", "path": "/posts/p1", "value": {"owner": "bob", "title": "T"}, "auth": {"uid": "bob"}, "expected": "deny" },
        { "name": "post title too long", "op": "write", "path": "/posts/p2", "value": {"owner": "alice", "title": "this title is far too long"}, "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "post title empty", "op": "write", "path": "/posts/p2", "value": {"owner": "alice", "title": ""}, "auth": {"uid": "alice"}, "expected": "deny" },
        { "name": "owner edits the title only (ancestor validate)", "op": "write", "path": "/posts/p1/title", "value": "New", "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "owner deletes the post", "op": "write", "path": "/posts/p1", "value": null, "auth": {"uid": "alice"}, "expected": "allow" },
        { "name": "now: a past time", "op": "write", "path": "/times/t", "value": 500, "expected": "allow" },
        { "name": "now: a future time", "op": "write", "path": "/times/t", "value": 2000, "expected": "deny" },
        { "name": "now: a server timestamp equals now", "op": "write", "path": "/times/t", "value": {".sv": "timestamp"}, "expected": "allow" },
        { "name": "priority: positive", "op": "write", "path": "/prio/p", "value": {".value": 1, ".priority": 3}, "expected": "allow" },
        { "name": "priority: negative", "op": "write", "path": "/prio/p", "value": {".value": 1, ".priority": -3}, "expected": "deny" },
        { "name": "priority: none", "op": "write", "path": "/prio/p", "value": 1, "expected": "allow" }
      ]
    }
    """#

struct SemanticsTests {
    @Test(arguments: FixtureCase.all(semanticsFixture))
    func semantics(_ testCase: FixtureCase) {
        testCase.run()
    }

    @Test func runnerReportsCounts() {
        guard let report = runFixture(semanticsFixture) else { return }
        #expect(report.failed == 0, "\(report)")
        #expect(report.summary == "\(report.results.count) passed, 0 failed")
    }
}
