internal import HearthCore

/// `snapshotCall`: a snapshot method on `root`, `data` or `newData` (or a child of one) answered
/// straight from the known new node or from one `summary(at:)` of the data source, without
/// building snapshot values. Same results and errors as the general path.
extension RuleEvaluator {
    func snapshotCall(
        _ variable: RuleVariable,
        _ segments: [RuleChildSegment],
        _ method: RuleMethod,
        _ paths: [[ChildKey]]
    ) -> RuleValue {
        let isNew = variable == .newData
        if isNew {
            guard inWrite else { return .error("'newData' outside a write") }
            // `newData.val()`, `newData.isString()`, ... during validation: the summary is known.
            if segments.isEmpty, let summary = newSummaryAtLocation, method != .hasChild,
                method != .hasChildren || paths.isEmpty
            {
                return Self.apply(method, summary)
            }
        }
        // The keys below the variable's location.
        var keys: [ChildKey] = []
        if segments.count == 1, case .keys(let literal) = segments[0] {
            keys = literal
        } else if !segments.isEmpty {
            switch appendKeys(segments, to: &keys) {
            case .valid: break
            case .invalid: return Self.apply(method, paths, absent: ())
            case .failed(let failure): return failure
            }
        }
        if isNew, case .known(let node) = newNodeAtLocation {
            return Self.apply(method, paths, to: node, below: keys[...])
        }
        var path: DataPath
        if variable == .root {
            path = DataPath(keys: keys)
        } else if keys.isEmpty {
            path = DataPath(keys: locationKeys)
        } else {
            path = DataPath(keys: locationKeys + keys)
        }
        switch method {
        case .hasChild:
            let childKeys = paths[0]
            if !childKeys.isEmpty { path = DataPath(keys: path.keys + childKeys) }
            return .bool(summary(isNew, path) != .absent)
        case .hasChildren where !paths.isEmpty:
            if paths.contains(where: \.isEmpty), summary(isNew, path) != .children { return .bool(false) }
            for childKeys in paths where !childKeys.isEmpty {
                if summary(isNew, DataPath(keys: path.keys + childKeys)) == .absent { return .bool(false) }
            }
            return .bool(true)
        default:
            return Self.apply(method, summary(isNew, path))
        }
    }

    @inline(__always)
    private func summary(_ isNew: Bool, _ path: DataPath) -> RuleNodeSummary {
        isNew ? new.summary(at: path) : current.summary(at: path)
    }

    /// What `appendKeys` found.
    enum KeysAppended {
        case valid
        /// One key cannot be in any data ('a.b'): the location holds nothing (not an error).
        case invalid
        /// A computed segment is not a string (or is an error): the call's value.
        case failed(RuleValue)
    }

    /// Appends the keys of `segments`.
    func appendKeys(_ segments: [RuleChildSegment], to keys: inout [ChildKey]) -> KeysAppended {
        keys.reserveCapacity(keys.count + segments.count + 2)
        var valid = true
        for segment in segments {
            switch segment {
            case .keys(let literal):
                keys.append(contentsOf: literal)
            case .expression(.variable(.wildcard(let index))) where index < wildcards.count:
                // A `$wildcard` is one key of the path: appended as it is when it is a valid key
                // (as `RuleKeys.append` would), without splitting or parsing it again.
                let key = wildcards[index]
                guard KeyValidator.isValid(key.string) else {
                    valid = RuleKeys.append(path: key.string, to: &keys) && valid
                    continue
                }
                keys.append(key)
            case .expression(.authMember("uid")) where auth?.uidKey != nil:
                keys.append(auth!.uidKey!)
            case .expression(let expression):
                switch evaluate(expression) {
                case .string(let path):
                    valid = RuleKeys.append(path: path, to: &keys) && valid
                case .error(let e):
                    return .failed(.error(e))
                case let other:
                    return .failed(.error(Message.runtimeArgument(RuleMethod.child.rawValue, other.typeName)))
                }
            }
        }
        return valid ? .valid : .invalid
    }

    /// `method` on the node at `keys` below a known node.
    static func apply(
        _ method: RuleMethod,
        _ paths: [[ChildKey]],
        to node: Node?,
        below keys: ArraySlice<ChildKey>
    )
        -> RuleValue
    {
        guard let node else { return apply(method, paths, absent: ()) }
        switch method {
        case .hasChild:
            return .bool(NodeWalk.summary(node, keys, paths[0][...]) != .absent)
        case .hasChildren where !paths.isEmpty:
            guard NodeWalk.summary(node, keys) == .children else { return .bool(false) }
            for childKeys in paths where NodeWalk.summary(node, keys, childKeys[...]) == .absent { return .bool(false) }
            return .bool(true)
        default:
            return apply(method, NodeWalk.summary(node, keys))
        }
    }

    /// `method` on a location that holds nothing.
    static func apply(_ method: RuleMethod, _ paths: [[ChildKey]], absent: Void) -> RuleValue {
        switch method {
        case .hasChild: return .bool(false)
        case .hasChildren where !paths.isEmpty: return .bool(false)
        default: return apply(method, .absent)
        }
    }

    /// `val`, `exists`, `isNumber`, `isString`, `isBoolean` or `hasChildren()` of a summary.
    static func apply(_ method: RuleMethod, _ summary: RuleNodeSummary) -> RuleValue {
        switch method {
        case .val:
            switch summary {
            case .absent: return .null
            case .leaf(let value): return RuleValue(value)
            case .children: return .object
            }
        case .exists:
            return .bool(summary != .absent)
        case .hasChildren:
            return .bool(summary == .children)
        case .isNumber, .isString, .isBoolean:
            guard case .leaf(let value) = summary else { return .bool(false) }
            switch (method, value) {
            case (.isNumber, .number), (.isString, .string), (.isBoolean, .bool): return .bool(true)
            default: return .bool(false)
            }
        default:
            return .error(Message.runtimeMethod(method.rawValue, "a snapshot"))
        }
    }
}
