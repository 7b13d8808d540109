import HearthCore

extension RealtimeSession {
    /// Starts queued requests until one waits for an outcome.
    mutating func pump() -> [SessionAction] {
        var actions: [SessionAction] = []
        while phase == .open, inFlight == nil, queueHead < queue.count {
            let next = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                // Not keeping its capacity: an idle connection holds no queue (`hearthload w3`).
                queue = []
                queueHead = 0
            } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            switch next {
            case .invalid(let id, let error):
                respond(id, .failure, .message(error.message), into: &actions)
            case .request(let request):
                start(request, into: &actions)
            }
        }
        return actions
    }

    /// Handles one request: answers it at once, or emits its action and waits for the outcome.
    mutating func start(_ request: ClientRequest, into actions: inout [SessionAction]) {
        let id = request.id
        switch request.action {
        case .listen(let listen):
            let key = listen.key
            if listens[key] == nil && listens.count >= configuration.maxListens {
                respond(
                    id,
                    .failure,
                    .message("Too many listeners on this connection: at most \(configuration.maxListens) are allowed."),
                    into: &actions
                )
                return
            }
            listens[key] = ListenRecord(query: listen.query, tag: listen.tag, isActive: false)
            wait(for: request, .listen(listen, requestID: id, identity: identity), into: &actions)
        case .unlisten(let unlisten):
            if listens.removeValue(forKey: unlisten.key) != nil {
                actions.append(.unlisten(unlisten.key))
            }
            respond(id, .ok, .empty, into: &actions)
        case .put(let put):
            wait(for: request, .write(.set(put), requestID: id, identity: identity), into: &actions)
        case .merge(let merge):
            wait(for: request, .write(.merge(merge), requestID: id, identity: identity), into: &actions)
        case .onDisconnectPut(let put):
            wait(for: request, .registerOnDisconnect(.set(put), requestID: id, identity: identity), into: &actions)
        case .onDisconnectMerge(let merge):
            wait(for: request, .registerOnDisconnect(.merge(merge), requestID: id, identity: identity), into: &actions)
        case .onDisconnectCancel(let path):
            wait(for: request, .cancelOnDisconnect(path, requestID: id, identity: identity), into: &actions)
        case .authenticate(let auth):
            wait(for: request, .authenticate(auth, requestID: id), into: &actions)
        case .unauthenticate:
            respond(id, .ok, .empty, into: &actions)
            becomeAnonymous(into: &actions)
        case .stats(let counters):
            actions.append(.stats(counters))
            respond(id, .ok, .empty, into: &actions)
        case .get(let get):
            wait(for: request, .get(get, requestID: id, identity: identity), into: &actions)
        case .appCheck, .appCheckRemoved:
            respond(id, .ok, .empty, into: &actions)
        }
    }

    mutating func wait(for request: ClientRequest, _ action: SessionAction, into actions: inout [SessionAction]) {
        inFlight = InFlightRequest(request)
        actions.append(action)
    }

    func respond(_ id: RequestID, _ status: ResponseStatus, _ data: ResponseData, into actions: inout [SessionAction]) {
        send(.response(id, status: status, data: data), into: &actions)
    }

    /// Drops the identity (after `unauth`, a refused credential or a revocation).
    mutating func becomeAnonymous(into actions: inout [SessionAction]) {
        guard identity != .anonymous else { return }
        identity = .anonymous
        actions.append(.identityChanged(.anonymous))
    }
}
