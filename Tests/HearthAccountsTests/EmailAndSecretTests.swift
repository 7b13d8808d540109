import Foundation
import Testing

@testable import HearthAccounts

struct EmailAndSecretTests {
    @Test(arguments: [
        ("Ada@Example.com", "ada@example.com"),
        ("  ada@example.com\n", "ada@example.com"),
        ("a.b+tag@sub.example.co", "a.b+tag@sub.example.co"),
    ])
    func emailsAreNormalised(_ raw: String, _ expected: String) {
        #expect(EmailAddress.normalize(raw) == expected)
    }

    @Test(arguments: ["", "ada", "@example.com", "ada@", "ada@.com", "ada@example.", "a b@example.com", "a@b..c"])
    func implausibleEmailsAreRefused(_ raw: String) {
        #expect(EmailAddress.normalize(raw) == nil)
    }

    @Test func theJWTSecretIsCreatedOncePrivatelyAndReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-jwt-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try JWTSecretFile.loadOrCreate(in: directory)
        #expect(first.created)
        #expect(first.secret.count == 43)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/jwt-secret")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try JWTSecretFile.loadOrCreate(in: directory)
        #expect(!second.created)
        #expect(second.secret == first.secret)
    }
}
