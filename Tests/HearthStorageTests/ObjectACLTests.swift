import Foundation
import HearthStorage
import Testing

/// ACL entries as the JSON API sends them: checked entities and roles, predefined lists, a
/// patch's `acl`, and metadata stored before ACLs existed still read.
@Suite struct ObjectACLTests {
    @Test func entriesAreChecked() throws {
        for entity in [
            "allUsers", "allAuthenticatedUsers", "user-ada@example.com", "group-team@example.com",
            "domain-example.com", "project-owners-123", "project-viewers-hearth",
        ] {
            #expect(throws: Never.self) { try ObjectACLEntry(entity: entity, role: "READER") }
        }
        for entity in ["", "everyone", "user-", "project-owners-", "user-a/b", "user-a\nb"] {
            #expect(throws: StorageError.self) { try ObjectACLEntry(entity: entity, role: "READER") }
        }
        #expect(throws: StorageError.self) { try ObjectACLEntry(entity: "allUsers", role: "WRITER") }
        #expect(throws: StorageError.self) { try ObjectACLEntry(entity: "allUsers", role: "reader") }
    }

    @Test func predefinedListsAndPatches() throws {
        #expect(try ObjectACLEntry.predefined("publicRead") == [ObjectACLEntry(entity: "allUsers", role: "READER")])
        #expect(
            try ObjectACLEntry.predefined("authenticatedRead")
                == [ObjectACLEntry(entity: "allAuthenticatedUsers", role: "READER")]
        )
        for name in ["private", "projectPrivate", "bucketOwnerRead", "bucketOwnerFullControl"] {
            #expect(try ObjectACLEntry.predefined(name) == [])
        }
        #expect(throws: StorageError.self) { try ObjectACLEntry.predefined("public") }

        // A later entry for the same entity replaces the earlier one.
        let patch = try MetadataPatch(json: [
            "acl": [["entity": "allUsers", "role": "READER"], ["entity": "allUsers", "role": "OWNER", "etag": "x"]]
        ])
        #expect(patch.acl == .some([try ObjectACLEntry(entity: "allUsers", role: "OWNER")]))
        #expect(try MetadataPatch(json: ["acl": NSNull()]).acl == .some(nil))
        #expect(try MetadataPatch(json: [:]).acl == nil)
        let tooMany = (0...ObjectACLEntry.maxEntries).map { ["entity": "user-u\($0)", "role": "READER"] }
        #expect(throws: StorageError.self) { try MetadataPatch(json: ["acl": tooMany]) }
    }

    @Test func metadataWithoutAnACLStillReads() throws {
        let stored = #"""
            {"bucket":"b","name":"n","generation":"1","metageneration":1,"size":1,"md5Hash":"","crc32c":"",
             "timeCreated":0,"updated":0,"downloadTokens":[],"metadata":{}}
            """#
        let object = try JSONDecoder().decode(ObjectMetadata.self, from: Data(stored.utf8))
        #expect(object.acl == nil)
        var withACL = object
        withACL.acl = [try ObjectACLEntry(entity: "allUsers", role: "READER")]
        let again = try JSONDecoder().decode(ObjectMetadata.self, from: JSONEncoder().encode(withACL))
        #expect(again.acl == withACL.acl)
        let bad = stored.replacingOccurrences(
            of: #""metadata":{}"#,
            with: #""metadata":{},"acl":[{"entity":"x","role":"READER"}]"#
        )
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ObjectMetadata.self, from: Data(bad.utf8)) }
    }
}
