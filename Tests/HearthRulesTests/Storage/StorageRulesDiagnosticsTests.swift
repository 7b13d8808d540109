import Testing

@testable import HearthRules

/// What the compiler refuses, with the line and column it names.
@Suite("Storage rules: diagnostics")
struct StorageRulesDiagnosticsTests {
    static func wrapped(_ body: String) -> String {
        """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            \(body)
          }
        }
        """
    }

    @Test(
        arguments: [
            ("match /x { allow raed: if true; }", 4, 22, "unknown method 'raed'; did you mean 'read'?"),
            (
                "match /x { allow read: if reqest.auth != null; }", 4, 31,
                "unknown variable 'reqest'; did you mean 'request'?"
            ),
            ("match /x { allow read: if isOwner(); }", 4, 31, "unknown function 'isOwner'"),
            ("match /x { allow read: if 'a'.sise() > 1; }", 4, 31, "unknown method 'sise'; did you mean 'size'?"),
            ("match /x { allow read: if math.absolute(1) > 0; }", 4, 31, "unknown function 'math.absolute'"),
            ("match /x { allow read: if 'a'.matches('(') ; }", 4, 43, "invalid regular expression"),
            ("match /x { allow read: if get(/a/b) != null; }", 4, 31, "reads Firestore"),
            ("match /x { allow read: if firestore.exists(/a/b); }", 4, 31, "read the database with 'database.exists"),
            ("match /x { allow read: if hashing.sha1(b'a') != null; }", 4, 31, "unknown function 'hashing.sha1'"),
            ("match /x { allow read: if 1 = 1; }", 4, 33, "'=' is not an operator"),
            ("match /x { allow read: if 'unterminated; }", 4, 31, "unterminated string literal"),
            ("match /x { allow read: if 1 is strin; }", 4, 36, "unknown type 'strin'; did you mean 'string'?"),
            ("match /x { allow read: true; }", 4, 28, "expected 'if' after ':'"),
            ("match /{a}/{a} { allow read; }", 4, 5, "wildcard 'a' is already in scope"),
            ("match /{a=**}/{b=**} { allow read; }", 4, 5, "at most one recursive wildcard"),
            ("match /{a=*} { allow read; }", 4, 14, "'=**'"),
            ("function f(x) { return f(x); } match /x { allow read: if f(1); }", 4, 5, "calls itself"),
            ("function f(x) { return x; } match /x { allow read: if f(1, 2); }", 4, 59, "takes 1 argument, not 2"),
            (
                "function f() { return 1; } function f() { return 2; } match /x { allow read; }", 4, 32,
                "already declared"
            ),
            ("match /x { allow read: if true }", 4, 36, nil as String?),
        ] as [(String, Int, Int, String?)]
    )
    func refusesWithPosition(_ body: String, line: Int, column: Int, message: String?) {
        let diagnostics = storageDiagnostics(Self.wrapped(body))
        guard let message else {
            #expect(diagnostics.isEmpty, "a missing ';' before '}' is accepted: \(diagnostics)")
            return
        }
        #expect(!diagnostics.isEmpty, "\(body) should be refused")
        guard let first = diagnostics.first else { return }
        #expect(first.message.contains(message), "\(first.message)")
        #expect(first.position == SourcePosition(line: line, column: column), "\(first.rendered)")
    }

    @Test func refusesOtherServicesVersionsAndShapes() {
        #expect(
            storageDiagnostics("service cloud.firestore { match /x { allow read; } }").first?.message.contains(
                "not Cloud Storage"
            ) == true
        )
        #expect(
            storageDiagnostics("rules_version = '3'; service firebase.storage {}").first?.message.contains("'1' or '2'")
                == true
        )
        #expect(storageDiagnostics("").first?.message.contains("declares no service") == true)
        #expect(
            storageDiagnostics("service firebase.storage { match /x { allow read; }").first?.message.contains(
                "not closed"
            ) == true
        )
        #expect(
            storageDiagnostics("service firebase.storage {} extra").first?.message.contains("after the service") == true
        )
        let v1 = storageDiagnostics("service firebase.storage { match /b/{bucket}/o/{all=**}/x { allow read; } }")
        #expect(v1.first?.message.contains("rules_version = '2'") == true)
    }

    @Test func reportsEveryNameProblemAtOnceAndRendersTheCaret() {
        let diagnostics = storageDiagnostics(Self.wrapped("match /x { allow read: if a && b; }"))
        #expect(diagnostics.map(\.message) == ["unknown variable 'a'", "unknown variable 'b'"])
        #expect(diagnostics[0].rendered.hasPrefix("storage.rules:4:31: unknown variable 'a'"))
        #expect(diagnostics[0].rendered.hasSuffix("| ..............................^"))
    }

    @Test func acceptsTheDocumentedForms() throws {
        _ = try storageRules(
            """
            rules_version = '2';
            // Comments, block comments and every allow form.
            service firebase.storage {
              /* service-level function */
              function signedIn() { return request.auth != null; }
              match /b/{bucket}/o {
                match /images/{imageId} {
                  allow read;
                  allow write: if signedIn()
                    && request.resource.size < 5 * 1024 * 1024
                    && request.resource.contentType.matches('image/.*');
                }
                match /{allPaths=**} {
                  allow get, list: if false;
                  allow create, update, delete: if request.auth.token.admin == true;
                }
              }
            }
            """
        )
    }
}
