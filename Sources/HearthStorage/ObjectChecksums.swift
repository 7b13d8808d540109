import Crypto
import Foundation

/// What Cloud Storage reports of an object's bytes, counted as they stream: MD5 and CRC-32C
/// (each base64, as Firebase gives them) and the size.
struct ObjectChecksums: Sendable {
    private(set) var md5 = Insecure.MD5()
    private(set) var crc = CRC32C()
    private(set) var size: UInt64 = 0

    init() {}

    init(md5: Insecure.MD5, crc: CRC32C, size: UInt64) {
        self.md5 = md5
        self.crc = crc
        self.size = size
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        md5.update(bufferPointer: bytes)
        crc.update(bytes)
        size += UInt64(bytes.count)
    }

    var md5Base64: String { Data(md5.finalize()).base64EncodedString() }
    var crc32cBase64: String { crc.base64 }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws only `StorageError` (Array's own rethrows `any
    /// Error`).
    func withStorageBytes<T>(_ body: (UnsafeRawBufferPointer) throws(StorageError) -> T) throws(StorageError) -> T {
        let result: Result<T, StorageError> = withUnsafeBytes { raw in
            Result { () throws(StorageError) -> T in try body(raw) }
        }
        return try result.get()
    }
}
