import Hummingbird
import HummingbirdCore

#if canImport(HummingbirdTLS)
import HummingbirdTLS
import NIOSSL
#endif

/// HTTP, or HTTPS when a certificate and key are configured, with the realtime WebSocket
/// (`/.ws?v=5`) upgrade on the same port.
enum ServerBuilder {
    static func httpServer(
        _ configuration: HearthServerConfiguration,
        realtime: RealtimeEndpoint,
        relays: ClusterRESTRelays,
        directWrites: DirectRESTWrites,
        cap: ConnectionCap
    ) throws -> HTTPServerBuilder {
        let maxFrameBytes = configuration.realtime.maxFrameBytes
        let connections = configuration.connections
        let plain = configuration.tlsCertificatePath == nil
        let http1 = HTTPServerBuilder { responder in
            RealtimeChildChannel(
                responder: responder,
                endpoint: realtime,
                relays: relays,
                directWrites: directWrites,
                maxFrameBytes: maxFrameBytes,
                connections: connections,
                cap: cap,
                answersRefusals: plain,
                unacknowledgedTimeout: configuration.realtime.livenessTimeout
            )
        }
        switch (configuration.tlsCertificatePath, configuration.tlsKeyPath) {
        case (nil, nil):
            return http1
        case (let certificate?, let key?):
            #if canImport(HummingbirdTLS)
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain,
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            )
            return try .tls(http1, tlsConfiguration: tls)
            #else
            _ = (certificate, key, http1)
            throw HearthServerError(
                "TLS is not available in this build: HearthServer needs the HummingbirdTLS product."
            )
            #endif
        default:
            throw HearthServerError("TLS needs both a certificate (--tls-cert) and a key (--tls-key).")
        }
    }
}
