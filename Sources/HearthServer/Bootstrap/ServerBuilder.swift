import Hummingbird
import HummingbirdCore

#if canImport(HummingbirdTLS)
    import HummingbirdTLS
    import NIOSSL
#endif

/// HTTP, or HTTPS when a certificate and key are configured.
enum ServerBuilder {
    static func httpServer(_ configuration: HearthServerConfiguration) throws -> HTTPServerBuilder {
        switch (configuration.tlsCertificatePath, configuration.tlsKeyPath) {
        case (nil, nil):
            return .http1()
        case (let certificate?, let key?):
            #if canImport(HummingbirdTLS)
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
                let tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain,
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
                )
                return try .tls(.http1(), tlsConfiguration: tls)
            #else
                _ = (certificate, key)
                throw HearthServerError(
                    "TLS is not available in this build: HearthServer needs the HummingbirdTLS product."
                )
            #endif
        default:
            throw HearthServerError("TLS needs both a certificate (--tls-cert) and a key (--tls-key).")
        }
    }
}
