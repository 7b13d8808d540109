/// The console's HTML shell (`GET /`): a sign-in form and the data view, filled in by
/// `ConsoleScript`. No inline script or style (the content security policy forbids them).
enum ConsolePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Hearth console</title>
        <link rel="stylesheet" href="/console/style.css">
        <script type="module" src="/console/app.js"></script>
        </head>
        <body>
        <header>
          <h1>Hearth</h1>
          <label>Database <input id="namespace" value="default" spellcheck="false" size="12"></label>
          <button id="sign-out" hidden>Sign out</button>
        </header>
        <main>
          <form id="sign-in">
            <h2>Sign in</h2>
            <p>The admin secret of this server (printed at start, or <code>--admin-secret</code>). It stays in this tab
            (session storage) and is sent only in the <code>Authorization</code> header.</p>
            <input id="secret" type="password" autocomplete="current-password" placeholder="admin secret" required>
            <button type="submit">Sign in</button>
            <p id="sign-in-error" class="error" role="alert"></p>
          </form>
          <section id="data" hidden>
            <div id="tree" role="tree" aria-label="Data"></div>
            <aside id="editor">
              <h2 id="editor-path">/</h2>
              <p id="live" class="muted"></p>
              <textarea id="value" spellcheck="false" rows="16"></textarea>
              <p id="editor-error" class="error" role="alert"></p>
              <div class="buttons">
                <button id="save">Set value</button>
                <button id="push">Push child</button>
                <button id="remove" class="danger">Delete</button>
                <button id="export">Export JSON</button>
                <label class="file">Import JSON <input id="import" type="file" accept="application/json,.json"></label>
              </div>
            </aside>
          </section>
        </main>
        </body>
        </html>
        """#
}
