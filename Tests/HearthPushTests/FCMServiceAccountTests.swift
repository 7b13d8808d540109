import Foundation
import HearthPush
import HearthPushFakes
import Testing

struct FCMServiceAccountTests {
    @Test func aConsoleKeyLoads() async throws {
        try await withTemporaryDirectory { directory in
            let key = try FakeServiceAccount(projectID: "chat-app", tokenURI: "https://oauth2.googleapis.com/token")
            let path = directory.appendingPathComponent("key.json").path
            try key.write(to: path)
            let account = try FCMServiceAccount.load(path: path)
            #expect(account.projectID == "chat-app")
            #expect(account.clientEmail == key.clientEmail)
            #expect(account.privateKeyID == key.privateKeyID)
            #expect(account.tokenURI.absoluteString == "https://oauth2.googleapis.com/token")
        }
    }

    static let brokenFiles: [(String, [String: String?], String)] = [
        ("no type", ["type": nil], "has no 'type'"),
        ("a user credential", ["type": "authorized_user"], "has 'type' 'authorized_user', not 'service_account'"),
        ("no project", ["project_id": nil], "has no 'project_id'"),
        ("empty project", ["project_id": ""], "has a 'project_id' that is not a non-empty string"),
        ("no key id", ["private_key_id": nil], "has no 'private_key_id'"),
        ("no key", ["private_key": nil], "has no 'private_key'"),
        (
            "a PKCS#1 key", ["private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"],
            "not a PKCS#8 PEM"
        ),
        (
            "a broken key", ["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"],
            "not an RSA key"
        ),
        ("no email", ["client_email": nil], "has no 'client_email'"),
        ("not an email", ["client_email": "robot"], "'client_email' 'robot' that is not an email address"),
        ("no token uri", ["token_uri": nil], "has no 'token_uri'"),
        ("http token uri", ["token_uri": "http://oauth2.example.com/token"], "plain http to another machine"),
    ]

    @Test(arguments: brokenFiles)
    func aBrokenFileIsRefusedNamingTheFieldAndWhatToDo(
        label: String,
        changes: [String: String?],
        expected: String
    ) async throws {
        try await withTemporaryDirectory { directory in
            let key = try FakeServiceAccount(projectID: "chat-app", tokenURI: "https://oauth2.googleapis.com/token")
            let path = directory.appendingPathComponent("key.json").path
            try key.write(to: path, replacing: changes)
            let error = #expect(throws: PushError.self, "\(label)") { try FCMServiceAccount.load(path: path) }
            #expect(error?.code == .invalidServiceAccount)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("PRIVATE KEY") != true || expected.contains("PKCS#8"))
        }
    }

    @Test func aMissingFileIsNamed() throws {
        let error = #expect(throws: PushError.self) { try FCMServiceAccount.load(path: "/nonexistent/key.json") }
        #expect(error?.code == .unreadableServiceAccount)
        #expect(error?.message.contains("'/nonexistent/key.json'") == true)
    }

    @Test func notJSONIsNamed() throws {
        let error = #expect(throws: PushError.self) {
            try FCMServiceAccount(json: Data("not json".utf8), source: "key.json")
        }
        #expect(error?.message.contains("'key.json' is not a JSON object") == true)
    }
}
