import CZlib

/// Decompresses a gzip stream (RFC 1952) with zlib a piece at a time, so a download can serve an
/// object stored gzip-compressed decompressed (Cloud Storage's decompressive transcoding) without
/// holding it: the compressed bytes are fed a chunk at a time, the decompressed ones taken at
/// most `count` at a time (a chunk may inflate to far more than that: a few KiB of zeros are
/// megabytes). Members written one after another decompress as one stream, as `gunzip` reads
/// them; bytes after the last member that are not another member are corrupt.
///
/// One owner at a time (a download's body, on the storage queue); not for concurrent use.
public final class GzipInflater: @unchecked Sendable {
    /// Why the bytes cannot be decompressed: not gzip, corrupt, or cut short.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var input: [UInt8] = []
    private var consumed = 0
    /// Whether zlib stopped for want of output room last time (it may hold more output).
    private var pending = false
    /// Whether the last member's trailer (CRC-32 and length) was read and checked.
    private var atMemberEnd = false

    /// - Throws: `Failure` when zlib cannot start (out of memory).
    public init() throws(Failure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 16 + 15: a gzip header and trailer around a deflate stream with zlib's largest window.
        let status = hearth_inflateInit2(stream, 16 + MAX_WBITS)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw Failure(description: "zlib could not start inflating (status \(status)).")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether every byte fed has been decompressed and taken: feed the next chunk.
    public var needsInput: Bool { consumed == input.count && !pending }

    /// The next chunk of the compressed bytes; only when `needsInput`.
    public func feed(_ bytes: [UInt8]) {
        precondition(needsInput, "A gzip inflater is fed once it has used what it was given.")
        input = bytes
        consumed = 0
    }

    /// Up to `count` more decompressed bytes of what was fed; empty when it needs more input.
    /// - Throws: `Failure` when the bytes are not gzip or are corrupt (a bad header, block or
    ///   checksum).
    public func read(upTo count: Int) throws(Failure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        var produced = 0
        while produced < count, consumed < input.count || pending {
            if atMemberEnd {
                // Another member follows the one that ended.
                inflateReset(stream)
                atMemberEnd = false
            }
            let status = input.withUnsafeMutableBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_in = source.baseAddress.map { $0 + consumed }
                    stream.pointee.avail_in = UInt32(source.count - consumed)
                    stream.pointee.next_out = target.baseAddress.map { $0 + produced }
                    stream.pointee.avail_out = UInt32(count - produced)
                    let status = inflate(stream, Z_NO_FLUSH)
                    consumed = source.count - Int(stream.pointee.avail_in)
                    produced = count - Int(stream.pointee.avail_out)
                    return status
                }
            }
            pending = status == Z_OK && stream.pointee.avail_out == 0
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                atMemberEnd = true
            case Z_BUF_ERROR:
                // No progress possible: the input is used up (and no output is pending).
                pending = false
                output.removeLast(count - produced)
                return output
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                throw Failure(description: "The gzip bytes are corrupt: \(message).")
            }
        }
        output.removeLast(count - produced)
        return output
    }

    /// Checks the end of the input: the last member ended with its trailer.
    /// - Throws: `Failure` when the stream was cut short (or was empty).
    public func finish() throws(Failure) {
        guard atMemberEnd, consumed == input.count else {
            throw Failure(description: "The gzip bytes end before their stream does (cut short).")
        }
    }
}
