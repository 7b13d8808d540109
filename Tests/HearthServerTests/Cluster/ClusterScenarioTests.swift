import Foundation
import HearthServer
import HearthTestSupport
import Testing

/// Issue 39, test 1: the single-node suite's end-to-end tests of the ways in, through a node of a
/// two-node cluster that does not own the namespace (`TestServer.withCluster`: REST and SSE
/// forwarded, WebSockets relayed to the owner), give the same answers, events and data. The
/// nodes run in this process over a database of the private PostgreSQL. The REST scenario
/// tables share one cluster, the namespace emptied between scenarios (each single-node scenario
/// starts from an empty server); the other tests are the single-node suites' own test functions,
/// run with `TestServer.$throughCluster` set, each on a fresh cluster. `.ci/run` runs this
/// suite with the cluster's process tests, after the rest.
@Suite("the single-node tests through a cluster", .serialized)
struct ClusterScenarioTests {
    /// `entry` does not serve `default` itself: the cluster says another node owns it.
    static func expectForwarded(through entry: TestServer) async throws {
        let answer = try await entry.send("GET", "/.well-known/hearth/cluster?auth=\(TestServer.adminSecret)")
        let view = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        let this = try #require(view["this"] as? [String: Any])
        let serving = try #require(this["serving"] as? [String: Any])
        let owners = try #require(view["owners"] as? [String: String])
        #expect(serving["default"] == nil, "\(answer.body)")
        #expect(owners["default"] != nil && owners["default"] != this["id"] as? String, "\(answer.body)")
    }

    /// Runs every scenario of `tables` through the node that does not own the namespace.
    static func check(_ tables: [(name: String, scenarios: [RESTScenario])], rules: String?) async throws {
        try await TestServer.withCluster(
            prepare: { configuration, _ in
                if let rules { try rules.write(toFile: configuration.rulesFile, atomically: true, encoding: .utf8) }
            }
        ) { entry in
            try await expectForwarded(through: entry)
            var count = 0
            for table in tables {
                for scenario in table.scenarios {
                    let emptied = try await entry.send("DELETE", "/.json?auth=\(TestServer.adminSecret)")
                    #expect(emptied.status == 200)
                    let problems = try await scenario.run(on: entry)
                    #expect(problems.isEmpty, "\(table.name) \(scenario.id): \(problems.joined(separator: "; "))")
                    count += 1
                }
            }
            #expect(count > 0)
            try await expectForwarded(through: entry)
        }
    }

    @Test func theTablesUnderNoRulesFile() async throws {
        let shallow = ShallowPagingTests.refused.map { scenario -> RESTScenario in
            var scenario = scenario
            scenario.setup.insert(("/list", ShallowPagingTests.document), at: 0)
            return scenario
        }
        try await Self.check(
            [
                ("RESTMethodTests", RESTMethodTests.scenarios),
                ("MethodOverrideTests", MethodOverrideTests.scenarios),
                ("RESTCredentialTests", RESTCredentialTests.scenarios),
                ("RESTBadInputTests", RESTBadInputTests.scenarios),
                ("RESTPatchKeySpellingTests", RESTPatchKeySpellingTests.scenarios),
                ("ShallowPagingTests", shallow),
            ],
            rules: nil
        )
    }

    @Test func theFormDecodingTable() async throws {
        try await Self.check(
            [("RESTFormDecodingTests", RESTFormDecodingTests.scenarios)],
            rules: RESTFormDecodingTests.rules
        )
    }

    @Test func theQueryTable() async throws {
        try await Self.check([("RESTQueryTests", RESTQueryTests.scenarios)], rules: RESTQueryTests.rules)
    }

    /// Runs `body` (single-node tests) with every `TestServer.with` inside it made a cluster.
    static func throughCluster(_ body: () async throws -> Void) async throws {
        try await TestServer.$throughCluster.withValue(true) { try await body() }
    }

    @Test func theWebSocketTests() async throws {
        try await Self.throughCluster {
            let tests = WebSocketTests()
            try await tests.helloEchoesTheHostAndVersion()
            for query in WebSocketTests.refusedQueries { try await tests.upgradeIsRefused(query: query) }
            try await tests.protocolPingIsAnswered()
            try await tests.listenGetsDataThenOk()
            try await tests.listenWithMatchingHashSendsNoData()
            try await tests.restWriteReachesListener()
            try await tests.putMergeAndGetEndToEnd()
            try await tests.writesReachOtherClientsInOrder()
            try await tests.concurrentTransactionsEndAtTheExactSum()
            try await tests.transactionOnMissingDataUsesTheEmptyHash()
            try await tests.onDisconnectRunsWhenTheSocketDrops()
            try await tests.cancelledOnDisconnectDoesNotRun()
            try await tests.malformedFrameClosesOnlyThatConnection()
            try await tests.unknownActionAndBadPathGetFailures()
            try await tests.nonAdminIsDenied()
            try await tests.invalidAndExpiredTokensAreRefused()
            try await tests.emulatorAcceptsOwnerAndUnsignedTokens()
            try await tests.largeMessagesCrossInBothDirections()
            try await tests.slowConsumerIsClosedWithoutHurtingOthers()
            try await tests.expiredTokenIsRevokedOnTick()
            try await tests.unauthRevokesListensNoLongerReadable()
        }
    }

    @Test func theRulesEnforcementTests() async throws {
        try await Self.throughCluster {
            let tests = RulesEnforcementTests()
            try await tests.restReadsFollowTheRules()
            try await tests.restWritesFollowTheRulesAndDeniedWritesChangeNothing()
            try await tests.createOnlyMessagesCheckTheSenderAndMembership()
            try await tests.queryBasedRulesSeeTheQuery()
            try await tests.authVariableOverrideActsAsTheGivenAuth()
            try await tests.sseStreamIsCancelledWhenAWriteRevokesAccess()
            try await tests.webSocketListensWritesAndOnDisconnectAreChecked()
            try await tests.webSocketListenIsRevokedByAWriteAndGetsNothingAfter()
            try await tests.aRulesChangeRevokesListensItNoLongerAllows()
            try await tests.transactionsFromTwoUsersAreJudgedAndEndAtTheExactSum()
        }
    }

    @Test func theEventStreamAndAnswerOrderTests() async throws {
        try await Self.throughCluster {
            let events = SSETests()
            try await events.streamStartsWithPutThenFollowsChanges()
            try await events.webSocketWritesReachStreams()
            try await events.keepAliveArrivesOnTheConfiguredInterval()
            try await events.queriesSelectTheStreamedChildren()
            try await events.nonAdminIsRefused()
            let order = WriteAnswerOrderTests()
            try await order.aWritesDataReachesTheWritersListensBeforeItsAnswer()
            try await order.aQueryListensUpdateArrivesBeforeTheAnswer()
        }
    }

    @Test func theStreamedReadAndRulesTests() async throws {
        try await Self.throughCluster {
            let streamedRead = RESTStreamedReadTests()
            try await streamedRead.aValuePastOneChunkIsChunkedAndTheSameAsTheWholeRender()
            try await streamedRead.aSmallValueKeepsItsLength()
            try await streamedRead.anExportAndADownloadAreStreamedWithTheirForm()
            try await streamedRead.aRefusedReadSendsNothingOfTheValue()
            let shallowStream = ShallowStreamTests()
            try await shallowStream.aPageOfChildrenIsFollowedShallow()
            try await shallowStream.aShallowListenAndTheSameQueryNeverShareTheirPushes()
            try await shallowStream.theRangeIsBoundedAndExplained()
            try await shallowStream.everyoneElseGetsTheAnswersTheyGotBefore()
            let rulesSettings = RulesSettingsTests()
            // Not `aDocumentThatCompilesIsInstalledAndWrittenVerbatim`: in a cluster the rules are
            // the cluster's log and no node's file is rewritten (docs/cluster.md).
            try await rulesSettings.onlyTheAdminReadsOrReplacesTheRules()
            let conditional = RESTConditionalTests()
            try await conditional.etagRoundTrip()
            try await conditional.nullETag()
            try await conditional.ifNoneMatch()
            let rulesHistory = RulesHistoryTests()
            try await rulesHistory.publishedDocumentsAreKeptAndAnOldOneCanBeRolledBack()
        }
    }

    @Test func theRESTBodyTests() async throws {
        try await Self.throughCluster {
            let theMethod = RESTMethodTests()
            try await theMethod.postAnswersPushIDAndStoresUnderIt()
            try await theMethod.corsPreflightAndHeader()
            try await theMethod.corsNarrowedOrigin()
            let theJSONPAndDownload = RESTJSONPAndDownloadTests()
            try await theJSONPAndDownload.callbackWrapsTheValueAsAScript()
            try await theJSONPAndDownload.callbackNamesThatAreNotFunctionNamesAreRefused()
            try await theJSONPAndDownload.callbackAndDownloadAreRefusedOnWrites()
            try await theJSONPAndDownload.downloadAnswersAnAttachment()
            let theRequestBodyLimit = RequestBodyLimitTests()
            try await theRequestBodyLimit.announcedLengthOverTheLimitIsRefusedBeforeTheBody()
            try await theRequestBodyLimit.deniedByTheCurrentDataIsRefusedBeforeALargeBody()
            try await theRequestBodyLimit.rulesOnTheNewDataJudgeTheBody()
            try await theRequestBodyLimit.invalidCredentialIsRefusedBeforeTheBody()
            try await theRequestBodyLimit.bodiesInFlightShareTheMemoryLimit()
        }
    }

    @Test func theStorageTests() async throws {
        try await Self.throughCluster {
            let theClientAPI = StorageClientAPITests()
            try await theClientAPI.anUploadIsServedBackWithItsMetadata()
            try await theClientAPI.rangesAnswer206AndPastTheEnd416()
            try await theClientAPI.deleteAndListing()
            try await theClientAPI.withoutTheAdminCredentialEverythingIsRefused()
            try await theClientAPI.badNamesAndOversizedBodiesAreRefusedClearly()
            try await theClientAPI.anObjectPastTheLimitIsRefused413AndNothingStays()
            try await theClientAPI.aMultipartUploadAsTheSDKSendsIt()
            try await theClientAPI.theFirebaseSchemeAndCORS()
            let theGCSAPI = StorageGCSAPITests()
            try await theGCSAPI.uploadReadListPatchDelete()
            try await theGCSAPI.onlyTheAdmin()
            try await theGCSAPI.resumableUploadsWithContentRange()
            try await theGCSAPI.aMetadataGetGivesATokenlessObjectOneToken()
            let theResumable = StorageResumableTests()
            try await theResumable.chunksQueryAndFinalize()
            try await theResumable.cancelUnknownAndUnauthorized()
            let theGCSCopy = StorageGCSCopyTests()
            try await theGCSCopy.copyThenRewriteThenDeleteTheSource()
            try await theGCSCopy.refusals()
            let theGCSACL = StorageGCSACLTests()
            try await theGCSACL.shortPathFormsBesideTheDatabase()
            try await theGCSACL.aclsAreKeptAndGivenBack()
            try await theGCSACL.uploadsAndCopiesSetTheirOwn()
            try await theGCSACL.badACLsAreRefused()
            let theConformance = StorageConformanceTests()
            try await theConformance.methodOverrideAndPut()
            try await theConformance.aResumableStartWithTheNameInThePath()
            try await theConformance.createAndDeleteDownloadTokens()
            try await theConformance.aMultipartUploadWithoutABoundaryIsABadContentType()
            try await theConformance.theDefaultBucketIsTheProjects()
            let theGzip = StorageGzipTests()
            try await theGzip.servedDecompressedUnlessTheClientAcceptsGzip()
            try await theGzip.noTransformAndOtherEncodingsGoAsStored()
            try await theGzip.corruptBytesAreRefusedOrCutShortAndLogged()
        }
    }

    @Test func thePresenceTests() async throws {
        let webSockets = PresenceWebSocketTests()
        let sources = PresenceSourcesTests()
        let tests: [(String, () async throws -> Void)] = [
            (
                "online, then offline on the close frame",
                webSockets.authMakesAUserOnlineAndTheCloseFrameOfTheLastConnectionOffline
            ),
            ("online until the last connection ends", webSockets.aUserIsOnlineUntilTheirLastConnectionEnds),
            (
                "offline after a reset",
                { try await webSockets.aConnectionDroppedWithoutACloseFrameGoesOfflineWithinASecond("reset") }
            ),
            (
                "offline after a FIN",
                { try await webSockets.aConnectionDroppedWithoutACloseFrameGoesOfflineWithinASecond("fin") }
            ),
            ("unauth and another user's auth", webSockets.unauthAndAnotherUsersAuthMoveTheConnectionsCount),
            ("a refreshed token", webSockets.aRefreshedTokenOfTheSameUserChangesNothing),
            ("a revoked token", webSockets.aRevokedTokenMakesTheUserOffline),
            ("an SSE stream", sources.aUsersSSEStreamCountsWhileItStreams),
            ("admin and anonymous", sources.theAdminAnAdminActingAsAUserAndAnonymousClientsDoNotCount),
            ("an emulator token", sources.anEmulatorMockTokenUserCounts),
            ("each namespace its own", sources.eachPresenceNamespaceCountsItsOwnConnectionsAndOthersNone),
            ("a deleted account", PresenceAccountDeletionTests().deletingAConnectedUsersAccountRemovesTheirEntry),
            ("the rules", PresenceRulesTests().signedInUsersReadOneEntryAndNoClientWritesAny),
        ]
        for failure in await TestServer.failuresThroughCluster(tests) { Issue.record(Comment(rawValue: failure)) }
    }

    /// WebSockets relayed by another node leave that node's share of the owner's per-address
    /// cap once their upgrade shows its stamp (the relaying node limits its own clients): with
    /// the owner limiting loopback to two connections an address, four relayed WebSockets all
    /// write.
    @Test func relayedWebSocketsDoNotCountAgainstTheRelayingNodesAddress() async throws {
        try await Self.withCluster(limitingLoopbackOn: 0, { $0.maxConnectionsPerAddress = 2 }) { entry in
            var clients: [RealtimeTestClient] = []
            defer { Task { [clients] in for client in clients { await client.close() } } }
            for index in 0..<4 {
                let client = try await RealtimeTestClient.connect(port: entry.port)
                clients.append(client)
                try await client.authenticateAsAdmin()
                let id = client.request("p", #"{"p":"/relayed/\#(index)","d":\#(index)}"#)
                let reply = try await client.response(to: id)
                #expect(reply.body["s"] as? String == "ok", "relay \(index): \(reply.body)")
            }
            let read = try await entry.send("GET", "/relayed.json?auth=\(TestServer.adminSecret)")
            #expect(read.body == "[0,1,2,3]", "\(read.body)")
        }
    }
}
