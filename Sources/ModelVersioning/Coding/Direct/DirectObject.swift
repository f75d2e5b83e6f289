@_spi(Coders) import ArchiveFormats
import Foundation

/// The fields of one JSON object, read once by ``DirectDecodingSession/readObject(_:depth:)``:
/// where each key and value is, in the text's order, with the object's type name and version.
/// The header also carries what a keyed container over it applies (decoder, model, allow list,
/// depth), set when the container is made, so that the container is one reference.
///
/// The header is reached through pointers only (a stored property of a class would be checked
/// for exclusive access on every use); only the run's thread touches it.
final class DirectObject: ManagedBuffer<DirectObject.Header, DirectObject.Member> {
    struct Header {
        /// Where the keys' bytes are: the text, or a ``DirectMigration``'s upgraded keys.
        var keys: UnsafePointer<UInt8>
        /// How many members there is room for (`ManagedBuffer.capacity` may ask the allocator).
        let capacity: Int
        var count = 0
        var typeName: String?
        var version: Int?
        /// Whether the first key is `$type` or `$archive` (archive markup is on).
        var startsMarkup = false
        /// Where the last look-up hit, so that the next starts there.
        var hint = 0
        /// Set for the keyed container (``DirectObject/attach(to:model:allowed:depth:)``),
        /// retained by hand so that the container reaches it without a retain per call. The
        /// decoder holds an object it is set in past the value's decode only in a maker's spare
        /// container (``SpareBox``), until the next container of that key type or the end of
        /// the run (frames drop it, spare objects are emptied, the run lets go of its makers), so
        /// this makes no lasting cycle.
        var decoder: Unmanaged<DirectJSONDecoder>?
        /// Not retained: the session's model cache holds every model's information for the run,
        /// and the object holds the decoder, which holds the session.
        var model: Unmanaged<ModelInfo>?
        var allowed: Set<String>?
        var depth = 0
    }

    struct Member {
        var keyStart: UInt32
        var keyLength: UInt32
        var value: UInt32
        var ordinal: Int32
    }

    /// An empty object with room for `capacity` members whose keys are at `keys`.
    static func make(capacity: Int, keys: UnsafePointer<UInt8>) -> DirectObject {
        unsafeDowncast(
            create(minimumCapacity: capacity) { _ in Header(keys: keys, capacity: capacity) }, to: DirectObject.self)
    }

    /// Empties the object for another use with keys at `keys` (the caller holds the only
    /// reference): its members (plain values) forgotten, its type name and allow list let go.
    /// The decoder and the model stay: the next ``attach(to:model:allowed:depth:)`` mostly sets
    /// the same ones, without a retain then (a spare object so holds the decoder, which holds
    /// the session: the run empties its spares when it ends).
    @inline(__always)
    func reset(keys: UnsafePointer<UInt8>) {
        let state = self.state
        state.pointee.keys = keys
        state.pointee.count = 0
        state.pointee.typeName = nil
        state.pointee.version = nil
        state.pointee.startsMarkup = false
        state.pointee.hint = 0
        state.pointee.allowed = nil
        state.pointee.depth = 0
    }

    @inline(__always)
    var state: UnsafeMutablePointer<Header> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    deinit {
        state.pointee.decoder?.release()
    }

    /// Sets what a keyed container over this object applies: its decoder (held by one retain,
    /// in place of any held before), model, allow list and depth.
    @inline(__always)
    func attach(
        to decoder: DirectJSONDecoder, model: Unmanaged<ModelInfo>?, allowed: consuming Set<String>?, depth: Int
    ) {
        let state = self.state
        // A recycled object mostly has them already.
        if state.pointee.decoder?.toOpaque() != Unmanaged.passUnretained(decoder).toOpaque() {
            let retained = Unmanaged.passRetained(decoder)
            state.pointee.decoder?.release()
            state.pointee.decoder = retained
        }
        state.pointee.model = model
        state.pointee.allowed = allowed
        state.pointee.depth = depth
    }

    var typeName: String? { state.pointee.typeName }
    var version: Int? { state.pointee.version }

    @inline(__always)
    func append(keyStart: Int, keyLength: Int, value: DirectJSONDecoder.ValueRef) {
        withUnsafeMutablePointers { header, members in
            (members + header.pointee.count).initialize(
                to: Member(
                    keyStart: UInt32(truncatingIfNeeded: keyStart), keyLength: UInt32(truncatingIfNeeded: keyLength),
                    value: UInt32(truncatingIfNeeded: value.offset), ordinal: Int32(truncatingIfNeeded: value.ordinal)))
            header.pointee.count &+= 1
        }
    }

    @inline(__always)
    func append(_ member: Member) {
        withUnsafeMutablePointers { header, members in
            (members + header.pointee.count).initialize(to: member)
            header.pointee.count &+= 1
        }
    }

    /// The member at `index` (below ``Header/count``).
    @inline(__always)
    func member(at index: Int) -> Member {
        withUnsafeMutablePointers { _, members in members[index] }
    }

    /// The value under `name`, starting where the previous look-up ended (keys read in archived
    /// order cost one comparison each).
    @inline(__always)
    func find(_ name: String) -> DirectJSONDecoder.ValueRef? {
        // The key's bytes where they are (no copy of the string, so no retain); a string that
        // has no contiguous UTF-8 (bridged) is made contiguous first.
        if let found = name.utf8.withContiguousStorageIfAvailable({ find(utf8: $0) }) { return found }
        var name = name
        return name.withUTF8 { find(utf8: $0) }
    }

    @inline(__always)
    private func find(utf8 key: UnsafeBufferPointer<UInt8>) -> DirectJSONDecoder.ValueRef? {
        withUnsafeMutablePointers { header, members -> DirectJSONDecoder.ValueRef? in
            let count = header.pointee.count
            guard count > 0 else { return nil }
            let length = key.count
            let keys = header.pointee.keys
            var index = header.pointee.hint < count ? header.pointee.hint : 0
            for _ in 0..<count {
                let member = members[index]
                if Int(member.keyLength) == length
                    && JSONText.equal(keys + Int(member.keyStart), key.baseAddress, length: length)
                {
                    header.pointee.hint = index &+ 1
                    return DirectJSONDecoder.ValueRef(offset: Int(member.value), ordinal: Int(member.ordinal))
                }
                index &+= 1
                if index == count { index = 0 }
            }
            return nil
        }
    }

    /// The keys, in order.
    var keys: [String] {
        withUnsafeMutablePointers { header, members in
            (0..<header.pointee.count).map { index in
                String(
                    decoding: UnsafeBufferPointer(
                        start: header.pointee.keys + Int(members[index].keyStart),
                        count: Int(members[index].keyLength)),
                    as: UTF8.self)
            }
        }
    }

    /// Whether a key appears twice (the parser rejects such objects).
    /// Whether one of the keys is a source of a move of its chain's last step
    /// (``RecentTypeName/leavesToPass(key:length:)`` of `recentType`, just asked about this
    /// object's type): the tree decoder's pass checks such an object.
    func holdsLastStepSource(_ recentType: borrowing RecentTypeName) -> Bool {
        withUnsafeMutablePointers { header, members in
            for index in 0..<header.pointee.count {
                let member = members[index]
                if recentType.leavesToPass(
                    key: header.pointee.keys + Int(member.keyStart), length: Int(member.keyLength))
                {
                    return true
                }
            }
            return false
        }
    }

    func hasDuplicateKey() -> Bool {
        withUnsafeMutablePointers { header, members in
            let count = header.pointee.count
            guard count > 1 else { return false }
            if count > 16 {
                return Set(keys.lazy.map(ExactString.init)).count != count
            }
            // Few keys: every pair, compared only when their lengths agree.
            let bytes = header.pointee.keys
            for later in 1..<count {
                let key = members[later]
                let start = bytes + Int(key.keyStart)
                for earlier in 0..<later where members[earlier].keyLength == key.keyLength {
                    if JSONText.equal(bytes + Int(members[earlier].keyStart), start, length: Int(key.keyLength)) {
                        return true
                    }
                }
            }
            return false
        }
    }
}
