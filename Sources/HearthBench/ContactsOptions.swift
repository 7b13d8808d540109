import ArgumentParser

/// The options of the `contacts` scenario (`matchContacts` and `searchUsers` over a large
/// user base; the server must run the chat app in `--ns`: `hearth serve --chat-ns bench`).
struct ContactsOptions: ParsableArguments {
    @Option(help: "contacts: profiles written by the admin at users/u000001 … (no account behind them).")
    var contactsProfiles = 100_000

    @Flag(
        help: """
            contacts: give the profiles random 28-character uids like the accounts' instead of u000001 …, \
            so that the profiles without an account lie among the registered users in the name-words index.
            """
    )
    var contactsScatteredUids = false

    @Option(help: "contacts: accounts signed up (accounts:signUp, slow by design) with a profile each.")
    var contactsAccounts = 2_000

    @Option(help: "contacts: concurrent accounts:signUp requests.")
    var contactsSignUpConcurrency = 4

    @Option(help: "contacts: profiles per admin PATCH.")
    var contactsProfilesPerPatch = 5_000

    @Option(help: "contacts: entries of the matchContacts address book (at most 1000, the callable's limit).")
    var contactsBook = 1_000

    @Option(help: "contacts: timed calls of each measurement (sequential, one caller).")
    var contactsCalls = 50

    @Option(help: "contacts: unmeasured warm-up calls before each measurement.")
    var contactsWarmupCalls = 3

    @Option(help: "contacts: searchUsers queries, comma-separated.")
    var contactsQueries = "a,al,ma,jo,smi,maria,jo sm"

    @Option(help: "contacts: the searchUsers query whose pages are all followed and checked.")
    var contactsWalkQuery = "smi"

    @Option(help: "contacts: searchUsers page size.")
    var contactsLimit = 20

    func queries() -> [String] {
        contactsQueries.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
    }

    func validate() throws {
        guard contactsProfiles >= 1, contactsProfiles <= 599_999, contactsAccounts >= 2,
            contactsAccounts <= 99_999, contactsSignUpConcurrency >= 1, contactsProfilesPerPatch >= 1,
            (20...1_000).contains(contactsBook), contactsCalls >= 1, contactsWarmupCalls >= 0,
            (1...50).contains(contactsLimit), !queries().isEmpty
        else {
            throw ValidationError(
                "contacts: --contacts-profiles 1…599999, --contacts-accounts 2…99999, --contacts-book 20…1000, "
                    + "--contacts-limit 1…50, positive counts and at least one query"
            )
        }
    }
}
