import HearthCore

/// Renders the JSON of a subtree straight from its sorted stored keys, without building a tree.
/// Arrays (plain format) are decided when each object closes, by rewriting its bytes.
struct SubtreeRenderer {
    private struct Frame {
        var start: Int
        var hasMembers = false
        var arrayEligible: Bool
        var count = 0
        var maxIndex = -1
        /// (index, value start, value end) while the object may still become an array.
        var members: [(index: Int, start: Int, end: Int)] = []
    }

    let format: RenderFormat
    /// Output not yet taken; `out[0]` is byte number `flushed` of the whole document.
    private(set) var out: [UInt8] = []
    private var flushed = 0
    private var frames: [Frame] = []
    private var splitter: SegmentSplitter
    private var wroteTop = false
    /// Where the last leaf's value began and its stored bytes, for a following priority (export).
    private var lastLeaf: (valueStart: Int, depth: Int, bytes: [UInt8])?
    /// The depth of the leaf written by the previous entry, if it was a leaf.
    private var lastLeafDepth: Int?

    /// - Parameter output: bytes the document follows (it is appended to them).
    init(baseLength: Int, format: RenderFormat, after output: [UInt8] = []) {
        self.format = format
        splitter = SegmentSplitter(baseLength: baseLength)
        out = output
    }

    /// Consumes one stored entry (key below the base prefix, in order).
    mutating func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let shared = splitter.split(key) else { return }
        let n = splitter.ends.count
        if splitter.isPriority {
            if let leafDepth = lastLeafDepth, leafDepth == n, shared == n, frames.count == n {
                // The priority of the leaf just written: in export, rewrite it as
                // {".value", ".priority"}; in plain, priorities are not shown.
                if format == .export, let leaf = lastLeaf {
                    out.removeSubrange((leaf.valueStart - flushed)...)
                    out.append(contentsOf: #"{".value":"#.utf8)
                    leaf.bytes.withUnsafeBytes { JSONBytes.appendStoredLeaf($0, to: &out) }
                    out.append(contentsOf: #",".priority":"#.utf8)
                    JSONBytes.appendStoredLeaf(value, to: &out)
                    out.append(UInt8(ascii: "}"))
                    finishLeaf(in: n)
                }
                lastLeaf = nil
                lastLeafDepth = nil
                return
            }
            // The priority of an object: it comes before the object's children.
            open(key: key, target: n + 1, shared: shared)
            lastLeaf = nil
            lastLeafDepth = nil
            guard format == .export else { return }
            beginMember(key: nil)
            out.append(contentsOf: #"".priority":"#.utf8)
            JSONBytes.appendStoredLeaf(value, to: &out)
            return
        }
        if n == 0 {
            // The subtree's root is a leaf.
            let start = position
            JSONBytes.appendStoredLeaf(value, to: &out)
            wroteTop = true
            if format == .export { lastLeaf = (start, 0, Array(value)) }
            lastLeafDepth = 0
            return
        }
        open(key: key, target: n, shared: shared)
        beginMember(key: key, segment: n - 1)
        let valueStart = position
        JSONBytes.appendStoredLeaf(value, to: &out)
        finishLeaf(in: n)
        if format == .export { lastLeaf = (valueStart, n, Array(value)) } else { lastLeaf = nil }
        lastLeafDepth = n
    }

    /// Closes what is open; writes `null` when nothing was added.
    mutating func finish() {
        while !frames.isEmpty { closeTop() }
        if !wroteTop { out.append(contentsOf: "null".utf8) }
    }

    /// Absolute position of the next byte.
    private var position: Int { flushed + out.count }

    /// Removes and returns the output that can no longer change (nothing inside an object that
    /// may still become an array, nor a leaf that may still get a priority).
    mutating func takeStable() -> [UInt8] {
        var stable = position
        for frame in frames where frame.arrayEligible { stable = min(stable, frame.start) }
        if let leaf = lastLeaf { stable = min(stable, leaf.valueStart) }
        let count = stable - flushed
        guard count > 0 else { return [] }
        let taken = Array(out[0..<count])
        out.removeFirst(count)
        flushed = stable
        return taken
    }

    /// Removes and returns all output (call after `finish()`).
    mutating func takeAll() -> [UInt8] {
        let taken = out
        flushed += out.count
        out = []
        return taken
    }

    // MARK: - structure

    private mutating func open(key: UnsafeRawBufferPointer, target: Int, shared: Int) {
        let keep = min(frames.count, shared + 1)
        while frames.count > keep { closeTop() }
        while frames.count < target {
            let depth = frames.count
            if depth > 0 {
                beginMember(key: key, segment: depth - 1)
            } else {
                wroteTop = true
            }
            frames.append(Frame(start: position, arrayEligible: format == .plain))
            out.append(UInt8(ascii: "{"))
        }
    }

    /// Writes the separator and `"key":` of a new member of the top frame (key nil: caller writes it).
    private mutating func beginMember(key: UnsafeRawBufferPointer?, segment: Int = 0) {
        let top = frames.count - 1
        if frames[top].hasMembers { out.append(UInt8(ascii: ",")) }
        frames[top].hasMembers = true
        guard let key else {
            frames[top].arrayEligible = false
            return
        }
        let start = splitter.start(segment)
        let end = splitter.ends[segment]
        if frames[top].arrayEligible {
            if let index = KeyEncoding.arrayIndex(key, start: start, end: end) {
                frames[top].count += 1
                frames[top].maxIndex = max(frames[top].maxIndex, index)
                frames[top].members.append((index, 0, 0))
            } else {
                frames[top].arrayEligible = false
                frames[top].members = []
            }
        }
        KeyEncoding.withKeyUTF8(key, start: start, end: end) { JSONBytes.appendString($0, to: &out) }
        out.append(UInt8(ascii: ":"))
        if frames[top].arrayEligible {
            frames[top].members[frames[top].members.count - 1].start = position
        }
    }

    /// Records the end of the member just written in the frame at depth `depth - 1`.
    private mutating func finishLeaf(in depth: Int) {
        let top = depth - 1
        guard top >= 0, top < frames.count, frames[top].arrayEligible, !frames[top].members.isEmpty else { return }
        frames[top].members[frames[top].members.count - 1].end = position
    }

    private mutating func closeTop() {
        let frame = frames.removeLast()
        out.append(UInt8(ascii: "}"))
        lastLeaf = nil
        lastLeafDepth = nil
        if frame.arrayEligible && frame.count > 0 && frame.maxIndex < 2 * frame.count {
            var array: [UInt8] = [UInt8(ascii: "[")]
            var next = 0
            for member in frame.members {
                while next < member.index {
                    if next > 0 { array.append(UInt8(ascii: ",")) }
                    array.append(contentsOf: "null".utf8)
                    next += 1
                }
                if next > 0 { array.append(UInt8(ascii: ",")) }
                array.append(contentsOf: out[(member.start - flushed)..<(member.end - flushed)])
                next += 1
            }
            array.append(UInt8(ascii: "]"))
            out.replaceSubrange((frame.start - flushed)..., with: array)
        }
        // The closed object is the last member of its parent.
        finishLeaf(in: frames.count)
    }
}
