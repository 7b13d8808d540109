import Foundation
import Testing

@testable import HearthServer

/// One watcher for the rules folder: each poll lists the folder and looks only at the rules
/// files there, however many namespaces are loaded; files of loaded namespaces that change,
/// appear or go are still seen.
struct RulesFolderWatchTests {
    @Test func theFolderListingFindsTheRulesFilesOfNamespaces() async throws {
        try await RegistryFixture.with { fixture in
            let folder = fixture.directory.appendingPathComponent("rules")
            for name in ["database.rules.json", "shop.rules.json", "notes.txt", "bad.name.rules.json", "x.json"] {
                try "{}".write(to: folder.appendingPathComponent(name), atomically: false, encoding: .utf8)
            }
            let stamps = fixture.files.stamps()
            #expect(Set(stamps.keys) == ["default", "database", "shop"])
            #expect(stamps["shop"] == fixture.files.stamp(for: "shop"))
            #expect(stamps["default"] == fixture.files.stamp(for: "default"))
        }
    }

    @Test func manyNamespacesWithoutFilesAndOneEditedFile() async throws {
        try await RegistryFixture.with { fixture in
            for index in 0..<300 { _ = try await fixture.registry.program(for: "n\(index)") }
            try fixture.write(RulesReloadTests.plain, namespace: "n7")
            await fixture.registry.poll()
            #expect(fixture.registry.loadedProgram(for: "n7")?.source.text == RulesReloadTests.plain)
            try fixture.write(RulesReloadTests.indexed, namespace: "n7")
            await fixture.registry.poll()
            await fixture.registry.poll()
            #expect(fixture.registry.loadedProgram(for: "n7")?.source.text == RulesReloadTests.indexed)
            try FileManager.default.removeItem(atPath: fixture.files.path(for: "n7"))
            await fixture.registry.poll()
            #expect(fixture.logs.records().filter { $0.message.hasPrefix("rules file deleted") }.count == 1)
            #expect(fixture.registry.loadedProgram(for: "n7")?.source.text == RulesReloadTests.indexed)
            let installed = fixture.installs().filter { $0.namespace == "n7" }.map(\.text)
            #expect(installed == [RulesFiles.defaultDocument, RulesReloadTests.plain, RulesReloadTests.indexed])
            #expect(fixture.installs().count == 302)
        }
    }
}
