import Foundation
import HearthTestSupport
import Testing

extension ChatScenario {
    /// 0. Each finds the others from an address book in the formats people type: national
    /// numbers read in the caller's own region (Alice's US, Bob's UK), international prefixes
    /// (011 from the US, 00 from the UK), Italy's leading 0, Argentina's mobile 9; the caller's
    /// own number and unknown numbers find nobody.
    func contactsInMixedFormatsFindTheirFriends() async throws {
        let alice = try await chat.call(
            "matchContacts",
            as: "Alice",
            data: #"""
                {"phoneNumbers": ["+44 7700 900123", "011 39 06 1234 5678", "(415) 555-0123", "+54 9 11 2345-6789",
                "+1 202-555-0199", "call me"]}
                """#
        )
        let found = try ChatServer.matches(alice)
        #expect(Set(found.keys) == [uid("Bob"), uid("Carol"), uid("Dave")])
        #expect(found[uid("Bob")]?["matched"] as? [String] == ["+44 7700 900123"])
        #expect(found[uid("Carol")]?["matched"] as? [String] == ["011 39 06 1234 5678"])
        #expect(found[uid("Dave")]?["phoneNumber"] as? String == "+5491123456789")
        let bob = try await chat.call(
            "matchContacts",
            as: "Bob",
            data: #"{"phoneNumbers": ["07700 900123", "00 1 415 555 0123", "+39 06 1234 5678"]}"#
        )
        let bobFound = try ChatServer.matches(bob)
        #expect(Set(bobFound.keys) == [uid("Alice"), uid("Carol")])
        #expect(bobFound[uid("Alice")]?["matched"] as? [String] == ["00 1 415 555 0123"])
    }
}
