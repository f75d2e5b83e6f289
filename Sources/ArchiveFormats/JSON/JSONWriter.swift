import Foundation

/// Writes an `ArchiveValue` tree as JSON text, deterministically: keys in tree order, numbers
/// in one canonical spelling, the same bytes for the same tree every time.
///
/// ```swift
/// let data = try JSONWriter.write(["x": 1.5, "tags": ["a"]], options: .init(prettyPrinted: false))
/// // {"x":1.5,"tags":["a"]}
/// ```
///
/// * Pretty-printed: two-space indentation, `"key": value`, one element per line, empty
///   containers as `[]` and `{}`, a final line break. Compact: no whitespace at all.
/// * Integers exactly; doubles in their shortest spelling that reads back to the same bits
///   (Swift's `description`), with `.0` added when that spelling would read as an integer;
///   `-0.0` stays `-0.0`.
/// * Strings escape `"`, `\` and control characters only (`\b \f \n \r \t`, else `\u00XX`);
///   `/` and non-ASCII characters are written as they are, in UTF-8.
/// * ``MarkupMode/archive`` (and ``MarkupMode/automatic``): objects, references, dates, data
///   and non-finite doubles use the markup of ``ArchiveMarkup``, keys starting with `$` are
///   escaped (except `$archive` in the top-level dictionary), so the text reads back to an equal
///   tree. ``MarkupMode/plain``: objects are dictionaries with their `$type`, `$version`, `$id`
///   and `$classes` keys, references `{"$ref": n}`, dates and data spelled as
///   `ArchiveWritingOptions.conventions` say (ISO 8601 strings, exact or with three fraction
///   digits, and base64 strings by default), keys as they are; with
///   `ArchiveWritingOptions.plainEnvelope` the tree is written in a plain envelope instead
///   (``ArchiveMarkup/plainEnvelope(around:)``) when it holds a value plain JSON has no type for,
///   or always.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` for a value the
///   chosen markup cannot spell (a non-finite double or a date outside the years 1–9999 in
///   plain mode, a non-finite date, a negative identity or version, an object without a type
///   name), and `ArchiveError.Code.limitExceeded` (`ArchiveLimits.Limit.depth`) when the
///   tree nests deeper than `ArchiveLimits.maxDepth` (tagged values such as `{"$date": …}`
///   count as a level, as they do when the text is read back); `ArchiveError.Code.invalidValue`
///   also when the text outgrows the memory the system will give.
@_spi(Coders) public enum JSONWriter: Sendable {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        if options.markup == .plain, options.plainEnvelope != .never,
            options.plainEnvelope == .always || ArchiveMarkup.firstValuePlainJSONCannotHold(in: value) != nil
        {
            var archive = options
            archive.markup = .archive
            archive.plainEnvelope = .never
            do {
                return try write(ArchiveMarkup.plainEnvelope(around: value), options: archive)
            } catch var error as ArchiveError {
                // Paths in the document, as the reader will give it back: without `root.`.
                if error.path.components.first == .key(ArchiveEnvelope.rootKey) {
                    error.path.components.removeFirst()
                }
                throw error
            }
        }
        var emitter = Emitter(options: options)
        try emitter.writeDocument(value)
        if options.prettyPrinted {
            emitter.output.append(UInt8(ascii: "\n"))
        }
        if emitter.output.allocationFailed {
            throw ArchiveError(.invalidValue, "the JSON text is larger than the memory the system would give")
        }
        return emitter.output.takeData()
    }
}

extension JSONWriter {
    /// The output buffer and a walk over the tree with an explicit stack of open containers,
    /// so that writing costs no call stack per level (deep trees are safe on small threads).
    ///
    /// ``DirectJSONEncoder`` writes through the same emitter, value by value, so both
    /// produce the same bytes: it opens its own containers and sets ``baseLevel`` to their count.
    ///
    /// Public as SPI, with its smallest members `@inlinable`, so that the writers in
    /// ModelVersioning inline them (see ``ByteBuffer``).
    @_spi(Coders) public struct Emitter: ~Copyable {
        /// An open array, dictionary or object.
        enum Container {
            case array([ArchiveValue])
            case dictionary(ArchiveDictionary, isTopLevel: Bool)
            /// An object: its metadata keys (see ``ArchiveMarkup/entries(of:)``), written when it
            /// opens, are the first `metadataCount` children, then its fields.
            case object(ArchiveObject, metadataCount: Int)
        }

        struct Frame {
            var container: Container
            /// The index of the next child to write.
            var next: Int
            var count: Int
        }

        @usableFromInline package var output: ByteBuffer
        @usableFromInline package internal(set) var pretty: Bool
        let markup: Bool
        /// How plain mode spells dates and data.
        let conventions: DocumentConventions
        let maxDepth: Int
        var frames = MoveStack<Frame>(initialCapacity: 16)
        /// Containers open around the value being written that someone else writes
        /// (``DirectJSONEncoder``): they count for the indentation and depth limit of tagged
        /// values and objects. Always 0 for ``writeDocument(_:)``.
        package var baseLevel = 0

        /// An emitter whose buffer starts with room for `capacity` bytes.
        package init(options: ArchiveWritingOptions, capacity: Int = 1 << 14) {
            output = ByteBuffer(capacity: capacity)
            pretty = options.prettyPrinted
            markup = options.markup != .plain
            conventions = options.conventions
            maxDepth = options.limits.maxDepth
        }

        /// Ready to write another document, pretty-printed or not, in the memory it has.
        package mutating func restart(prettyPrinted: Bool) {
            output.removeAll()
            frames.removeAll()
            baseLevel = 0
            pretty = prettyPrinted
        }

        mutating func writeDocument(_ root: ArchiveValue) throws {
            try write(root, isTopLevel: true)
            // Each turn resumes the innermost open container and writes its children until one
            // opens a container of its own (a push: the next turn resumes that one) or none is
            // left (the container closes). The container is bound once per turn, not once per
            // child, so a run of scalars costs no reference count per value.
            resume: while frames.count > 0 {
                let depth = frames.count
                // Valid until the next push or pop: a turn leaves as soon as `write` pushes.
                let frame = frames.lastAddress
                let count = frame.pointee.count
                var index = frame.pointee.next
                let isArray: Bool
                switch frame.pointee.container {
                case .array(let elements):
                    isArray = true
                    while index < count {
                        beginChild(index, of: frame, depth: depth)
                        try write(elements[index], isTopLevel: false)
                        index &+= 1
                        if frames.count > depth { continue resume }
                    }
                case .dictionary(let entries, let isTopLevel):
                    isArray = false
                    while index < count {
                        beginChild(index, of: frame, depth: depth)
                        let key = entries[index].key
                        // Archive markup escapes a leading `$` (``ArchiveMarkup/escape(_:)``),
                        // except in the envelope marker of the top-level dictionary.
                        writeKey(key, escapingReserved: markup && !(isTopLevel && key == ArchiveMarkup.archiveKey))
                        try write(entries[index].value, isTopLevel: false)
                        index &+= 1
                        if frames.count > depth { continue resume }
                    }
                case .object(let object, let metadataCount):
                    isArray = false
                    while index < count {
                        beginChild(index, of: frame, depth: depth)
                        // Archive markup escapes a leading `$` of a field name; plain writes it
                        // as it is.
                        let field = index &- metadataCount
                        writeKey(object.fields[field].key, escapingReserved: markup)
                        try write(object.fields.value(at: field), isTopLevel: false)
                        index &+= 1
                        if frames.count > depth { continue resume }
                    }
                }
                _ = frames.removeLast()
                newline(frames.count)
                output.append(isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
            }
        }

        /// Starts the child at `index` of the container `frame`, at nesting `depth`: records it
        /// as the one being written (error paths name it), then the separator and indentation.
        @inline(__always)
        private mutating func beginChild(_ index: Int, of frame: UnsafeMutablePointer<Frame>, depth: Int) {
            frame.pointee.next = index &+ 1
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth)
        }

        /// Writes a scalar or a tagged value, or opens a container (pushing a frame).
        package mutating func write(_ value: ArchiveValue, isTopLevel: Bool) throws {
            switch value {
            case .null:
                appendASCII("null")
            case .bool(let flag):
                appendASCII(flag ? "true" : "false")
            case .int(let number):
                writeInteger(number)
            case .uint(let number):
                writeInteger(number)
            case .double(let number):
                try writeDouble(number)
            case .string(let text):
                writeString(text)
            case .data(let bytes):
                try writeData(bytes)
            case .date(let date):
                try writeDate(date)
            case .array(let elements):
                try checkDepth()
                guard !elements.isEmpty else {
                    appendASCII("[]")
                    return
                }
                output.append(UInt8(ascii: "["))
                frames.append(Frame(container: .array(elements), next: 0, count: elements.count))
            case .dictionary(let entries):
                try checkDepth()
                guard !entries.isEmpty else {
                    appendASCII("{}")
                    return
                }
                output.append(UInt8(ascii: "{"))
                frames.append(
                    Frame(container: .dictionary(entries, isTopLevel: isTopLevel), next: 0, count: entries.count))
            case .object(let object):
                try checkDepth()
                if markup {
                    try checkMetadata(of: object)
                }
                output.append(UInt8(ascii: "{"))
                let metadataCount =
                    1 + (object.version == nil ? 0 : 1) + (object.id == nil ? 0 : 1)
                    + (object.superclassNames.isEmpty ? 0 : 1)
                frames.append(
                    Frame(
                        container: .object(object, metadataCount: metadataCount), next: metadataCount,
                        count: metadataCount &+ object.fields.count))
                writeMetadata(of: object)
            case .reference(let id):
                guard id.rawValue >= 0 else {
                    throw invalid("a reference to a negative identity (\(id)) cannot be written")
                }
                try openTagged(ArchiveMarkup.referenceKey)
                writeInteger(Int64(id.rawValue))
                closeTagged()
            }
        }

        /// Writes the metadata keys of the object just opened, as ``writeDocument(_:)`` writes
        /// children (the same keys and order as ``ArchiveMarkup/entries(of:)``).
        private mutating func writeMetadata(of object: ArchiveObject) {
            let level = frames.count &+ baseLevel
            writeTypeAndVersion(typeName: object.typeName, version: object.version, level: level)
            if let id = object.id {
                output.append(UInt8(ascii: ","))
                newline(level)
                writeKey(ArchiveMarkup.idKey)
                writeInteger(Int64(id.rawValue))
            }
            if !object.superclassNames.isEmpty {
                output.append(UInt8(ascii: ","))
                newline(level)
                writeKey(ArchiveMarkup.classesKey)
                output.append(UInt8(ascii: "["))
                for (index, name) in object.superclassNames.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    newline(level &+ 1)
                    writeString(name)
                }
                newline(level)
                output.append(UInt8(ascii: "]"))
            }
        }

        /// What ``writeTypeAndVersion(typeName:version:level:)`` writes without pretty-printing
        /// (`"$type":"Shape","$version":4`), for a writer that stamps many objects of one type
        /// (``writeTypeAndVersion(_:typeName:version:level:)``).
        package static func compactTypeAndVersion(typeName: String, version: Int?) -> [UInt8] {
            var emitter = Emitter(
                options: ArchiveWritingOptions(prettyPrinted: false), capacity: typeName.utf8.count + 40)
            emitter.writeTypeAndVersion(typeName: typeName, version: version, level: 0)
            return Array(emitter.output.takeData())
        }

        /// Writes what ``writeTypeAndVersion(typeName:version:level:)`` writes; without
        /// pretty-printing by copying `compact`, which ``compactTypeAndVersion(typeName:version:)``
        /// made for the same name and version.
        @inlinable
        package mutating func writeTypeAndVersion(_ compact: [UInt8], typeName: String, version: Int?, level: Int) {
            if pretty {
                writeTypeAndVersion(typeName: typeName, version: version, level: level)
            } else {
                compact.withUnsafeBufferPointer { output.append($0) }
            }
        }

        /// Writes the `$type` and `$version` keys of an object just opened, at `level`.
        @usableFromInline
        package mutating func writeTypeAndVersion(typeName: String, version: Int?, level: Int) {
            newline(level)
            writeKey(ArchiveMarkup.typeKey)
            writeString(typeName)
            if let version {
                output.append(UInt8(ascii: ","))
                newline(level)
                writeKey(ArchiveMarkup.versionKey)
                writeInteger(Int64(version))
            }
        }

        private func checkMetadata(of object: ArchiveObject) throws {
            guard !object.typeName.isEmpty else {
                throw invalid("an object without a type name cannot be written")
            }
            if let version = object.version, version < 0 {
                throw invalid("the negative version \(version) of '\(object.typeName)' cannot be written")
            }
            if let id = object.id, id.rawValue < 0 {
                throw invalid("the negative identity \(id) of '\(object.typeName)' cannot be written")
            }
        }

        // MARK: Errors

        /// The path of the value being written: the slot of each open container's current child.
        private func currentPath() -> ArchivePath {
            var components: [ArchivePath.Component] = []
            components.reserveCapacity(frames.count)
            frames.withElements(from: 0) { frames in
                for frame in frames {
                    appendSlot(of: frame, to: &components)
                }
            }
            return ArchivePath(components)
        }

        private func appendSlot(of frame: Frame, to components: inout [ArchivePath.Component]) {
            let index = frame.next &- 1
            switch frame.container {
            case .array:
                components.append(.index(index))
            case .dictionary(let entries, _):
                components.append(.key(entries[index].key))
            case .object(let object, let metadataCount):
                if index >= metadataCount {
                    components.append(.key(object.fields[index &- metadataCount].key))
                } else {
                    components.append(.key(ArchiveMarkup.entries(of: object)[index].key))
                }
            }
        }

        private func invalid(_ message: String) -> ArchiveError {
            ArchiveError(.invalidValue, message, path: currentPath())
        }

        /// Checks that one more level (a container about to open) stays within ``maxDepth``.
        private func checkDepth() throws {
            if frames.count &+ baseLevel >= maxDepth {
                throw ArchiveError.limitExceeded(
                    .depth, "the tree nests deeper than \(maxDepth) levels", path: currentPath())
            }
        }

        // MARK: Layout

        /// Writes `{"tag":` (pretty: over two lines) for a value spelled as a one-key object.
        private mutating func openTagged(_ tag: String) throws {
            try checkDepth()
            output.append(UInt8(ascii: "{"))
            newline(frames.count &+ baseLevel &+ 1)
            writeKey(tag)
        }

        private mutating func closeTagged() {
            newline(frames.count &+ baseLevel)
            output.append(UInt8(ascii: "}"))
        }

        @inlinable @inline(__always)
        package mutating func newline(_ level: Int) {
            guard pretty else { return }
            output.append(UInt8(ascii: "\n"))
            output.append(repeating: 0x20, count: level &* 2)
        }

        /// Writes `"key":`; with `escapingReserved`, a key starting with `$` gets one more `$`.
        @inline(__always)
        package mutating func writeKey(_ key: String, escapingReserved: Bool = false) {
            appendQuoted(key, escapingReserved: escapingReserved)
            output.append(UInt8(ascii: ":"))
            if pretty { output.append(0x20) }
        }

        /// ``writeKey(_:escapingReserved:)`` for the key whose UTF-8 is `utf8` (valid UTF-8).
        @inline(__always)
        package mutating func writeKey(utf8: UnsafeBufferPointer<UInt8>, escapingReserved: Bool) {
            appendQuoted(utf8, escapingReserved: escapingReserved)
            output.append(UInt8(ascii: ":"))
            if pretty { output.append(0x20) }
        }

        /// What ``writeKey(_:escapingReserved:)`` writes for `key` without pretty-printing (the
        /// quoted, escaped key and the colon), for a writer that writes the same key many times
        /// (``writeEncodedKey(_:)``).
        package static func encodedKey(_ key: String, escapingReserved: Bool) -> [UInt8] {
            var emitter = Emitter(options: ArchiveWritingOptions(prettyPrinted: false), capacity: key.utf8.count + 8)
            emitter.writeKey(key, escapingReserved: escapingReserved)
            return Array(emitter.output.takeData())
        }

        /// Writes a key ``encodedKey(_:escapingReserved:)`` encoded, as
        /// ``writeKey(_:escapingReserved:)`` writes it: one copy instead of a check of every byte.
        @inlinable @inline(__always)
        package mutating func writeEncodedKey(_ encoded: UnsafeBufferPointer<UInt8>) {
            output.append(encoded)
            if pretty { output.append(0x20) }
        }

        // MARK: Scalars

        @inline(__always)
        private mutating func appendASCII(_ text: StaticString) {
            output.append(text)
        }

        package mutating func writeDouble(_ number: Double) throws {
            if writeShortDecimal(number) { return }
            if number.isFinite {
                var text = number.description
                text.withUTF8 { digits in
                    output.append(digits)
                    // `description` already spells every double with '.' or an exponent; keep
                    // that guarantee here so an integral double never reads back as an integer.
                    if !digits.contains(where: {
                        $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
                    }) {
                        output.append(UInt8(ascii: "."))
                        output.append(UInt8(ascii: "0"))
                    }
                }
                return
            }
            guard markup else {
                throw invalid("\(number) cannot be written as plain JSON (JSON has no NaN or infinity)")
            }
            try openTagged(ArchiveMarkup.doubleKey)
            writeString(number.isNaN ? "nan" : number < 0 ? "-inf" : "inf")
            closeTagged()
        }

        /// Writes `number` when its shortest spelling has at most 15 significant digits and no
        /// exponent (most doubles in archives: 1.5, 0.25, 1234.125), exactly as `description`
        /// would, without building a string; returns `false` for every other double.
        ///
        /// For the fewest fraction digits `k` such that `m / 10^k` (with `m` the nearest
        /// integer to `number × 10^k`) reads back as `number`, `m / 10^k` is the shortest
        /// spelling. With `m < 10^15` the product is within 0.22 of `m`, so rounding finds it, and
        /// no other decimal with `k` fraction digits reads back as `number` (they are more than
        /// four units in the last place apart), so it is the one `description` picks too.
        @inline(__always)
        private mutating func writeShortDecimal(_ number: Double) -> Bool {
            let magnitude = number.magnitude
            // `description` switches to exponents below 1e-4 and from 2^53 up.
            guard magnitude >= 1e-4, magnitude < 1e15 else { return false }
            // 10^digits, exact as a double up to 10^22 (a table is a global: a `swift_once` per read).
            var power = 1.0
            var digits = 0
            while digits <= 19 {
                let product = magnitude * power
                guard product < 1e15 else { return false }
                // The nearest integer: below 2^52, adding 0.5 is exact, and the conversion truncates.
                let scaled = UInt64(product + 0.5)
                if Double(scaled) / power == magnitude {
                    writeDecimal(scaled, fractionDigits: digits, negative: number < 0)
                    return true
                }
                digits &+= 1
                power *= 10
            }
            return false
        }

        /// Writes `value / 10^fractionDigits` with exactly `fractionDigits` fraction digits (one
        /// `0` when there are none), negated when `negative`.
        private mutating func writeDecimal(_ value: UInt64, fractionDigits: Int, negative: Bool) {
            if negative { output.append(UInt8(ascii: "-")) }
            var divisor: UInt64 = 1
            for _ in 0..<fractionDigits { divisor &*= 10 }
            let (whole, fraction) = value.quotientAndRemainder(dividingBy: divisor)
            writeInteger(whole)
            output.append(UInt8(ascii: "."))
            if fractionDigits == 0 {
                output.append(UInt8(ascii: "0"))
            } else {
                output.appendDigits(fraction, count: fractionDigits)
            }
        }

        package mutating func writeDate(_ date: Date) throws {
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else {
                throw invalid("a date with a non-finite time (\(seconds)) cannot be written")
            }
            if markup {
                try openTagged(ArchiveMarkup.dateKey)
                switch ArchiveMarkup.taggedValue(of: date) {
                case .string(let text): writeString(text)
                case let tagged: try write(tagged, isTopLevel: false)
                }
                closeTagged()
                return
            }
            let spelled: ArchiveValue
            do {
                spelled = try conventions.spelling(of: date)
            } catch let error as ArchiveError {
                throw invalid("the date \(seconds)s after 2001-01-01 cannot be written: \(error.message)")
            }
            try writeSpelled(spelled)
        }

        mutating func writeData(_ bytes: Data) throws {
            if markup {
                try openTagged(ArchiveMarkup.dataKey)
                writeString(bytes.base64EncodedString())
                closeTagged()
                return
            }
            try writeSpelled(conventions.spelling(of: bytes))
        }

        /// Writes a date or data as plain JSON spells it: a string or a number.
        private mutating func writeSpelled(_ value: ArchiveValue) throws {
            switch value {
            case .string(let text): writeString(text)
            case .int(let number): writeInteger(number)
            case .uint(let number): writeInteger(number)
            case .double(let number): try writeDouble(number)
            default: throw invalid("a date or data value cannot be spelled as \(value.kind) in plain JSON")
            }
        }

        package mutating func writeInteger(_ number: Int64) {
            if number < 0 {
                output.append(UInt8(ascii: "-"))
                writeInteger(UInt64(bitPattern: 0 &- number))
            } else {
                writeInteger(UInt64(number))
            }
        }

        package mutating func writeInteger(_ number: UInt64) {
            if number < 10 {
                output.append(UInt8(truncatingIfNeeded: number) &+ UInt8(ascii: "0"))
                return
            }
            var count = 2
            var limit: UInt64 = 100
            while count < 20, number >= limit {
                count &+= 1
                limit &*= 10
            }
            output.appendDigits(number, count: count)
        }

        package mutating func writeString(_ text: String) {
            appendQuoted(text)
        }

        /// ``writeString(_:)`` for the string whose UTF-8 is `utf8` (valid UTF-8).
        @inline(__always)
        package mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
            appendQuoted(utf8)
        }

        /// Whether any of the `count` bytes at `base` is a quote, a backslash or a control
        /// character, checked a word at a time (overlapping words cover the tail; nothing outside
        /// the `count` bytes is read).
        @inline(__always)
        private static func needsEscaping(_ base: UnsafePointer<UInt8>, count: Int) -> Bool {
            let raw = UnsafeRawPointer(base)
            if count >= 8 {
                var offset = 0
                while true {
                    if special(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
                    if offset == count &- 8 { return false }
                    offset = Swift.min(offset &+ 8, count &- 8)
                }
            }
            if count >= 4 {
                let head = UInt64(raw.loadUnaligned(as: UInt32.self))
                let tail = UInt64(raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
                // Two overlapping halves: every byte tested is one of the string's.
                return special(head | (tail << 32))
            }
            for offset in 0..<count {
                let byte = base[offset]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            }
            return false
        }

        /// Whether any byte of `word` is a quote, a backslash or below 0x20.
        @inline(__always)
        private static func special(_ word: UInt64) -> Bool {
            let quotes = word ^ 0x2222_2222_2222_2222
            let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let found =
                ((quotes &- 0x0101_0101_0101_0101) & ~quotes)
                | ((backslashes &- 0x0101_0101_0101_0101) & ~backslashes)
                | ((word &- 0x2020_2020_2020_2020) & ~word)
            return found & 0x8080_8080_8080_8080 != 0
        }

        /// ``appendQuoted(_:escapingReserved:)`` for the UTF-8 of `text`, read in place
        /// (`withUTF8` on a copy costs a retain and a release per string; only a string without
        /// contiguous UTF-8, a bridged one, is copied).
        @inline(__always)
        private mutating func appendQuoted(_ text: String, escapingReserved: Bool = false) {
            if text.utf8.withContiguousStorageIfAvailable({ appendQuoted($0, escapingReserved: escapingReserved) })
                == nil
            {
                var text = text
                text.withUTF8 { appendQuoted($0, escapingReserved: escapingReserved) }
            }
        }

        /// Appends `bytes` (valid UTF-8) as a quoted, escaped JSON string.
        private mutating func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, escapingReserved: Bool = false) {
            output.append(UInt8(ascii: "\""))
            if escapingReserved && bytes.first == UInt8(ascii: "$") {
                output.append(UInt8(ascii: "$"))
            }
            guard let base = bytes.baseAddress else {
                output.append(UInt8(ascii: "\""))
                return
            }
            let count = bytes.count
            if !Self.needsEscaping(base, count: count) {
                output.append(bytes)
                output.append(UInt8(ascii: "\""))
                return
            }
            var segmentStart = 0
            var index = 0
            while index < count {
                // Eight bytes at a time while none needs escaping.
                if count &- index >= 8 {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    let quotes = word ^ 0x2222_2222_2222_2222
                    let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                    let special =
                        ((quotes &- 0x0101_0101_0101_0101) & ~quotes)
                        | ((backslashes &- 0x0101_0101_0101_0101) & ~backslashes)
                        | ((word &- 0x2020_2020_2020_2020) & ~word)
                    if special & 0x8080_8080_8080_8080 == 0 {
                        index &+= 8
                        continue
                    }
                }
                let byte = base[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    index &+= 1
                    continue
                }
                output.append(UnsafeBufferPointer(start: base + segmentStart, count: index &- segmentStart))
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    let hexDigits: StaticString = "0123456789abcdef"
                    output.append(UInt8(ascii: "u"))
                    output.append(UInt8(ascii: "0"))
                    output.append(UInt8(ascii: "0"))
                    output.append(hexDigits.utf8Start[Int(byte >> 4)])
                    output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
                }
                index &+= 1
                segmentStart = index
            }
            output.append(UnsafeBufferPointer(start: base + segmentStart, count: count &- segmentStart))
            output.append(UInt8(ascii: "\""))
        }
    }
}
