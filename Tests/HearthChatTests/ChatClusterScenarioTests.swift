import Foundation
import HearthTestSupport
import Testing

/// Issue 39, test 1 for the chat app: its end-to-end tests through a node of a two-node cluster
/// that does not own the namespace (`TestServer.$throughCluster`: REST, SSE and callables
/// forwarded, WebSockets relayed to the owner, where the triggers run). Each test names what
/// failed and the rest still run. `.ci/run` runs it with the cluster's tests (its name matches
/// `ClusterScenarioTests`).
@Suite("the chat app's tests through a cluster", .serialized, .timeLimit(.minutes(10)))
struct ChatClusterScenarioTests {
    static func run(_ tests: [(String, () async throws -> Void)]) async {
        for failure in await TestServer.failuresThroughCluster(tests) { Issue.record(Comment(rawValue: failure)) }
    }

    @Test func theStoryAndTheMessageTrigger() async {
        let triggers = MessageTriggerEndToEndTests()
        await Self.run([
            (
                "the chat story",
                ChatScenarioTests().threeFriendsChatFromTheirFirstPrivateChatToTheLastOneLeavingTheGroup
            ),
            ("last message after a delete", triggers.deletingTheNewestMessageRaisesLastMessageAtToTheNextNewest),
            ("REST counters before the answer", triggers.restMessagesCommitTheirCountersBeforeTheyAreAcknowledged),
            ("a WebSocket message's listeners", triggers.aWebSocketMessageReachesTheOtherMembersChatListListener),
        ])
    }

    @Test func blockingRequestsAndContacts() async {
        let blocked = BlockedPostingTests()
        let requests = ConversationRequestTests()
        let contacts = MatchContactsTests()
        await Self.run([
            ("blocked posting", blocked.aBlockedUserCannotPostIntoThePrivateChatByRESTOrWebSocketUntilUnblocked),
            ("nothing reveals a block", blocked.nothingABlockedUserReadsRevealsTheBlock),
            ("a request between strangers", requests.aChatBetweenStrangersIsARequestToTheOtherPartyOnly),
            ("a reply clears the request", requests.aReplyClearsTheFlagInTheMessagesCommit),
            ("a contact clears the request", requests.addingTheStarterAsAContactClearsTheFlagByEveryWayIn),
            ("contacts in any format", contacts.numbersInAnyCommonFormatMatchTheirUsers),
            ("the contacts quota", contacts.theQuotaCountsOnlyNewNumbersAndRefusesWithARetryTime),
        ])
    }
}
