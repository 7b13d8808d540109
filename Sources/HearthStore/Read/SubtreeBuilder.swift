import HearthCore

/// Builds a `Node` from the sorted stored keys of a subtree.
struct SubtreeBuilder {
    private struct Frame {
        var keys: [ChildKey] = []
        var nodes: [Node] = []
        var leaf: LeafValue?
        var priority: Priority?

        func node() -> Node? {
            if let leaf { return .leaf(leaf, priority: priority) }
            if keys.isEmpty { return nil }
            return .children(Children(sortedKeys: keys, nodes: nodes), priority: priority)
        }
    }

    private var frames: [Frame] = [Frame()]
    private var frameKeys: [ChildKey] = []
    private var splitter: SegmentSplitter

    init(baseLength: Int) {
        splitter = SegmentSplitter(baseLength: baseLength)
    }

    mutating func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let shared = splitter.split(key) else { return }
        let n = splitter.ends.count
        while frames.count > shared + 1 { pop() }
        while frames.count < n + 1 {
            let index = frames.count - 1
            frameKeys.append(KeyEncoding.decodeKey(key, start: splitter.start(index), end: splitter.ends[index]))
            frames.append(Frame())
        }
        if splitter.isPriority {
            frames[frames.count - 1].priority = ValueEncoding.decodePriority(value)
        } else {
            frames[frames.count - 1].leaf = ValueEncoding.decode(value)
        }
    }

    private mutating func pop() {
        let frame = frames.removeLast()
        let key = frameKeys.removeLast()
        if let node = frame.node() {
            frames[frames.count - 1].keys.append(key)
            frames[frames.count - 1].nodes.append(node)
        }
    }

    mutating func finish() -> Node? {
        while frames.count > 1 { pop() }
        return frames[0].node()
    }
}
