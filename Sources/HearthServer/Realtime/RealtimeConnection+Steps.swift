import HearthCore
import HearthProtocol

extension RealtimeConnection {
    /// The next thing to do, or nil when the connection waits (for an event or a database
    /// outcome). Call it until nil after every event; events that arrive meanwhile (also from
    /// inside an action) are queued and come out of later calls.
    mutating func nextAction() -> Action? {
        if !urgent.isEmpty {
            // The last one leaves no buffer behind: an idle connection holds none.
            guard urgent.count > 1 else {
                defer { urgent = [] }
                return urgent[0]
            }
            return urgent.removeFirst()
        }
        while !busy {
            if stepIndex < steps.count {
                let step = steps[stepIndex]
                stepIndex += 1
                switch step {
                case .action(let action): return action
                case .session(let action): if let action = perform(action) { return action }
                }
                continue
            }
            inBatch = false
            if stepIndex > 0 {
                steps = []
                stepIndex = 0
            }
            guard backlogHead < backlog.count else { break }
            let event = backlog[backlogHead]
            backlogHead += 1
            if case .message = event { backlogFrames -= 1 }
            if backlogHead == backlog.count {
                backlog = []
                backlogHead = 0
            }
            insertNext(stepsAnswering(event))
        }
        if unflushed, !holdFlush {
            unflushed = false
            return .flush
        }
        if readHeld, backlogFrames < limits.maxUnhandledFrames {
            readHeld = false
            return .read
        }
        return nil
    }

    /// What the session's `action` means for the handler (nil: nothing to do).
    mutating func perform(_ action: SessionAction) -> Action? {
        if case .send(let frame) = action {
            guard !closeSent, !slowConsumer else { return nil }
            if !inBatch {
                inBatch = true
                guard admitBatch() else { return nil }
            }
            unflushed = true
            return .sendText(frame)
        }
        inBatch = false
        switch action {
        case .send:
            return nil
        case .close(let code, let reason):
            guard !closeSent else { return nil }
            closeSent = true
            unflushed = true
            return .sendClose(code, reason: reason)
        case .connectionClosed:
            guard !finished else { return nil }
            finished = true
            let held = Array(registrations.values)
            registrations = [:]
            return .finish(held)
        case .unlisten(let key):
            return registrations.removeValue(forKey: key).map { Action.unregister($0) }
        case .stats:
            return nil
        case .authenticate(let request, let requestID):
            return .authenticate(request, requestID)
        case .listen(let request, let requestID, let identity):
            busy = true
            return .listen(request, requestID, identity, replacing: registrations.removeValue(forKey: request.key))
        case .write(let request, let requestID, let identity):
            busy = true
            return .write(request, requestID, identity)
        case .get(let request, let requestID, let identity):
            busy = true
            return .get(request, requestID, identity)
        case .registerOnDisconnect(let request, let requestID, let identity):
            busy = true
            return .registerOnDisconnect(request, requestID, identity)
        case .cancelOnDisconnect(let path, let requestID, let identity):
            busy = true
            return .cancelOnDisconnect(path, requestID, identity)
        case .identityChanged(let identity):
            urgent.append(.identityChanged(identity))
            guard !registrations.isEmpty else { return nil }
            busy = true
            return .recheckListens(registrations.map { ($0.key, $0.value) }, identity)
        }
    }

    /// The session's answer to `event`, as steps.
    mutating func stepsAnswering(_ event: Event) -> [Step] {
        switch event {
        case .message(let bytes, let now):
            return session.received(frame: bytes, now: now).map(Step.session)
        case .update(let update, let id, let key):
            // A push for an untagged listen that fits one frame goes out as the loop's shared
            // frame, as `session.push(encoded:for:)` would send it.
            let fits = fitsOneFrame(update)
            if id == sharedRegistration, fits { return sharedPush(update) }
            guard registrationTable[key]?.id == id else { return [] }
            if fits, sessionState.holdsUntaggedListen(key) {
                sharedRegistration = id
                return sharedPush(update)
            }
            return session.push(encoded: update, for: key).map(Step.session)
        case .revoked(let id, let key):
            guard registrationTable[key]?.id == id else { return [] }
            registrations[key] = nil
            return session.revokeListen(key).map(Step.session)
        case .tick(let now):
            return session.tick(now: now).map(Step.session)
        case .drain:
            return session.close(code: .goingAway, reason: "The server is shutting down.").map(Step.session)
        case .fail(let code, let reason):
            return session.close(code: code, reason: reason).map(Step.session)
        case .ended:
            return session.closed().map(Step.session)
        }
    }

    /// Whether `update`'s message goes out in one frame (as the loop's shared frame can).
    func fitsOneFrame(_ update: EncodedUpdate) -> Bool {
        update.message.count <= sessionState.configuration.maxFrameLength
    }

    /// The shared frame of an untagged push, when the channel takes it.
    private mutating func sharedPush(_ update: EncodedUpdate) -> [Step] {
        guard admitBatch() else { return [] }
        unflushed = true
        return [.action(.sendShared(update, joining: holdFlush))]
    }

    /// Whether the first frame of a batch may be written: a channel that is not writable (more
    /// than `maxQueuedBytes` waiting) is a slow consumer and is closed instead (the close is
    /// queued next).
    mutating func admitBatch() -> Bool {
        guard !closeSent, !slowConsumer else { return false }
        if writable { return true }
        slowConsumer = true
        let close = session.close(
            code: .policyViolation,
            reason: "Slow consumer: more than \(limits.maxQueuedBytes) bytes waited to be sent."
        )
        insertNext([.action(.reportSlowConsumer)] + close.map(Step.session))
        return false
    }
}
