import Foundation

/// Writes an archive tree as an XML property list in Apple's layout.
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
/// <plist version="1.0">
/// <dict>
///     <key>created</key>
///     <date>2026-11-30T05:14:25Z</date>
/// </dict>
/// </plist>
/// ```
///
/// Pretty-printed output indents with tabs and wraps base64 lines as Apple does; compact output
/// puts the body on one line. Text escapes `&`, `<`, `>` (and carriage returns, as `&#13;`, so
/// that XML line-end normalisation cannot change them). Integers are exact; reals use the
/// shortest decimal that reads back to the same double (`nan`, `+infinity`, `-infinity` for the
/// others); dates are whole seconds when exact, otherwise carry the shortest exact fraction
/// (Foundation's XML reader rejects fractions; Apple's own writer drops them); data is base64;
/// references are `<dict><key>CF$UID</key><integer>n</integer></dict>`. Markup follows
/// ``PropertyListWriterMarkup``. As in Apple's format, a dictionary whose only entry is
/// `CF$UID` with an integer reads back as a reference.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` (`ArchiveValue.null`
///   in plain mode, which XML cannot hold; a reference outside 0…4294967295; a date outside the
///   years 0 to 9999) or `ArchiveError.Code.limitExceeded` (nesting deeper than
///   `ArchiveLimits.maxDepth`), with the path of the value.
enum XMLPropertyListWriter {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        var emitter = Emitter(
            markup: PropertyListWriterMarkup(mode: options.markup, root: value), isPretty: options.prettyPrinted,
            maxDepth: options.limits.maxDepth)
        emitter.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """)
        try emitter.value(value, depth: 0)
        if !options.prettyPrinted { emitter.append("\n") }
        emitter.append("</plist>\n")
        return Data(emitter.output)
    }

    /// Appends the elements of a tree to a byte buffer.
    private struct Emitter {
        let markup: PropertyListWriterMarkup
        let isPretty: Bool
        let maxDepth: Int
        var output: [UInt8] = []

        init(markup: PropertyListWriterMarkup, isPretty: Bool, maxDepth: Int) {
            self.markup = markup
            self.isPretty = isPretty
            self.maxDepth = maxDepth
            output.reserveCapacity(4096)
        }

        mutating func append(_ text: String) {
            output.append(contentsOf: text.utf8)
        }

        /// Writes `value` as an element at nesting `depth` (also its indentation).
        mutating func value(_ value: ArchiveValue, depth: Int) throws {
            switch value {
            case .null:
                guard markup.isArchive else {
                    throw ArchiveError(
                        .invalidValue, "an XML property list cannot hold null (write with archive markup)")
                }
                try entries(PropertyListWriterMarkup.nullEntries, depth: depth)
            case .bool(let flag):
                line(flag ? "<true/>" : "<false/>", depth: depth)
            case .int(let number):
                line("<integer>\(number)</integer>", depth: depth)
            case .uint(let number):
                line("<integer>\(number)</integer>", depth: depth)
            case .double(let number):
                line("<real>\(Self.spelling(of: number))</real>", depth: depth)
            case .string(let text):
                indent(depth)
                append("<string>")
                try escape(text)
                append("</string>")
                newline()
            case .date(let date):
                guard let text = PropertyListDate.xmlString(from: date) else {
                    throw PropertyListWriterMarkup.dateError(date)
                }
                line("<date>\(text)</date>", depth: depth)
            case .data(let bytes):
                data(bytes, depth: depth)
            case .reference(let id):
                guard id.rawValue >= 0, id.rawValue <= Int(UInt32.max) else {
                    throw PropertyListWriterMarkup.referenceError(id)
                }
                line("<dict>", depth: depth)
                line("<key>CF$UID</key>", depth: depth + 1)
                line("<integer>\(id.rawValue)</integer>", depth: depth + 1)
                line("</dict>", depth: depth)
            case .array(let elements):
                guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
                if elements.isEmpty {
                    line("<array/>", depth: depth)
                    return
                }
                line("<array>", depth: depth)
                for (position, element) in elements.enumerated() {
                    do {
                        try self.value(element, depth: depth + 1)
                    } catch let error as ArchiveError {
                        throw error.prefixingPath([.index(position)])
                    }
                }
                line("</array>", depth: depth)
            case .dictionary(let dictionary):
                guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
                if dictionary.isEmpty {
                    line("<dict/>", depth: depth)
                    return
                }
                line("<dict>", depth: depth)
                for (key, element) in dictionary {
                    do {
                        try self.key(markup.key(key, isTopLevel: depth == 0), depth: depth + 1)
                        try self.value(element, depth: depth + 1)
                    } catch let error as ArchiveError {
                        throw error.prefixingPath([.key(key)])
                    }
                }
                line("</dict>", depth: depth)
            case .object(let object):
                do {
                    try entries(try markup.entries(of: object), depth: depth)
                } catch let error as ArchiveError {
                    throw error.adding(typeName: object.typeName, archivedVersion: object.version)
                }
            }
        }

        /// Writes a dictionary whose keys are final.
        private mutating func entries(_ entries: [ArchiveDictionary.Element], depth: Int) throws {
            guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
            if entries.isEmpty {
                line("<dict/>", depth: depth)
                return
            }
            line("<dict>", depth: depth)
            for (key, element) in entries {
                do {
                    try self.key(key, depth: depth + 1)
                    try value(element, depth: depth + 1)
                } catch let error as ArchiveError {
                    throw error.prefixingPath([.key(key)])
                }
            }
            line("</dict>", depth: depth)
        }

        private mutating func key(_ key: String, depth: Int) throws {
            indent(depth)
            append("<key>")
            try escape(key)
            append("</key>")
            newline()
        }

        /// Base64 in lines of at most 76 columns counting a tab as 8 (at least 16), as Apple and
        /// Python's plistlib write it.
        private mutating func data(_ bytes: Data, depth: Int) {
            let encoded = bytes.base64EncodedString()
            guard isPretty else {
                append("<data>\(encoded)</data>")
                return
            }
            line("<data>", depth: depth)
            let lineLength = max(16, 76 - 8 * depth) / 4 * 4
            var utf8 = encoded.utf8[...]
            while !utf8.isEmpty {
                indent(depth)
                output.append(contentsOf: utf8.prefix(lineLength))
                newline()
                utf8 = utf8.dropFirst(lineLength)
            }
            line("</data>", depth: depth)
        }

        private mutating func line(_ text: String, depth: Int) {
            indent(depth)
            append(text)
            newline()
        }

        @inline(__always)
        private mutating func indent(_ depth: Int) {
            guard isPretty else { return }
            for _ in 0..<depth { output.append(0x09) }
        }

        @inline(__always)
        private mutating func newline() {
            if isPretty { output.append(0x0A) }
        }

        /// Appends `text` with `&`, `<`, `>` and carriage returns escaped.
        ///
        /// - Throws: `ArchiveError.Code.invalidValue` for a character XML 1.0 cannot hold at all,
        ///   not even as a character reference (a control character other than tab, line feed
        ///   and carriage return; U+FFFE, U+FFFF): Apple's and Python's readers reject them.
        private mutating func escape(_ text: String) throws {
            let utf8 = text.utf8
            guard utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0xEF }) else {
                output.append(contentsOf: utf8)
                return
            }
            if let forbidden = text.unicodeScalars.first(where: Self.isForbiddenInXML) {
                throw ArchiveError(
                    .invalidValue,
                    "the text contains U+\(String(forbidden.value, radix: 16, uppercase: true).leftPadded(to: 4)), "
                        + "which an XML property list cannot hold; write a binary property list instead")
            }
            for byte in utf8 {
                switch byte {
                case 0x26: append("&amp;")
                case 0x3C: append("&lt;")
                case 0x3E: append("&gt;")
                case 0x0D: append("&#13;")
                default: output.append(byte)
                }
            }
        }

        /// Whether XML 1.0 forbids `scalar` in a document, even as a character reference.
        static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: return false
            case 0x00..<0x20, 0xFFFE, 0xFFFF: return true
            default: return false
            }
        }

        /// The shortest decimal that reads back to `number`; `nan`, `+infinity`, `-infinity`.
        static func spelling(of number: Double) -> String {
            if number.isNaN { return "nan" }
            if number.isInfinite { return number < 0 ? "-infinity" : "+infinity" }
            return number.description
        }
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
