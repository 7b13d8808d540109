// Highlighting of a storage rules document (`rules_version = '2'; service firebase.storage
// { match /b/{bucket}/o { ... } }`): comments, strings, numbers, the language's keywords, the
// methods after `allow`, the variables (request, resource, database), members after a dot,
// a match's path with its {wildcards}; and the diagnostics' places, each token at a diagnostic's
// line and column underlined with its message as a tooltip.
// highlightStorageRules(text, diagnostics) answers HTML: the text, escaped, in <span class="hl-…">.

const KEYWORDS = new Set(["rules_version", "service", "match", "allow", "function", "let", "return", "if"]);
const METHODS = new Set(["read", "write", "get", "list", "create", "update", "delete"]);
const VARIABLES = new Set(["request", "resource", "database"]);
const LITERALS = new Set(["true", "false", "null"]);
const OPERATORS = new Set(["is", "in"]);
// Spaces, a comment, a string (unterminated: to the end of its line), a number, a word, a
// match's path (a slash after `match`), any other character.
const TOKEN = /(\s+)|(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|('(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?)|([0-9][0-9.]*(?:[eE][+-]?[0-9]+)?)|([A-Za-z_][\w]*)|([\s\S])/y;
const PATH = /\/[^\s]*/y;
// Too long to highlight at every keystroke: shown plain (the diagnostics list still names places).
const limit = 200_000;

function escape(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/// The offset in `text` of 1-based `line` and `column`.
export function offsetOf(text, line, column) {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const end = text.indexOf("\n", offset);
    if (end < 0) return text.length;
    offset = end + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

export function highlightStorageRules(text, diagnostics = []) {
  if (text.length > limit) return escape(text);
  // Each diagnostic's offset, moved off spaces (a mark on a space or a line break would not
  // show): on to the line's next token, else back to the one before.
  const marks = diagnostics.map((d) => {
    let at = offsetOf(text, d.line, d.column);
    while (at < text.length && (text[at] === " " || text[at] === "\t")) at++;
    while (at > 0 && (at >= text.length || /\s/.test(text[at]))) at--;
    return { at, message: `${d.line}:${d.column}: ${d.message}` };
  });
  let html = "";
  let previousWord = "";
  let inAllow = false;
  let afterDot = false;
  TOKEN.lastIndex = 0;
  let match;
  while (TOKEN.lastIndex < text.length && (match = TOKEN.exec(text))) {
    const [token, space, comment, string, number, word] = match;
    const start = TOKEN.lastIndex - token.length;
    let kind = "";
    let shown = token;
    if (space) { html += token; continue; }
    if (comment) kind = "comment";
    else if (string) kind = "string";
    else if (number) kind = "number";
    else if (word) {
      if (afterDot) kind = "member";
      else if (KEYWORDS.has(word)) kind = "rule";
      else if (inAllow && METHODS.has(word)) kind = "key";
      else if (VARIABLES.has(word)) kind = "variable";
      else if (LITERALS.has(word)) kind = "literal";
      else if (OPERATORS.has(word)) kind = "op";
      if (word === "allow") inAllow = true;
    } else if (token === "/" && previousWord === "match") {
      PATH.lastIndex = start;
      shown = PATH.exec(text)[0];
      TOKEN.lastIndex = start + shown.length;
      kind = "path";
    } else {
      if (token === ":" || token === ";") inAllow = false;
      kind = "op";
    }
    afterDot = token === ".";
    if (!comment) previousWord = word ?? "";
    const end = start + shown.length;
    const body = kind === "path" ? path(shown) : escape(shown);
    const classes = kind ? [`hl-${kind}`] : [];
    const here = marks.filter((m) => m.at >= start && m.at < end);
    if (here.length) classes.push("hl-error");
    const title = here.length ? ` title="${escape(here.map((m) => m.message).join("\n"))}"` : "";
    html += classes.length ? `<span class="${classes.join(" ")}"${title}>${body}</span>` : body;
  }
  return html;
}

/// A match's path: its {wildcards} (and {rest=**}) marked.
function path(text) {
  return text.split(/(\{[^}]*\}?)/).map((part) =>
    part.startsWith("{") ? `<span class="hl-wildcard">${escape(part)}</span>` : escape(part)).join("");
}
