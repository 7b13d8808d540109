/// What `accounts:update` (or an admin) asks to change; nil leaves a field alone.
public struct AccountChanges: Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    /// `deleteAttribute`: `DISPLAY_NAME`, `PHOTO_URL`, `EMAIL`, `PASSWORD`.
    public var deleteAttributes: Set<String> = []
    /// Admin only (`disableUser`).
    public var disabled: Bool?
    /// Admin only.
    public var emailVerified: Bool?
    /// Admin only: custom claims as a JSON object's text (`customAttributes`); `{}` removes them.
    public var customAttributes: String?

    public init(
        email: String? = nil,
        password: String? = nil,
        displayName: String? = nil,
        photoUrl: String? = nil,
        deleteAttributes: Set<String> = [],
        disabled: Bool? = nil,
        emailVerified: Bool? = nil,
        customAttributes: String? = nil
    ) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.deleteAttributes = deleteAttributes
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customAttributes = customAttributes
    }

    static let knownAttributes: Set<String> = ["DISPLAY_NAME", "PHOTO_URL", "EMAIL", "PASSWORD"]
}
