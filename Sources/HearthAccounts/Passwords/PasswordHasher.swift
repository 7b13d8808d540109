import Crypto
import CryptoExtras

/// Hashes and checks passwords with scrypt on a bounded pool of threads.
final class PasswordHasher: Sendable {
    let parameters: ScryptParameters
    private let pool: WorkerPool
    /// A hash of nothing in particular: checked against when an email is unknown, so that a
    /// wrong email costs as much time as a wrong password.
    private let decoy: PasswordHash

    init(parameters: ScryptParameters, threads: Int, maxQueued: Int) {
        self.parameters = parameters
        self.pool = WorkerPool(threads: threads, maxQueued: maxQueued)
        let salt = Secrets.randomBytes(PasswordHash.saltBytes)
        self.decoy = PasswordHash(
            algorithm: PasswordHash.scryptAlgorithm,
            parameters: parameters,
            salt: Base64URL.encode(salt),
            key: Base64URL.encode(Secrets.randomBytes(PasswordHash.keyBytes))
        )
    }

    /// A new salted hash of `password`.
    func hash(_ password: String) async throws(AccountsError) -> PasswordHash {
        let parameters = self.parameters
        let salt = Secrets.randomBytes(PasswordHash.saltBytes)
        let key = try await onPool { try? Self.derive(password, salt: salt, parameters: parameters) }
        guard let key else { throw .storage("scrypt failed with parameters \(parameters)") }
        return PasswordHash(
            algorithm: PasswordHash.scryptAlgorithm,
            parameters: parameters,
            salt: Base64URL.encode(salt),
            key: Base64URL.encode(key)
        )
    }

    /// True when `password` matches `stored` (compared in constant time); with `stored` nil,
    /// spends the same time and answers false.
    func verify(_ password: String, against stored: PasswordHash?) async throws(AccountsError) -> Bool {
        let target = stored ?? decoy
        guard target.algorithm == PasswordHash.scryptAlgorithm,
            let salt = Base64URL.decode(Substring(target.salt)),
            let expected = Base64URL.decode(Substring(target.key))
        else { return false }
        let parameters = target.parameters
        let key = try await onPool { try? Self.derive(password, salt: salt, parameters: parameters) }
        guard let key else { return false }
        return Secrets.constantTimeEqual(key, expected) && stored != nil
    }

    private func onPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(AccountsError) -> T {
        guard let result = await pool.run(body) else {
            throw AccountsError(.tooManyAttempts, "The server is busy hashing passwords; retry in a moment.")
        }
        return result
    }

    /// scrypt(password, salt) with `parameters`, 32 bytes.
    static func derive(_ password: String, salt: [UInt8], parameters: ScryptParameters) throws -> [UInt8] {
        try derive(Array(password.utf8), salt: salt, parameters: parameters, outputByteCount: PasswordHash.keyBytes)
    }

    /// scrypt (RFC 7914) over raw bytes.
    static func derive(
        _ password: [UInt8],
        salt: [UInt8],
        parameters: ScryptParameters,
        outputByteCount: Int
    ) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: password,
            salt: salt,
            outputByteCount: outputByteCount,
            rounds: 1 << parameters.logN,
            blockSize: parameters.blockSize,
            parallelism: parameters.parallelism
        )
        return key.withUnsafeBytes { Array($0) }
    }

    func shutdown() { pool.shutdown() }
}
