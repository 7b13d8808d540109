import HearthDatabase
import HearthProtocol
import Logging
import NIOCore

/// The database actions and the closing of a realtime connection, on its event loop.
extension RealtimeChannelHandler {
    // MARK: Database actions

    func startDatabaseAction(_ action: RealtimeConnection<ListenRegistration>.Action) {
        let work = self.work
        switch action {
        case .listen(let request, let requestID, let identity, let replaced):
            if let replaced { work.engine.unlisten(replaced) }
            let key = request.key
            Task {
                let (outcome, registration) = await work.listen(request, identity: identity, subscriber: self)
                self.eventLoop.execute {
                    self.connection.listenCompleted(outcome, for: requestID, key: key, registration: registration)
                    self.run()
                }
            }
        case .write(let request, let requestID, let identity):
            // No task: the write goes to the writer with the others this loop iteration started,
            // and its outcome comes back with the others of the writer's round. A connection that
            // listens gets a committed write's answer behind the pushes of its commit (Firebase's
            // order, which the SDKs' local events rely on).
            let eventLoop = self.eventLoop
            let completions = loopInbox.completions
            let inbox = loopInbox
            let listens = connection.holdsListens
            loopInbox.submitWrite { pass in
                work.write(request, identity: identity, in: pass) { outcome in
                    if listens, case .ok = outcome {
                        work.engine.afterDeliveries {
                            inbox.append(self, .answer(RealtimeDelivery.WriteAnswer(outcome, for: requestID)))
                        }
                    } else if eventLoop.inEventLoop {
                        self.completed(outcome, for: requestID)
                    } else {
                        completions.complete(self, outcome, for: requestID)
                    }
                }
            }
        case .get(let request, let requestID, let identity):
            run(requestID) { await work.get(request, identity: identity) }
        case .registerOnDisconnect(let request, let requestID, let identity):
            run(requestID) { await work.registerOnDisconnect(request, identity: identity) }
        case .cancelOnDisconnect(let path, let requestID, let identity):
            run(requestID) { await work.cancelOnDisconnect(at: path, identity: identity) }
        case .recheckListens(let listens, let identity):
            Task {
                let keys = await work.unreadable(listens, identity: identity)
                self.eventLoop.execute {
                    self.connection.listensRechecked(unreadable: keys)
                    self.run()
                }
            }
        default:
            break
        }
    }

    /// Runs a short database action in a task on this loop (it suspends while the store works,
    /// and resumes here).
    func run(_ requestID: RequestID, _ body: @escaping @Sendable () async -> RequestOutcome) {
        Task(executorPreference: loopInbox.executor) {
            let outcome = await body()
            if self.eventLoop.inEventLoop {
                self.completed(outcome, for: requestID)
            } else {
                self.eventLoop.execute { self.completed(outcome, for: requestID) }
            }
        }
    }

    /// A database action's outcome, on the loop. When it finished at once (inside `run`), the
    /// running loop goes on with the answer.
    func completed(_ outcome: RequestOutcome, for requestID: RequestID) {
        connection.completed(outcome, for: requestID)
        run()
    }

    // MARK: Closing

    /// Sends a close frame; the TCP connection ends when the client answers it, or after
    /// `closeTimeout` (a client that stopped reading never gets it flushed).
    func closeWebSocket(code: CloseCode, reason: String) {
        guard let context else { return }
        frames.write(
            WebSocketFrameBytes.close(code: code.rawValue, reason: reason, allocator: context.channel.allocator)
        )
        let timeout = TimeAmount.nanoseconds(configuration.closeTimeout.nanoseconds)
        closeTimer = eventLoop.scheduleTask(in: timeout) { [self] in
            if let context = self.context {
                logger.debug("realtime close not answered; dropping the connection")
                context.close(promise: nil)
            }
        }
    }

    /// Echoes the client's close code, then hangs up once it is written.
    func echoClose(code: UInt16?) {
        guard let context else { return }
        let echo = WebSocketFrameBytes.close(code: code, reason: "", allocator: context.channel.allocator)
        let loopBound = NIOLoopBound(context, eventLoop: eventLoop)
        let written = eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
        frames.write(echo, promise: written)
        frames.flush()
    }

    /// Drops the listeners and runs the connection's onDisconnect writes; the hub learns the
    /// connection is gone once they are done.
    func finish(_ registrations: [ListenRegistration]) {
        presence.end(work.context.presence)
        upgrade.ticker.unregister(self)
        for registration in registrations { work.engine.unlisten(registration) }
        let hub = work.context.hub
        let hubID = self.hubID
        self.hubID = nil
        logger.debug("realtime closed")
        if work.engine.onDisconnectCount(connection: work.connection) == 0 {
            if let hubID { hub.unregister(hubID) }
            return
        }
        let work = self.work
        Task {
            await work.engine.runOnDisconnect(connection: work.connection)
            if let hubID { hub.unregister(hubID) }
        }
    }
}
