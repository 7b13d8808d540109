import HearthFuzzSupport

@testable import HearthServer

/// A REST request's query string (`QueryString`: form decoding; `RESTOptions`: `orderBy`, `startAt`,
/// `limitToFirst`, `shallow`, `timeout`, ... into a `Query` and options). Decoded pairs, encoded again,
/// decode to the same pairs; every refusal is a 400 `RESTError`; a limit is within 0...2^31-1.
enum RESTQueryFuzz {
    static let target = FuzzTarget(name: "rest-query") { input in
        let raw = Substring(input.text)
        let query: QueryString
        do {
            query = try QueryString(raw)
        } catch let error as RESTError {
            require(error.status.code == 400, "query string refused with \(error.status)")
            return
        } catch {
            require(false, "query string refused with \(error), not a RESTError")
            return
        }
        let encoded = query.pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
        let again = try? QueryString(Substring(encoded))
        require(
            again.map { $0.pairs.elementsEqual(query.pairs) { $0 == $1 } } == true,
            "'\(raw)' decoded, encoded as '\(encoded)', decodes otherwise"
        )
        do {
            let options = try RESTOptions.parse(query)
            switch options.query?.limit {
            case .first(let n)?, .last(let n)?: require((0...Int(Int32.max)).contains(n), "limit \(n)")
            case nil: break
            }
        } catch let error as RESTError {
            require(error.status.code == 400, "options refused with \(error.status)")
        } catch {
            require(false, "options refused with \(error), not a RESTError")
        }
    }

    /// Percent-encodes every byte but letters, digits and `-._~`.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
