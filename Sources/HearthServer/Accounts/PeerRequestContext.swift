import Hummingbird
import Logging
import NIOCore

/// The request context of the server's outer responder: Hummingbird's basic context plus the
/// client's IP address (failed sign-ins are rate limited per address).
struct PeerRequestContext: RequestContext {
    typealias Source = ApplicationRequestContextSource

    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    private let sourceLogger: Logger

    init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.channel = source.channel
        self.sourceLogger = source.logger
    }

    /// What the inner responder's context is made from.
    var source: ApplicationRequestContextSource {
        ApplicationRequestContextSource(channel: channel, logger: sourceLogger)
    }

    /// The peer's IP address, without the port.
    var clientAddress: String? { channel.remoteAddress?.ipAddress }
}
