import CryptoExtras
public import Foundation

/// A Google service-account key (`hearth serve --push-fcm FILE`, the JSON the Firebase console's
/// "Generate new private key" downloads): what FCM's OAuth2 grant needs of it, checked.
public struct FCMServiceAccount: Sendable {
    /// The Firebase project pushes are sent for (`project_id`).
    public let projectID: String
    /// The key's id (`private_key_id`), the JWT's `kid`.
    public let privateKeyID: String
    /// The service account (`client_email`), the JWT's `iss`.
    public let clientEmail: String
    /// Where the grant is POSTed (`token_uri`), the JWT's `aud`.
    public let tokenURI: URL
    /// The RSA key the grant's JWT is signed with (`private_key`).
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads and checks the file at `path`.
    /// - Throws: `PushError` naming the file and what is missing or wrong in it.
    public static func load(path: String) throws -> FCMServiceAccount {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PushError(
                .unreadableServiceAccount,
                "Cannot read the FCM service account file '\(path)': \(error.localizedDescription). "
                    + "Pass the path of the JSON key downloaded from the Firebase console "
                    + "(Project settings, Service accounts, Generate new private key)."
            )
        }
        return try FCMServiceAccount(json: bytes, source: path)
    }

    /// Parses and checks a service-account key's JSON; `source` names it in errors.
    /// - Throws: `PushError` naming the missing or invalid field.
    public init(json: Data, source: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw Self.invalid(source, "is not a JSON object")
        }
        func field(_ name: String) throws -> String {
            guard let value = object[name] else { throw Self.invalid(source, "has no '\(name)'") }
            guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Self.invalid(source, "has a '\(name)' that is not a non-empty string")
            }
            return text
        }
        let type = try field("type")
        guard type == "service_account" else {
            throw Self.invalid(source, "has 'type' '\(type)', not 'service_account' (is it a service account key?)")
        }
        projectID = try field("project_id")
        privateKeyID = try field("private_key_id")
        clientEmail = try field("client_email")
        guard clientEmail.contains("@") else {
            throw Self.invalid(source, "has a 'client_email' '\(clientEmail)' that is not an email address")
        }
        let uri = try field("token_uri")
        do {
            tokenURI = try PushEndpoint.check(uri, what: "'token_uri' of '\(source)'")
        } catch let error as PushError {
            throw PushError(.invalidServiceAccount, error.message)
        }
        let pem = try field("private_key")
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw Self.invalid(source, "has a 'private_key' that is not a PKCS#8 PEM ('-----BEGIN PRIVATE KEY-----')")
        }
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw Self.invalid(source, "has a 'private_key' that is not an RSA key of at least 2048 bits")
        }
    }

    private static func invalid(_ source: String, _ problem: String) -> PushError {
        PushError(
            .invalidServiceAccount,
            "The FCM service account file '\(source)' \(problem): pass the JSON key downloaded from the "
                + "Firebase console (Project settings, Service accounts, Generate new private key), unedited."
        )
    }
}
