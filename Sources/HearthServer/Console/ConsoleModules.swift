/// The console's JavaScript modules, by the name they are served under (`/console/<name>.js`);
/// each one's text is in its own file (`ConsoleModules+Name.swift`). Plain ES modules: no build
/// step, nothing fetched from elsewhere.
enum ConsoleModules {
    static let all: [String: String] = [
        "api": api, "app": app, "data": data, "rules": rules, "simulator": simulator, "users": users,
        "health": health, "tree": tree, "tree-pages": treePages, "highlight": highlight,
    ]
}
