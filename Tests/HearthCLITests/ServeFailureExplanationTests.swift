import HearthCore
import HearthServer
import HearthStore
import Testing

@testable import HearthCLI

/// `hearth serve` explains the failures users cause by the error's type and code, never by its text.
struct ServeFailureExplanationTests {
    static func settings() throws -> ServeSettings {
        let command = try ServeCommand.parse(["--port", "9123", "--data", "here"])
        return try ServeSettings.resolve(command, environment: Environment([:])) { "generated" }
    }

    @Test func aTakenAddressIsExplained() throws {
        let error = HearthServerError(.addressInUse, "bind failed")
        let explained = ServeCommand.explain(error, settings: try Self.settings())
        #expect(explained.code == .serve)
        #expect(
            explained.message
                == "Cannot listen on 127.0.0.1:9123: the address is already in use (is another server running?); "
                + "choose another '--port'."
        )
    }

    @Test func aDataDirectoryInUseIsExplainedWhicheverDatabaseFoundIt() throws {
        let settings = try Self.settings()
        let accounts = HearthServerError(.dataDirectoryInUse, "DATABASE_IN_USE : ...")
        let store = StoreError(.locked, "...")
        for error in [accounts, store] as [any Error] {
            let explained = ServeCommand.explain(error, settings: settings)
            #expect(explained.code == .dataDirectoryInUse)
            #expect(explained.message.hasPrefix("The data directory 'here' is in use by another Hearth server"))
        }
    }

    @Test func anErrorThatOnlySaysSoIsNotMistakenForIt() throws {
        let settings = try Self.settings()
        let lookalikes: [any Error] = [
            HearthServerError("bind(descriptor:ptr:bytes:): Address already in use (errno: 98)"),
            StoreError(.io, "IO error: lock /x/LOCK: Resource temporarily unavailable"),
        ]
        for error in lookalikes {
            let explained = ServeCommand.explain(error, settings: settings)
            #expect(explained.code == .serve)
            #expect(explained.message.hasPrefix("The server stopped: "))
        }
    }
}
