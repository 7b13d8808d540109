import HearthStorage
import Testing

/// Object and bucket names: what Cloud Storage and the contract accept, and a refusal that says
/// what is wrong for each kind of bad name.
@Suite struct ObjectNameTests {
    @Test(arguments: [
        "a", "users/u1/avatar.jpg", "chats/c1/photo 1.png", "ünïcødé/名前", "a.b/..c/d..",
        String(repeating: "x", count: 1024),
    ])
    func goodNamesAreTaken(_ name: String) throws {
        #expect(try ObjectName(name).value == name)
    }

    @Test(arguments: [
        ("", "is empty"),
        (String(repeating: "x", count: 1025), "is 1025 bytes long"),
        ("a\nb", "line break"),
        ("a\rb", "line break"),
        ("a//b", "empty segment"),
        ("/a", "empty segment"),
        ("a/", "empty segment"),
        ("a/../b", "'..' segment"),
        ("./a", "'.' segment"),
        ("a\u{0}b", "NUL"),
    ])
    func badNamesAreRefusedSayingWhy(_ name: String, _ why: String) {
        #expect {
            _ = try ObjectName(name)
        } throws: { error in
            guard let error = error as? StorageError else { return false }
            return error.code == .invalidName && error.code.httpStatus == 400 && error.message.contains(why)
        }
    }

    @Test func bucketNames() throws {
        #expect(try BucketName("my-chat-app.appspot.com").value == "my-chat-app.appspot.com")
        for bad in ["", "Upper", "a/b", "a b", String(repeating: "a", count: 223)] {
            #expect(throws: StorageError.self) { _ = try BucketName(bad) }
        }
    }
}
