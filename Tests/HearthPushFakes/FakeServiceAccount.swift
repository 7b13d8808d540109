import CryptoExtras
import Foundation

/// A Google service-account key made for a test: a fresh 2048-bit RSA key, written as the JSON
/// the Firebase console downloads (`private_key` in PKCS#8 PEM), pointing at a fake token URI.
public struct FakeServiceAccount: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String
    public let tokenURI: String
    /// The key's public half: what the fake verifies the grant's JWT with.
    public let publicKey: _RSA.Signing.PublicKey
    /// The PEM of the private key, as the file holds it.
    public let privateKeyPEM: String

    /// A new key for `projectID` whose `token_uri` is `tokenURI`.
    public init(projectID: String, tokenURI: String) throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.projectID = projectID
        self.clientEmail = "firebase-adminsdk-test@\(projectID).iam.gserviceaccount.com"
        self.privateKeyID = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        self.tokenURI = tokenURI
        self.publicKey = key.publicKey
        self.privateKeyPEM = key.pkcs8PEMRepresentation
    }

    /// The file's JSON, every field Google's key has; `replacing` overrides or (with nil) removes fields.
    public func json(replacing changes: [String: String?] = [:]) -> String {
        var fields: [String: String] = [
            "type": "service_account",
            "project_id": projectID,
            "private_key_id": privateKeyID,
            "private_key": privateKeyPEM + "\n",
            "client_email": clientEmail,
            "client_id": "100000000000000000001",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": tokenURI,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/\(clientEmail)",
            "universe_domain": "googleapis.com",
        ]
        for (key, value) in changes { fields[key] = value }
        let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes the file (`json(replacing:)`) at `path`.
    public func write(to path: String, replacing changes: [String: String?] = [:]) throws {
        try json(replacing: changes).write(toFile: path, atomically: true, encoding: .utf8)
    }
}
