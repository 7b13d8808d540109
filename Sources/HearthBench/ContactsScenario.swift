import Foundation
import NIOCore

/// `contacts`: the chat app's lookups over a large user base (issue 15's targets: `matchContacts`
/// with 1,000 mixed-format numbers against 100,000 users ≤ 20 ms, `searchUsers` ≤ 5 ms). Loads
/// the users (`ContactsSetup`), then, as one signed-in caller over one keep-alive connection,
/// calls `matchContacts` with the address book (`ContactsAddressBook`) `--contacts-calls` times
/// and `searchUsers` with each query as often, sequentially after warm-up calls. Every answer
/// is checked (the exact registered users of the book; search hits registered, matching, the
/// caller excluded; one query's pages followed to the end, without repeats, to exactly the
/// expected users); a wrong answer fails the run. Latency is client-observed over loopback, an
/// upper bound of the time at the server; with `--server-pid` the server's CPU per call too.
struct ContactsScenario {
    var target: ServerTarget
    var group: EventLoopGroup
    var options: ContactsOptions
    var serverPid: Int?

    func run() async throws -> ContactsReport {
        let population = try await ContactsSetup(target: target, group: group, options: options).run()
        let book = ContactsAddressBook(
            size: options.contactsBook,
            profiles: options.contactsProfiles,
            accounts: population.accounts
        )
        return try await withConnection(to: target, on: group.next()) { connection in
            let client = CallableClient(connection: connection, target: target, idToken: population.callerToken)
            let match = try await measureMatch(client, book)
            let search = try await measureSearch(client, population.accounts)
            return ContactsReport(setup: population.report, matchContacts: match, searchUsers: search)
        }
    }

    private func measureMatch(_ client: CallableClient, _ book: ContactsAddressBook) async throws -> MatchContactsReport
    {
        progress(
            "contacts: matchContacts with \(book.entries.count) entries, \(options.contactsWarmupCalls) warm-up + "
                + "\(options.contactsCalls) calls"
        )
        let data = book.callData
        for _ in 0..<options.contactsWarmupCalls {
            try check(book.disagreement(try await client.call("matchContacts", data: data).result))
        }
        var cpu = CPUSampler(serverPid: serverPid)
        cpu.start()
        var latencies: [UInt64] = []
        var results: [[String: Any]] = []
        for _ in 0..<options.contactsCalls {
            let (result, nanos) = try await client.call("matchContacts", data: data)
            latencies.append(nanos)
            results.append(result)
        }
        let window = cpu.stop(operations: options.contactsCalls)
        for result in results { try check(book.disagreement(result)) }
        let sorted = latencies.sorted()
        let stats = LatencyStats(sorted)
        return MatchContactsReport(
            entries: book.entries.count,
            registeredUsers: book.registered,
            registeredUsersTwice: book.registeredTwice,
            profilesWithoutAccount: book.profilesWithoutAccount,
            numbersNobodyHas: book.nobody,
            unparsable: book.unparsable,
            callerOwnNumber: 1,
            expectedMatches: book.expected.count,
            verified: true,
            calls: options.contactsCalls,
            latency: stats,
            serverCpuMsPerCall: window.serverMicrosPerOp.map { r3($0 / 1000) },
            targetMs: 20,
            meetsTargetAtP50: stats.p50Ms <= 20,
            meetsTargetAtP99: stats.p99Ms <= 20
        )
    }

    private func measureSearch(
        _ client: CallableClient,
        _ accounts: [ContactsAccount]
    ) async throws
        -> SearchUsersReport
    {
        let limit = options.contactsLimit
        let others = accounts.dropFirst()
        func expected(_ query: String) -> Set<String> {
            Set(others.filter { ContactsPeople.matches($0.displayName, query: query) }.map(\.uid))
        }
        func data(_ query: String, after: String? = nil) -> String {
            #"{"query":\#(jsonString(query)),"limit":\#(limit)"#
                + (after.map { #","startAfter":\#(jsonString($0))"# } ?? "")
                + "}"
        }
        var queries: [SearchQueryReport] = []
        var all: [UInt64] = []
        var cpu = CPUSampler(serverPid: serverPid)
        var cpuCalls = 0
        var serverMicros = 0.0
        for query in options.queries() {
            let wanted = expected(query)
            progress("contacts: searchUsers '\(query)' (\(wanted.count) registered users match), limit \(limit)")
            var first: SearchPage?
            for _ in 0..<options.contactsWarmupCalls {
                first = try SearchPage(try await client.call("searchUsers", data: data(query)).result)
            }
            cpu.start()
            var latencies: [UInt64] = []
            var pages: [SearchPage] = []
            for _ in 0..<options.contactsCalls {
                let (result, nanos) = try await client.call("searchUsers", data: data(query))
                latencies.append(nanos)
                pages.append(try SearchPage(result))
            }
            serverMicros += cpu.stop(operations: 1).serverMicrosPerOp ?? 0
            cpuCalls += options.contactsCalls
            for page in pages + (first.map { [$0] } ?? []) {
                try check(page.disagreement(expected: wanted, limit: limit, query: query))
            }
            let page = pages[0]
            all += latencies
            queries.append(
                SearchQueryReport(
                    query: query,
                    expectedUsers: wanted.count,
                    firstPageUsers: page.uids.count,
                    firstPageHasNext: page.next != nil,
                    latency: LatencyStats(latencies.sorted())
                )
            )
        }
        let walk = try await walkPages(client, query: options.contactsWalkQuery, expected: expected, data: data)
        let stats = LatencyStats(all.sorted())
        return SearchUsersReport(
            limit: limit,
            callsPerQuery: options.contactsCalls,
            queries: queries,
            overall: stats,
            serverCpuMsPerCall: serverPid == nil ? nil : r3(serverMicros / 1000 / Double(max(cpuCalls, 1))),
            walk: walk,
            targetMs: 5,
            meetsTargetAtP50: stats.p50Ms <= 5,
            meetsTargetAtP99: stats.p99Ms <= 5
        )
    }

    /// Follows `next` from the first page of `query` to the last (bounded): no user twice, and
    /// together exactly the expected users.
    private func walkPages(
        _ client: CallableClient,
        query: String,
        expected: (String) -> Set<String>,
        data: (String, String?) -> String
    ) async throws -> SearchWalkReport {
        let wanted = expected(query)
        var seen = Set<String>()
        var after: String?
        var pages = 0
        var emptyPagesWithNext = 0
        let maxPages = wanted.count + 1_000
        repeat {
            let page = try SearchPage(try await client.call("searchUsers", data: data(query, after)).result)
            try check(page.disagreement(expected: wanted, limit: options.contactsLimit, query: query))
            pages += 1
            if page.uids.isEmpty && page.next != nil { emptyPagesWithNext += 1 }
            for uid in page.uids where !seen.insert(uid).inserted {
                throw BenchError("contacts: searchUsers '\(query)' listed \(uid) on two pages (page \(pages))")
            }
            after = page.next
            guard pages < maxPages else {
                throw BenchError("contacts: searchUsers '\(query)' still had a next page after \(pages) pages")
            }
        } while after != nil
        guard seen == wanted else {
            throw BenchError(
                "contacts: searchUsers '\(query)' listed \(seen.count) users over \(pages) pages, expected \(wanted.count): "
                    + "missing \(Array(wanted.subtracting(seen).sorted().prefix(5))), "
                    + "unexpected \(Array(seen.subtracting(wanted).sorted().prefix(5)))"
            )
        }
        progress("contacts: searchUsers '\(query)': \(seen.count) users over \(pages) pages, as expected")
        return SearchWalkReport(
            query: query,
            pages: pages,
            users: seen.count,
            expectedUsers: wanted.count,
            emptyPagesWithNext: emptyPagesWithNext,
            verified: true
        )
    }

    private func check(_ disagreement: String?) throws {
        if let disagreement { throw BenchError("contacts: wrong answer: \(disagreement)") }
    }
}

/// One `searchUsers` page.
struct SearchPage {
    var uids: [String] = []
    var names: [String] = []
    var next: String?

    init(_ result: [String: Any]) throws {
        guard let users = result["users"] as? [[String: Any]] else {
            throw BenchError("contacts: searchUsers answered no 'users' array")
        }
        for user in users {
            guard let uid = user["uid"] as? String, let name = user["displayName"] as? String else {
                throw BenchError("contacts: searchUsers listed a user without uid or displayName: \(user)")
            }
            guard user["phoneNumber"] == nil, user["email"] == nil else {
                throw BenchError("contacts: searchUsers revealed a phone number or e-mail: \(user)")
            }
            uids.append(uid)
            names.append(name)
        }
        next = result["next"] as? String
    }

    /// Nil when the page is sane: at most `limit` users, each once, each an expected one (registered,
    /// not the caller, its name matching), and not empty and last while users are expected.
    func disagreement(expected: Set<String>, limit: Int, query: String) -> String? {
        if uids.count > limit { return "'\(query)': \(uids.count) users on a page of \(limit)" }
        if Set(uids).count != uids.count { return "'\(query)': a user twice on one page" }
        for (uid, name) in zip(uids, names) where !expected.contains(uid) {
            let why =
                ContactsPeople.matches(name, query: query) ? "not a registered user other than the caller" : "no match"
            return "'\(query)' listed \(uid) '\(name)': \(why)"
        }
        if uids.isEmpty && next == nil && !expected.isEmpty {
            return "'\(query)': an empty last page, though \(expected.count) registered users match"
        }
        return nil
    }
}
