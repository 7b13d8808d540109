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
          <div id="views" hidden>
            <nav role="tablist">
              <button id="tab-data" role="tab">Data</button>
              <button id="tab-rules" role="tab">Rules</button>
              <button id="tab-users" role="tab">Users</button>
              <button id="tab-health" role="tab">Health</button>
            </nav>
            <p id="app-error" class="error" role="alert"></p>
            <section id="view-data" class="split">
              <div id="tree" role="tree" aria-label="Data" tabindex="0"></div>
              <aside id="editor" class="panel">
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
            <section id="view-rules" class="split" hidden>
              <div class="panel">
                <div class="buttons"><button id="rules-publish">Publish</button> <span id="rules-status" class="muted"></span></div>
                <div class="code-editor">
                  <pre id="rules-highlight" aria-hidden="true"></pre>
                  <textarea id="rules-text" spellcheck="false" aria-label="Rules document"></textarea>
                </div>
                <ul id="rules-diagnostics"></ul>
                <h3>Published versions</h3>
                <ul id="rules-history"></ul>
                <pre id="rules-diff" class="diff"></pre>
              </div>
              <div class="panel">
                <h3>Simulator</h3>
                <div class="form">
                  <label>Operation <select id="sim-op"><option>read</option><option>write</option><option>update</option></select></label>
                  <label>Path <input id="sim-path" value="/" spellcheck="false"></label>
                  <label>Auth (a uid, or JSON; empty: signed out) <input id="sim-auth" spellcheck="false"></label>
                  <label>Value (JSON, for a write or update) <textarea id="sim-value" rows="4" spellcheck="false"></textarea></label>
                  <label><input id="sim-draft" type="checkbox"> with the draft above instead of the rules in force</label>
                  <button id="sim-run">Simulate</button>
                </div>
                <p id="sim-error" class="error" role="alert"></p>
                <p id="sim-decision"></p>
                <table><thead><tr><th>rule</th><th>at</th><th>line</th><th>expression</th><th>outcome</th></tr></thead>
                <tbody id="sim-trace"></tbody></table>
              </div>
            </section>
            <section id="view-users" class="split" hidden>
              <div class="panel">
                <div class="buttons"><input id="users-search" placeholder="search: the start of an e-mail or uid" spellcheck="false" size="32">
                  <span id="users-status" class="muted"></span></div>
                <p id="users-error" class="error" role="alert"></p>
                <table><thead><tr><th>uid</th><th>e-mail</th><th>state</th><th>created</th><th></th></tr></thead>
                <tbody id="users-rows"></tbody></table>
                <button id="users-more" hidden>more…</button>
              </div>
              <aside id="users-detail" class="panel" hidden>
                <h3 id="users-title"></h3>
                <table><tbody id="users-account"></tbody></table>
                <h4>Custom claims <span class="muted">(a JSON object, at most 1,000 bytes; in the ID tokens issued from now on, as <code>auth.token.…</code>)</span></h4>
                <textarea id="users-claims" rows="5" spellcheck="false" aria-label="Custom claims"></textarea>
                <div class="buttons"><button id="users-claims-save">Set claims</button> <span id="users-claims-status" class="muted"></span></div>
                <p id="users-claims-error" class="error" role="alert"></p>
                <h4>Profile in this database <span class="muted" id="users-profile-path"></span></h4>
                <pre id="users-profile"></pre>
              </aside>
            </section>
            <section id="view-health" hidden>
              <p id="health-error" class="error" role="alert"></p>
              <div id="health-grid"></div>
            </section>
          </div>
        </main>
        </body>
        </html>
        """#
}
