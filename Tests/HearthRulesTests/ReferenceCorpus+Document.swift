// Rule types and how rules apply, as a `hearth rules test` file (docs/rules.md); every case
// names the reference feature it covers ("feature") and where the behaviour is documented
// ("source", see ReferenceCorpus.swift). The rules are the documentation's own examples.
let referenceDocumentFixture = #"""
    {
      "rules": {
        "rules": {
          "foo": {
            ".read": true,
            ".write": false,
            "bar": { ".read": false, ".write": true, "baz": { ".write": false } }
          },
          "records": {
            "rec1": { ".read": true },
            "rec2": { ".read": false }
          },
          "widget": {
            ".write": true,
            ".validate": "newData.hasChildren(['color', 'size'])",
            "size": { ".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() <= 99" },
            "color": { ".validate": "root.child('valid_colors/' + newData.val()).exists()" }
          },
          "message": {
            ".write": true,
            "title": { ".validate": "newData.isString()" },
            "message": { ".validate": "newData.isString()" },
            "$other": { ".validate": false }
          },
          "users": {
            ".indexOn": ["email"],
            "$uid": {
              ".read": "auth != null",
              ".write": "auth.uid == $uid",
              ".validate": "newData.hasChildren(['name'])"
            }
          }
        }
      },
      "now": 1000,
      "data": {
        "foo": { "bar": { "baz": 1 }, "x": 2 },
        "records": { "rec1": { "a": 1 }, "rec2": { "b": 2 } },
        "valid_colors": { "red": true, "blue": true },
        "users": { "alice": { "name": "Alice" } }
      },
      "cases": [
        { "feature": ".read", "source": "reference", "name": "a true .read grants the read",
          "op": "read", "path": "/foo", "expected": "allow" },
        { "feature": ".read", "source": "reference", "name": "no .read anywhere denies",
          "op": "read", "path": "/", "expected": "deny" },
        { "feature": ".write", "source": "reference", "name": "a .write on the written location grants it",
          "op": "write", "path": "/foo/bar/x", "value": 1, "expected": "allow" },
        { "feature": ".write", "source": "reference", "name": "a false .write alone denies",
          "op": "write", "path": "/foo/y", "value": 1, "expected": "deny" },
        { "feature": "read/write cascade", "source": "core-syntax", "name": "a read granted above cannot be revoked below",
          "op": "read", "path": "/foo/bar", "expected": "allow" },
        { "feature": "read/write cascade", "source": "core-syntax", "name": "a write granted above cannot be revoked below",
          "op": "write", "path": "/foo/bar/baz", "value": 2, "expected": "allow" },
        { "feature": "rules are not filters", "source": "core-syntax", "name": "reading records needs a grant at records",
          "op": "read", "path": "/records", "expected": "deny" },
        { "feature": "rules are not filters", "source": "core-syntax", "name": "the readable record alone is readable",
          "op": "read", "path": "/records/rec1", "expected": "allow" },
        { "feature": ".validate", "source": "reference", "name": "a valid widget is written",
          "op": "write", "path": "/widget", "value": { "color": "red", "size": 5 }, "expected": "allow" },
        { "feature": ".validate", "source": "reference", "name": "a widget without a size is refused",
          "op": "write", "path": "/widget", "value": { "color": "red" }, "expected": "deny" },
        { "feature": ".validate", "source": "reference", "name": "a widget of an unknown color is refused",
          "op": "write", "path": "/widget", "value": { "color": "green", "size": 5 }, "expected": "deny" },
        { "feature": ".validate", "source": "core-syntax", "name": "deleting is never refused by .validate",
          "op": "write", "path": "/widget", "value": null, "expected": "allow" },
        { "feature": ".validate does not cascade", "source": "core-syntax",
          "name": "a .validate that passes above does not excuse a failing one below",
          "op": "write", "path": "/widget", "value": { "color": "red", "size": 100 }, "expected": "deny" },
        { "feature": ".validate does not cascade", "source": "core-syntax",
          "name": "writing only a child still runs the parent's .validate on the merged data",
          "op": "write", "path": "/widget/size", "value": 7, "data": { "valid_colors": { "red": true }, "widget": { "color": "red", "size": 5 } },
          "expected": "allow" },
        { "feature": ".validate does not cascade", "source": "core-syntax",
          "name": "a child written alone where the parent would then lack a child is refused",
          "op": "write", "path": "/widget/size", "value": 7, "data": { "valid_colors": { "red": true } },
          "expected": "deny" },
        { "feature": "$other", "source": "core-syntax", "name": "the named children are accepted",
          "op": "write", "path": "/message", "value": { "title": "Hi", "message": "Hello" }, "expected": "allow" },
        { "feature": "$other", "source": "core-syntax", "name": "any other child is refused",
          "op": "write", "path": "/message", "value": { "title": "Hi", "extra": 1 }, "expected": "deny" },
        { "feature": "$other", "source": "core-syntax", "name": "a multi-path update adding another child is refused",
          "op": "update", "path": "/message", "value": { "title": "Hi", "spam": "x" }, "expected": "deny" },
        { "feature": "$location", "source": "conditions", "name": "a user writes their own profile",
          "op": "write", "path": "/users/alice", "auth": { "uid": "alice" }, "value": { "name": "Al" }, "expected": "allow" },
        { "feature": "$location", "source": "conditions", "name": "nobody writes another user's profile",
          "op": "write", "path": "/users/alice", "auth": { "uid": "bob" }, "value": { "name": "Al" }, "expected": "deny" },
        { "feature": ".indexOn", "source": "reference", "name": ".indexOn does not change who may read",
          "op": "read", "path": "/users/alice", "auth": { "uid": "bob" }, "query": { "orderByChild": "email" },
          "expected": "allow" }
      ]
    }
    """#
