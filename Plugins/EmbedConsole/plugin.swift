import PackagePlugin

/// Embeds the console's files (the target's `Assets` folder: HTML, CSS, JavaScript) in the binary: one
/// build command runs `ConsoleEmbedder` over them into a Swift file of the target, and runs again
/// whenever one of them changes (they are its inputs). The plugin runs at every build, so a file
/// added to or taken from the folder is picked up too.
@main
struct EmbedConsole: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let folder = module.directoryURL.appending(path: "Assets")
        let inputs = module.sourceFiles
            .map(\.url)
            .filter { $0.path.hasPrefix(folder.path + "/") }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleAsset+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding the console's \(inputs.count) files",
                executable: try context.tool(named: "ConsoleEmbedder").url,
                arguments: [folder.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
