/// Matching: `prefixMatch` is Python's `re.match` (anchored at the start, the first match by priority),
/// `fullMatch` is `re.fullmatch`. The input is digit values 0...9, never characters.
extension DigitPattern {
    /// Where a prefix match ends, and the digits each capturing group took (nil when it took no part).
    struct Match {
        let end: Int
        let groups: [Range<Int>?]
    }

    /// Whether the whole of `digits` matches.
    func fullMatch(_ digits: [UInt8]) -> Bool {
        if let literal { return digits == literal }
        guard admits(digits) else { return false }
        return run(digits, wholeInput: true, captures: nil) != nil
    }

    /// The match at the start of `digits`, if any.
    func prefixMatch(_ digits: [UInt8]) -> Match? {
        if let literal {
            guard digits.starts(with: literal) else { return nil }
            return Match(end: literal.count, groups: [])
        }
        guard admits(digits) else { return nil }
        guard groupCount > 0 else {
            return run(digits, wholeInput: false, captures: nil).map { Match(end: $0, groups: []) }
        }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * groupCount) { slots in
            slots.initialize(repeating: -1)
            guard let end = run(digits, wholeInput: false, captures: slots) else { return nil }
            let groups: [Range<Int>?] = (0..<groupCount).map { group in
                let start = Int(slots[2 * group])
                let stop = Int(slots[2 * group + 1])
                return start >= 0 && stop >= start ? start..<stop : nil
            }
            return Match(end: end, groups: groups)
        }
    }

    /// The cheap refusal: a pattern that cannot match empty needs a first digit it can start with.
    private func admits(_ digits: [UInt8]) -> Bool {
        if matchesEmpty { return true }
        guard let first = digits.first else { return false }
        return firstDigits & (1 << UInt16(first)) != 0
    }

    private struct Job {
        var instruction: Int32
        /// The position to go on from, or for a restore job the slot's earlier value.
        var position: Int32
        /// -1 for a thread to go on with; otherwise the capture slot to restore.
        var slot: Int32
    }

    /// Runs the program; returns where the first successful path ends. Every (instruction, position) pair is
    /// tried at most once: a pair seen before already failed (or the search would have stopped), so the work
    /// is bounded by instructions × (digits + 1).
    private func run(_ digits: [UInt8], wholeInput: Bool, captures: UnsafeMutableBufferPointer<Int32>?) -> Int? {
        let count = digits.count
        let stride = count + 1
        let states = program.count * stride
        return digits.withUnsafeBufferPointer { input in
            program.withUnsafeBufferPointer { code in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: (states + 63) / 64) { seen in
                    seen.initialize(repeating: 0)
                    return withUnsafeTemporaryAllocation(of: Job.self, capacity: states + 1) { stack in
                        var top = 1
                        stack[0] = Job(instruction: 0, position: 0, slot: -1)
                        while top > 0 {
                            top -= 1
                            let job = stack[top]
                            if job.slot >= 0 {
                                captures?[Int(job.slot)] = job.position
                                continue
                            }
                            var pc = Int(job.instruction)
                            var position = Int(job.position)
                            thread: while true {
                                let state = pc * stride + position
                                let bit: UInt64 = 1 << UInt64(state & 63)
                                if seen[state >> 6] & bit != 0 { break thread }
                                seen[state >> 6] |= bit
                                let instruction = code[pc]
                                switch instruction.operation {
                                case .digit:
                                    guard position < count, instruction.mask & (1 << UInt16(input[position])) != 0
                                    else { break thread }
                                    pc += 1
                                    position += 1
                                case .split:
                                    stack[top] = Job(
                                        instruction: instruction.alternative,
                                        position: Int32(position),
                                        slot: -1
                                    )
                                    top += 1
                                    pc = Int(instruction.next)
                                case .jump:
                                    pc = Int(instruction.next)
                                case .save:
                                    if let captures {
                                        let slot = Int(instruction.next)
                                        stack[top] = Job(
                                            instruction: 0,
                                            position: captures[slot],
                                            slot: instruction.next
                                        )
                                        top += 1
                                        captures[slot] = Int32(position)
                                    }
                                    pc += 1
                                case .end:
                                    guard position == count else { break thread }
                                    pc += 1
                                case .match:
                                    guard !wholeInput || position == count else { break thread }
                                    return position
                                }
                            }
                        }
                        return nil
                    }
                }
            }
        }
    }
}
