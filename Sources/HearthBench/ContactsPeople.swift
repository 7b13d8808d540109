/// The people of the `contacts` scenario, all derived from a serial number (6 digits): a
/// display name from lists of first and last names (several words, mixed case) and a phone
/// number in one of six regions, in E.164 and in the ways people type it into an address book
/// in the US. Serials 1…599999 are the admin-written profiles (`u000001` …), 600000 + k the
/// k-th signed-up account, 900000 + k numbers nobody has.
enum ContactsPeople {
    static let accountSerialBase = 600_000
    static let nobodySerialBase = 900_000

    /// `u000001` …, or with `scattered` a uid like the accounts' (28 random letters and digits),
    /// so that in the name-words index, ordered by (word, uid), the profiles without an account
    /// lie among the registered users instead of after most of them.
    static func profileUID(_ serial: Int, scattered: Bool = false) -> String {
        guard scattered else {
            let digits = String(serial)
            return "u" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        }
        var random = SplitMix64(seed: UInt64(serial) &* 0x9E37_79B9_7F4A_7C15)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<28).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
    }

    static let firstNames = [
        "Alice", "Alex", "Alejandro", "Ana", "Andrea", "Amelia", "Aaron", "Maria", "María José", "Marco", "Matteo",
        "Mary Ann", "Mateo", "Martin", "John", "Jonas", "José", "Joanna", "Johan", "Jordan", "Sofia", "Giulia",
        "Lukas", "Emma", "Olivia", "Liam", "Noah", "Hannah", "Lucas", "Valentina", "Camila", "Santiago", "Chloe",
        "Oliver", "Harry", "George", "Leon", "Felix", "Lena", "Mia", "Ben", "Paul", "Kevin", "Zoë", "Chiara",
        "Francesca", "Lorenzo", "Diego", "Lucía", "Isabella", "Jean-Luc", "Anne-Marie", "Wei", "Priya", "Omar",
    ]

    static let lastNames = [
        "Smith", "Smithson", "Smits", "Johnson", "Jones", "Brown", "Rossi", "Russo", "Bianchi", "Müller", "Schmidt",
        "Schneider", "García", "Martínez", "López", "González", "Rodríguez", "Hernández", "Fernández", "Álvarez",
        "Williams", "Taylor", "Davies", "Evans", "Wilson", "Ferrari", "Esposito", "Romano", "Fischer", "Weber",
        "Meyer", "Wagner", "Becker", "Sánchez", "Pérez", "Gómez", "Díaz", "Torres", "Ramírez", "Flores",
        "de la Cruz", "Mac Allister", "O'Connor", "van der Berg", "Marino", "Greco", "Conti", "Alvarado", "Moreno",
    ]

    /// `First [Middle] Last`, mostly capitalised, sometimes typed all lower or upper case.
    static func displayName(_ serial: Int) -> String {
        var random = SplitMix64(seed: UInt64(serial) &* 0x2545_F491_4F6C_DD1D)
        let first = firstNames[Int(random.next() % UInt64(firstNames.count))]
        let last = lastNames[Int(random.next() % UInt64(lastNames.count))]
        var name = first + " " + last
        if random.next() % 8 == 0 {
            name = first + " " + firstNames[Int(random.next() % UInt64(firstNames.count))] + " " + last
        }
        switch random.next() % 20 {
        case 0: return name.lowercased()
        case 1: return name.uppercased()
        default: return name
        }
    }

    /// The region of a serial's number: US, GB, IT, DE, AR, MX.
    static func region(_ serial: Int) -> Int { serial % 6 }

    private static let areaCodes = ["201", "212", "305", "312", "415", "503", "617", "646", "702", "713"]

    /// The serial as 6 digits.
    private static func six(_ serial: Int) -> String {
        let digits = String(serial)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The number's national significant digits, split into the groups people write.
    private static func groups(_ serial: Int) -> [String] {
        let s = Array(six(serial))
        let (s0, s2, s4) = (String(s[0..<2]), String(s[2..<4]), String(s[4..<6]))
        switch region(serial) {
        case 0: return [areaCodes[(serial / 6) % areaCodes.count], "2" + s0, s2 + s4]  // US
        case 1: return ["7700", s0 + s2 + s4]  // GB mobile
        case 2: return (serial / 6) % 2 == 0 ? ["06", "40" + s0, s2 + s4] : ["333", "0" + s0, s2 + s4]  // IT
        case 3: return ["1512", "0" + s0 + s2 + s4]  // DE mobile
        case 4: return ["9", "11", "40" + s0, s2 + s4]  // AR mobile (the 9 is part of the E.164 number)
        default: return ["55", "50" + s0, s2 + s4]  // MX
        }
    }

    private static let callingCodes = ["1", "44", "39", "49", "54", "52"]

    /// The number in E.164, as profiles store it.
    static func e164(_ serial: Int) -> String {
        "+" + callingCodes[region(serial)] + groups(serial).joined()
    }

    /// The number as someone in the US types it into an address book; `variant` picks one of the
    /// region's common forms (national, dotted, international with + or 011, trunk 0 in brackets…).
    static func typed(_ serial: Int, variant: Int) -> String {
        let g = groups(serial)
        let forms: [String]
        switch region(serial) {
        case 0:
            forms = [
                "(\(g[0])) \(g[1])-\(g[2])", "\(g[0]).\(g[1]).\(g[2])", "+1 \(g[0]) \(g[1]) \(g[2])",
                "1-\(g[0])-\(g[1])-\(g[2])", g.joined(), "+1 (\(g[0])) \(g[1])-\(g[2])",
            ]
        case 1: forms = ["+44 \(g[0]) \(g[1])", "011 44 \(g[0]) \(g[1])", "+44 (0)\(g[0]) \(g[1])", "+44\(g.joined())"]
        case 2: forms = ["+39 \(g.joined(separator: " "))", "011 39 \(g.joined())", "+39 \(g[0]) \(g[1])\(g[2])"]
        case 3: forms = ["+49 \(g[0]) \(g[1])", "011 49 \(g.joined())", "+49 (0)\(g[0]) \(g[1])", "+49-\(g.joined())"]
        case 4: forms = ["+54 9 11 \(g[2])-\(g[3])", "011 54 9 11 \(g[2]) \(g[3])", "+54 9 11 \(g[2])\(g[3])"]
        default:
            // "+52 1 55 …": Mexico's legacy mobile 1, which the normaliser drops as libphonenumber's newer metadata does.
            forms = ["+52 \(g[0]) \(g[1]) \(g[2])", "011 52 \(g.joined())", "+52 1 \(g[0]) \(g[1]) \(g[2])"]
        }
        return forms[variant % forms.count]
    }

    /// Entries no parser takes for a phone number.
    static let unparsable = ["call me", "abc", "+", "12", "+999 123 4567", "1-800-FLOWERS", "—", "n/a"]

    /// `searchUsers`'s splitting of a name or query into words (lower-cased, on anything but
    /// letters, digits and marks, each word once): the reference the answers are checked against.
    static func words(_ text: String) -> [String] {
        var seen = Set<String>()
        var words: [String] = []
        let isSeparator: (Character) -> Bool = { character in
            !character.unicodeScalars.contains { scalar in
                scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                    || scalar.properties.generalCategory == .nonspacingMark
            }
        }
        for word in text.lowercased().split(whereSeparator: isSeparator) where seen.insert(String(word)).inserted {
            words.append(String(word))
        }
        return words
    }

    /// Whether `name` is found by `query`: each query word starts a word of the name.
    static func matches(_ name: String, query: String) -> Bool {
        let nameWords = words(name)
        return words(query).allSatisfy { wanted in nameWords.contains { $0.utf8.starts(with: wanted.utf8) } }
    }
}
