import HearthStorage

/// A listing as Firebase's client API answers it: `{prefixes, items: [{name, bucket}],
/// nextPageToken}`.
struct StorageListingJSON: Encodable {
    struct Item: Encodable {
        let name: String
        let bucket: String
    }

    let prefixes: [String]
    let items: [Item]
    let nextPageToken: String?

    init(_ listing: ObjectListing, bucket: BucketName) {
        prefixes = listing.prefixes
        items = listing.items.map { Item(name: $0.name, bucket: bucket.value) }
        nextPageToken = listing.nextPageToken
    }
}
