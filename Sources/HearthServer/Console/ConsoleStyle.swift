/// The console's stylesheet (`/console/style.css`).
enum ConsoleStyle {
    static let css = #"""
        :root { font-family: system-ui, sans-serif; color: #1d232a; background: #f6f7f9; }
        body { margin: 0; }
        [hidden] { display: none !important; }
        header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #20262e; color: #fff; }
        header h1 { font-size: 1.1rem; margin: 0 1rem 0 0; }
        header input { font: inherit; }
        main { padding: 1rem; }
        #sign-in { max-width: 28rem; background: #fff; padding: 1rem 1.5rem; border-radius: 8px; }
        #sign-in input { width: 100%; box-sizing: border-box; padding: .4rem; margin-bottom: .5rem; }
        .split { display: grid; grid-template-columns: minmax(20rem, 1fr) minmax(20rem, 1fr); gap: 1rem; }
        .panel { background: #fff; border-radius: 8px; padding: .5rem 1rem; overflow: auto; }
        nav { display: flex; gap: .25rem; margin-bottom: .5rem; }
        nav button[aria-selected="true"] { background: #20262e; color: #fff; }
        .code-editor { position: relative; height: 28rem; font-family: ui-monospace, monospace; font-size: .85rem; }
        .code-editor pre, .code-editor textarea { position: absolute; inset: 0; margin: 0; padding: .4rem; border: 1px solid #ccd;
          font: inherit; line-height: 1.35; white-space: pre; overflow: auto; box-sizing: border-box; tab-size: 2; }
        .code-editor textarea { color: transparent; background: transparent; caret-color: #1d232a; resize: none; }
        .hl-string { color: #1f6f43; } .hl-key { color: #7a3e9d; } .hl-rule { color: #b3261e; font-weight: 600; }
        .hl-comment { color: #8a929c; font-style: italic; }
        .hl-variable { color: #0b5cad; font-weight: 600; } .hl-member { color: #0b6f85; } .hl-wildcard { color: #a3570a; font-weight: 600; }
        .hl-number, .hl-literal { color: #8b3fb5; } .hl-regex { color: #b0306a; background: #fbeef4; } .hl-op { color: #4a5462; }
        .hl-quote { color: #9aa3ad; } .hl-error { color: #b3261e; text-decoration: underline wavy #b3261e; }
        .diff { background: #f3f4f6; max-height: 16rem; overflow: auto; }
        .form { display: grid; gap: .4rem; } .form input, .form textarea, .form select { width: 100%; box-sizing: border-box; }
        table { border-collapse: collapse; width: 100%; font-size: .85rem; }
        td, th { border-bottom: 1px solid #e3e6ea; padding: 2px 6px; text-align: left; vertical-align: top; }
        .code { font-family: ui-monospace, monospace; }
        tr.deciding { background: #fff3b0; }
        .sim-toggle { padding: 0 .3rem; font-size: .75rem; } tr.deciding-values td { border-left: 3px solid #e0b400; background: #fffbe6; }
        .sim-tree, .sim-tree ul { list-style: none; margin: 0; padding-left: 1.1rem; } .sim-tree { padding-left: .2rem; }
        .sim-part { font-family: ui-monospace, monospace; font-size: .8rem; padding: 1px 0; }
        .sim-value { font-weight: 600; } .value-true { color: #1f6f43; } .value-false { color: #b3261e; }
        .value-error { color: #b3261e; font-style: italic; } .not-evaluated { color: #8a929c; font-weight: 400; font-style: italic; }
        .allowed { color: #1f6f43; font-weight: 600; } .denied { color: #b3261e; font-weight: 600; }
        #health-grid h3 { margin: .5rem 0 .25rem; font-size: 1rem; }
        .health-figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; }
        .health-columns { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(11rem, 15rem); justify-content: start; gap: .75rem; overflow-x: auto; }
        .health-column { display: grid; gap: .5rem; align-content: start; }
        .health-column h3 { font-family: ui-monospace, monospace; word-break: break-all; }
        .health-column .figure { padding: .3rem .6rem; } .health-column .number { font-size: 1.1rem; }
        #users-rows td.code { word-break: break-all; } #users-rows button { font-size: .8rem; padding: 0 .3rem; }
        #users-account th { width: 9rem; color: #6a7380; font-weight: normal; } #users-claims { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; }
        .figure .muted { min-height: 1em; }
        .figure { background: #fff; border-radius: 8px; padding: .5rem .75rem; }
        .figure .number { font-size: 1.4rem; font-weight: 600; }
        .chart { width: 100%; height: 2rem; } .chart polyline { fill: none; stroke: #2456c7; stroke-width: 1.2; vector-effect: non-scaling-stroke; }
        #tree { background: #fff; border-radius: 8px; padding: 0 .5rem; overflow: auto; max-height: 80vh; font-family: ui-monospace, monospace; font-size: .9rem; }
        .tree-spacer { position: relative; } .tree-rows { position: absolute; top: 0; left: 0; right: 0; }
        #editor { background: #fff; border-radius: 8px; padding: .5rem 1rem; }
        #editor h2 { font-size: 1rem; font-family: ui-monospace, monospace; word-break: break-all; }
        #value { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; }
        .node, .more, .note { height: 22px; line-height: 22px; box-sizing: border-box; white-space: nowrap; overflow: hidden; }
        .node { display: flex; gap: .4rem; cursor: pointer; }
        .node:hover, .node.selected { background: #e8eefc; }
        #tree:focus { outline: none; } #tree:focus .focused { outline: 1px dotted #2456c7; outline-offset: -1px; }
        .note { color: #6a7380; }
        .toggle { width: 1rem; display: inline-block; color: #6a7380; }
        .key { color: #7a3e9d; }
        .leaf { color: #1f6f43; overflow: hidden; text-overflow: ellipsis; }
        .more { color: #2456c7; cursor: pointer; }
        .buttons { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
        .danger { color: #b3261e; }
        .error { color: #b3261e; white-space: pre-wrap; }
        .muted { color: #6a7380; font-size: .85rem; }
        .file input { display: none; }
        .file { border: 1px solid #aab; padding: 1px 6px; border-radius: 3px; cursor: pointer; }
        .flash { animation: flash 1s; }
        @keyframes flash { from { background: #fff3b0; } to { background: transparent; } }
        """#
}
