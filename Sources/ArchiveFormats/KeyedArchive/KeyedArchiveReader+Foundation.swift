import Foundation

/// Foundation value classes read into natural values: NSString, NSData, NSDate, NSURL, NSUUID
/// and the geometry NSValues.
extension KeyedArchiveReader {
    /// The value of an NSString, NSData, NSDate, NSURL or NSUUID entry.
    mutating func foundationValue(
        _ uid: Int, _ entry: ArchiveDictionary, kind: KeyedArchiveClass.Kind, depth: Int
    ) throws -> ArchiveValue {
        switch kind {
        case .string:
            return .string(
                try member("NS.string", of: entry, uid: uid, depth: depth, as: "a string") { $0.stringValue })
        case .data:
            return .data(try member("NS.data", of: entry, uid: uid, depth: depth, as: "data") { $0.dataValue })
        case .date:
            let seconds = try member("NS.time", of: entry, uid: uid, depth: depth, as: "a number of seconds") {
                $0.doubleValue
            }
            guard seconds.isFinite else {
                throw ArchiveError(
                    .malformedInput, "'NS.time' must be a finite number of seconds",
                    path: [.key("$objects"), .index(uid), .key("NS.time")])
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .url:
            return .string(try url(uid, entry, depth: depth))
        case .uuid:
            let bytes = try member("NS.uuidbytes", of: entry, uid: uid, depth: depth, as: "16 bytes") {
                $0.dataValue.flatMap { $0.count == 16 ? $0 : nil }
            }
            return .string(Self.uuidString(bytes))
        default:
            throw ArchiveError(
                .malformedInput, "internal: not a Foundation value", path: [.key("$objects"), .index(uid)])
        }
    }

    /// A required member of a Foundation value, stored inline or behind a UID, converted by
    /// `convert`.
    private mutating func member<T>(
        _ key: String, of entry: ArchiveDictionary, uid: Int, depth: Int, as description: String,
        _ convert: (ArchiveValue) -> T?
    ) throws -> T {
        let site = Site(entry: uid, key: key)
        guard let stored = entry[key] else {
            throw ArchiveError(.malformedInput, "the object has no '\(key)'", path: [.key("$objects"), .index(uid)])
        }
        let resolved = try value(stored, at: site, depth: depth + 1)
        guard let converted = convert(resolved) else {
            throw ArchiveError(
                .malformedInput, "'\(key)' must be \(description), not a \(resolved.kind)", path: site.path)
        }
        return converted
    }

    /// An NSURL: `NS.relative` resolved against `NS.base` (itself an NSURL, or none).
    private mutating func url(_ uid: Int, _ entry: ArchiveDictionary, depth: Int) throws -> String {
        let relative = try member("NS.relative", of: entry, uid: uid, depth: depth, as: "a string") { $0.stringValue }
        var base: String?
        if let stored = entry["NS.base"] {
            let resolved = try value(stored, at: Site(entry: uid, key: "NS.base"), depth: depth + 1)
            switch resolved {
            case .null: base = nil
            case .string(let text): base = text
            default:
                throw ArchiveError(
                    .malformedInput, "'NS.base' must be an NSURL, not a \(resolved.kind)",
                    path: [.key("$objects"), .index(uid), .key("NS.base")])
            }
        }
        guard let absolute = Self.absoluteURL(relative, base: base) else {
            throw ArchiveError(
                .malformedInput,
                "the NSURL '\(relative.prefix(80))' cannot be resolved against '\(base?.prefix(80) ?? "")'",
                path: [.key("$objects"), .index(uid)])
        }
        guard absolute.utf8.count <= limits.maxStringLength else {
            throw ArchiveError.limitExceeded(
                .stringLength, "an NSURL is longer than the limit of \(limits.maxStringLength) bytes",
                path: [.key("$objects"), .index(uid)])
        }
        return absolute
    }

    /// `relative` resolved against `base` (RFC 3986, as NSURL resolves it); `relative` itself
    /// when there is no base.
    static func absoluteURL(_ relative: String, base: String?) -> String? {
        guard let base else { return relative }
        guard let baseURL = URL(string: base), let url = URL(string: relative, relativeTo: baseURL) else {
            return nil
        }
        return url.absoluteString
    }

    /// `8-4-4-4-12` uppercase hexadecimal, as `NSUUID.uuidString`.
    static func uuidString(_ bytes: Data) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Geometry

    /// An NSValue holding a range (`NS.special` 4), point (1), size (2), rectangle (3) or edge
    /// insets (12) as a dictionary; `nil` for any other NSValue (which stays an object).
    func geometry(_ uid: Int, _ entry: ArchiveDictionary) -> ArchiveValue? {
        func number(_ key: String) -> ArchiveValue? {
            guard let stored = entry[key] else { return nil }
            return try? scalar(stored, at: Site(entry: uid, key: key))
        }
        func text(_ key: String) -> String? {
            number(key)?.stringValue
        }
        guard let special = number("NS.special")?.int64Value else { return nil }
        switch special {
        case 4:
            guard let location = number("NS.rangeval.location")?.uint64Value,
                let length = number("NS.rangeval.length")?.uint64Value
            else { return nil }
            return ["location": ArchiveValue(location), "length": ArchiveValue(length)]
        case 1:
            guard let values = text("NS.pointval").flatMap({ Self.geometryNumbers($0, pairs: 1) }) else { return nil }
            return ["x": .double(values[0]), "y": .double(values[1])]
        case 2:
            guard let values = text("NS.sizeval").flatMap({ Self.geometryNumbers($0, pairs: 1) }) else { return nil }
            return ["width": .double(values[0]), "height": .double(values[1])]
        case 3:
            guard let values = text("NS.rectval").flatMap({ Self.geometryNumbers($0, pairs: 2) }) else { return nil }
            return [
                "x": .double(values[0]), "y": .double(values[1]), "width": .double(values[2]),
                "height": .double(values[3]),
            ]
        case 12:
            guard let top = number("NS.edgeval.top")?.doubleValue, let left = number("NS.edgeval.left")?.doubleValue,
                let bottom = number("NS.edgeval.bottom")?.doubleValue,
                let right = number("NS.edgeval.right")?.doubleValue
            else { return nil }
            return ["top": .double(top), "left": .double(left), "bottom": .double(bottom), "right": .double(right)]
        default:
            return nil
        }
    }

    /// The numbers of `{a, b}` (one pair) or `{{a, b}, {c, d}}` (two pairs), as
    /// `NSStringFromPoint`, `NSStringFromSize` and `NSStringFromRect` write them; `nil` for
    /// anything else.
    static func geometryNumbers(_ text: String, pairs: Int) -> [Double]? {
        let bytes = Array(text.utf8.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A })
        guard bytes.count <= 256 else { return nil }
        var index = 0
        var numbers: [Double] = []
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func readNumber() -> Bool {
            let start = index
            while index < bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) || bytes[index] == UInt8(ascii: ".")
                    || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")
                    || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
            {
                index += 1
            }
            guard index > start, let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)),
                number.isFinite
            else { return false }
            numbers.append(number)
            return true
        }
        func readPair() -> Bool {
            expect(UInt8(ascii: "{")) && readNumber() && expect(UInt8(ascii: ",")) && readNumber()
                && expect(UInt8(ascii: "}"))
        }
        let valid: Bool
        if pairs == 1 {
            valid = readPair()
        } else {
            valid =
                expect(UInt8(ascii: "{")) && readPair() && expect(UInt8(ascii: ",")) && readPair()
                && expect(UInt8(ascii: "}"))
        }
        return valid && index == bytes.count ? numbers : nil
    }
}
