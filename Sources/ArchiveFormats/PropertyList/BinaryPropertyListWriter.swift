import Foundation

/// Writes an archive tree as a binary property list (`bplist00`).
///
/// ```swift
/// let data = try BinaryPropertyListWriter.write(tree, options: .init())
/// ```
///
/// The output is deterministic (dictionary order kept, objects numbered depth-first from the
/// top object 0) and built in time linear in the number of values. Equal strings (keys and
/// values, byte for byte) and equal numbers, dates, Booleans and nulls are stored once,
/// as Apple's writer does; containers never are, so the reader sees no shared containers.
/// Integers take the fewest bytes (negative ones 8, values above `Int64.max` 16); reals are
/// 8-byte doubles; strings are ASCII when they can be, UTF-16BE otherwise; references are UIDs of
/// 1, 2 or 4 bytes. Markup follows ``PropertyListWriterMarkup``.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` (a reference outside
///   0…4294967295, a date outside the years 0 to 9999) or `ArchiveError.Code.limitExceeded`
///   (nesting deeper than `ArchiveLimits.maxDepth`), with the path of the value.
enum BinaryPropertyListWriter {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        var builder = Builder(
            markup: PropertyListWriterMarkup(mode: options.markup, root: value), maxDepth: options.limits.maxDepth)
        _ = try builder.add(value, depth: 0)
        return builder.encode()
    }

    /// One object of the table.
    private enum Record {
        case null
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case real(Double)
        case date(Double)
        case string(String)
        case data(Data)
        case uid(UInt32)
        /// Element references in ``Builder/references``.
        case array(Range<Int>)
        /// Key references, then value references, in ``Builder/references``.
        case dictionary(Range<Int>)
    }

    /// Numbers the objects of a tree and encodes them.
    private struct Builder {
        let markup: PropertyListWriterMarkup
        let maxDepth: Int
        var records: [Record] = []
        /// The references of every container, each container's run contiguous.
        var references: [Int] = []
        /// References of the containers being built (a stack of runs).
        var pending: [Int] = []
        /// Strings written so far, by their exact scalars (`"\u{E9}"` and `"e\u{301}"` are two).
        var strings: [ExactString: Int] = [:]
        var integers: [Int64: Int] = [:]
        var reals: [UInt64: Int] = [:]
        var dates: [UInt64: Int] = [:]
        var singletons: [Int?] = [nil, nil, nil]  // null, false, true

        init(markup: PropertyListWriterMarkup, maxDepth: Int) {
            self.markup = markup
            self.maxDepth = maxDepth
        }

        /// Adds `value` (and what it contains) and returns its object number.
        mutating func add(_ value: ArchiveValue, depth: Int) throws -> Int {
            switch value {
            case .null:
                if markup.isArchive { return try addEntries(PropertyListWriterMarkup.nullEntries, depth: depth) }
                return singleton(0, .null)
            case .bool(let flag):
                return singleton(flag ? 2 : 1, .bool(flag))
            case .int(let number):
                return addInteger(number)
            case .uint(let number):
                if number <= UInt64(Int64.max) { return addInteger(Int64(number)) }
                return append(.uint(number))
            case .double(let number):
                if let index = reals[number.bitPattern] { return index }
                let index = append(.real(number))
                reals[number.bitPattern] = index
                return index
            case .string(let text):
                return addString(text)
            case .data(let bytes):
                return append(.data(bytes))
            case .date(let date):
                let seconds = date.timeIntervalSinceReferenceDate
                guard PropertyListDate.isValid(seconds) else { throw PropertyListWriterMarkup.dateError(date) }
                if let index = dates[seconds.bitPattern] { return index }
                let index = append(.date(seconds))
                dates[seconds.bitPattern] = index
                return index
            case .reference(let id):
                guard id.rawValue >= 0, id.rawValue <= Int(UInt32.max) else {
                    throw PropertyListWriterMarkup.referenceError(id)
                }
                return append(.uid(UInt32(id.rawValue)))
            case .array(let elements):
                guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
                let index = append(.array(0..<0))
                let start = pending.count
                for (position, element) in elements.enumerated() {
                    do {
                        pending.append(try add(element, depth: depth + 1))
                    } catch let error as ArchiveError {
                        throw error.prefixingPath([.index(position)])
                    }
                }
                records[index] = .array(flush(from: start))
                return index
            case .dictionary(let dictionary):
                guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
                let index = append(.dictionary(0..<0))
                let start = pending.count
                for (key, _) in dictionary {
                    pending.append(addString(markup.key(key, isTopLevel: depth == 0)))
                }
                for (key, element) in dictionary {
                    do {
                        pending.append(try add(element, depth: depth + 1))
                    } catch let error as ArchiveError {
                        throw error.prefixingPath([.key(key)])
                    }
                }
                records[index] = .dictionary(flush(from: start))
                return index
            case .object(let object):
                do {
                    return try addEntries(try markup.entries(of: object), depth: depth)
                } catch let error as ArchiveError {
                    throw error.adding(typeName: object.typeName, archivedVersion: object.version)
                }
            }
        }

        /// Adds a dictionary whose keys are final.
        private mutating func addEntries(_ entries: [ArchiveDictionary.Element], depth: Int) throws -> Int {
            guard depth < maxDepth else { throw PropertyListWriterMarkup.depthError(maxDepth) }
            let index = append(.dictionary(0..<0))
            let start = pending.count
            for (key, _) in entries {
                pending.append(addString(key))
            }
            for (key, element) in entries {
                do {
                    pending.append(try add(element, depth: depth + 1))
                } catch let error as ArchiveError {
                    throw error.prefixingPath([.key(key)])
                }
            }
            records[index] = .dictionary(flush(from: start))
            return index
        }

        /// Moves the pending references from `start` to ``references`` and returns their range.
        private mutating func flush(from start: Int) -> Range<Int> {
            let first = references.count
            references.append(contentsOf: pending[start...])
            pending.removeSubrange(start...)
            return first..<references.count
        }

        private mutating func addString(_ text: String) -> Int {
            if let index = strings[ExactString(text)] { return index }
            let index = append(.string(text))
            strings[ExactString(text)] = index
            return index
        }

        private mutating func singleton(_ slot: Int, _ record: Record) -> Int {
            if let index = singletons[slot] { return index }
            let index = append(record)
            singletons[slot] = index
            return index
        }

        private mutating func addInteger(_ number: Int64) -> Int {
            if let index = integers[number] { return index }
            let index = append(.int(number))
            integers[number] = index
            return index
        }

        private mutating func append(_ record: Record) -> Int {
            records.append(record)
            return records.count - 1
        }

        // MARK: - Encoding

        func encode() -> Data {
            let referenceSize = Self.byteCount(forMaximum: UInt64(records.count))
            var output: [UInt8] = Array("bplist00".utf8)
            output.reserveCapacity(records.count * 4 + references.count * referenceSize + 64)
            var offsets: [Int] = []
            offsets.reserveCapacity(records.count)
            for record in records {
                offsets.append(output.count)
                switch record {
                case .null:
                    output.append(0x00)
                case .bool(let flag):
                    output.append(flag ? 0x09 : 0x08)
                case .int(let number):
                    Self.appendInteger(number, to: &output)
                case .uint(let number):
                    output.append(0x14)
                    Self.appendBigEndian(0, size: 8, to: &output)
                    Self.appendBigEndian(number, size: 8, to: &output)
                case .real(let number):
                    output.append(0x23)
                    Self.appendBigEndian(number.bitPattern, size: 8, to: &output)
                case .date(let seconds):
                    output.append(0x33)
                    Self.appendBigEndian(seconds.bitPattern, size: 8, to: &output)
                case .string(let text):
                    if text.utf8.allSatisfy({ $0 < 0x80 }) {
                        Self.appendMarker(0x50, count: text.utf8.count, to: &output)
                        output.append(contentsOf: text.utf8)
                    } else {
                        Self.appendMarker(0x60, count: text.utf16.count, to: &output)
                        for unit in text.utf16 {
                            output.append(UInt8(truncatingIfNeeded: unit >> 8))
                            output.append(UInt8(truncatingIfNeeded: unit))
                        }
                    }
                case .data(let bytes):
                    Self.appendMarker(0x40, count: bytes.count, to: &output)
                    output.append(contentsOf: bytes)
                case .uid(let id):
                    let size = id <= 0xFF ? 1 : (id <= 0xFFFF ? 2 : 4)
                    output.append(0x80 | UInt8(size - 1))
                    Self.appendBigEndian(UInt64(id), size: size, to: &output)
                case .array(let run):
                    Self.appendMarker(0xA0, count: run.count, to: &output)
                    for position in run {
                        Self.appendBigEndian(UInt64(references[position]), size: referenceSize, to: &output)
                    }
                case .dictionary(let run):
                    Self.appendMarker(0xD0, count: run.count / 2, to: &output)
                    for position in run {
                        Self.appendBigEndian(UInt64(references[position]), size: referenceSize, to: &output)
                    }
                }
            }
            let tableOffset = output.count
            let offsetSize = Self.byteCount(forMaximum: UInt64(tableOffset))
            for offset in offsets {
                Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &output)
            }
            output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
            Self.appendBigEndian(UInt64(records.count), size: 8, to: &output)
            Self.appendBigEndian(0, size: 8, to: &output)
            Self.appendBigEndian(UInt64(tableOffset), size: 8, to: &output)
            return Data(output)
        }

        /// The fewest bytes (1, 2, 4 or 8) whose values reach `maximum` exclusive: Apple's reader
        /// requires `1 << (8 × size) > maximum` for the object count and the offset table start.
        private static func byteCount(forMaximum maximum: UInt64) -> Int {
            if maximum < 1 << 8 { return 1 }
            if maximum < 1 << 16 { return 2 }
            if maximum < 1 << 32 { return 4 }
            return 8
        }

        private static func appendInteger(_ number: Int64, to output: inout [UInt8]) {
            if number < 0 {
                output.append(0x13)
                appendBigEndian(UInt64(bitPattern: number), size: 8, to: &output)
                return
            }
            let value = UInt64(number)
            switch value {
            case ..<(1 << 8):
                output.append(0x10)
                appendBigEndian(value, size: 1, to: &output)
            case ..<(1 << 16):
                output.append(0x11)
                appendBigEndian(value, size: 2, to: &output)
            case ..<(1 << 32):
                output.append(0x12)
                appendBigEndian(value, size: 4, to: &output)
            default:
                output.append(0x13)
                appendBigEndian(value, size: 8, to: &output)
            }
        }

        /// A marker with `count` in its low nibble, or followed by an integer object when the
        /// count is 15 or more.
        private static func appendMarker(_ marker: UInt8, count: Int, to output: inout [UInt8]) {
            if count < 15 {
                output.append(marker | UInt8(count))
            } else {
                output.append(marker | 0x0F)
                appendInteger(Int64(count), to: &output)
            }
        }

        @inline(__always)
        private static func appendBigEndian(_ value: UInt64, size: Int, to output: inout [UInt8]) {
            var shift = (size - 1) * 8
            while shift >= 0 {
                output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }
    }
}
