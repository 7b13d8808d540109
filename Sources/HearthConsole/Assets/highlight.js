// Highlighting of a rules document, as the server reads it: the file is JSON with `//` and
// `/* */` comments (RulesJSON); the values of ".read", ".write" and ".validate" are rule
// expressions, split into tokens as HearthRules' RuleLexer does: identifiers ([A-Za-z_$]
// then digits too), numbers (digits and dots, an exponent), strings in ' or " with
// backslash escapes, a regular expression /.../flags where an operand is expected (at the
// start, or after any punctuation but ")" and "]"), else the operators. The expression is
// lexed from the JSON string's decoded characters (so \" in the file is a quote of the
// expression), each token mapped back to the file's characters it came from.
// highlightRules(text, firstLine, lineCount) answers HTML: the text, escaped, the lines asked
// for in <span class="hl-…"> elements.

const EXPRESSION_KEYS = new Set([".read", ".write", ".validate"]);
const RULE_KEYS = new Set([".read", ".write", ".validate", ".indexOn", ".value", ".priority"]);
const VARIABLES = new Set(["auth", "data", "newData", "root", "now", "query"]);
const LITERALS = new Set(["true", "false", "null"]);
const JSON_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

// The file's tokens: spaces, a comment, a string (raw line breaks allowed, as RulesJSON
// takes them; unterminated runs to the end), a number, a word, any other character.
const FILE_TOKEN = /(\s+)|(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\]|\\[\s\S])*"?)|(-?[0-9][0-9.eE+\-]*)|([A-Za-z_$][\w$]*)|([\s\S])/y;
// Spaces and comments, then ":": the string before is a key.
const COLON_NEXT = /(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*:/y;
// RuleLexer's tokens: spaces, an identifier, a number (with a letter straight after it:
// refused), a string, a punctuation (longest first), "/" (a regex literal or division),
// anything else (refused).
const EXPRESSION_TOKEN = new RegExp([
  /(\s+)/, /([A-Za-z_$][A-Za-z0-9_$]*)/,
  /((?:[0-9]|\.[0-9])[0-9.]*(?:[eE][+\-]?[0-9]*)?)([A-Za-z_$][A-Za-z0-9_$]*)?/,
  /('(?:[^'\\]|\\[\s\S])*'?|"(?:[^"\\]|\\[\s\S])*"?)/,
  /(===|!==|==|!=|<=|>=|&&|\|\||[()[\].,?:!<>+\-*%])/, /(\/)/, /([\s\S])/,
].map((r) => r.source).join("|"), "y");

function escape(text) {
  return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")) : text;
}

/// The HTML of `text` with the lines from `firstLine` on (`lineCount` of them) highlighted;
/// the lines before and after them are left blank: out of view they need only their height
/// (blank lines cost no layout), and a scroll redraws the window (rules.js) before they show. Tokenizing starts at the top (a string or a comment may
/// run across lines) and stops after the window; rule expressions before it are skipped.
export function highlightRules(text, firstLine = 0, lineCount = Infinity) {
  const [from, to] = lineWindow(text, firstLine, lineCount);
  let html = "";
  let pendingKey = null; // the key whose value comes next
  let windowStart = -1, windowEnd = 0;
  FILE_TOKEN.lastIndex = 0;
  let match;
  while (FILE_TOKEN.lastIndex < text.length && (match = FILE_TOKEN.exec(text))) {
    const [token, space, comment, string, number, word] = match;
    const end = FILE_TOKEN.lastIndex, start = end - token.length;
    const shown = end > from;
    if (shown && windowStart < 0) windowStart = start;
    if (space) { if (shown) html += space; }
    else if (comment) { if (shown) html += `<span class="hl-comment">${escape(comment)}</span>`; }
    else if (string) {
      COLON_NEXT.lastIndex = end;
      if (COLON_NEXT.test(text)) {
        const key = decode(text, start, end).text;
        const kind = RULE_KEYS.has(key) ? "rule" : key.startsWith("$") ? "wildcard" : "key";
        if (shown) html += `<span class="hl-${kind}">${escape(string)}</span>`;
        pendingKey = key;
      } else {
        if (shown) html += EXPRESSION_KEYS.has(pendingKey) ? expression(text, start, end) : `<span class="hl-string">${escape(string)}</span>`;
        pendingKey = null;
      }
    } else if (number) { if (shown) html += `<span class="hl-number">${number}</span>`; pendingKey = null; }
    else if (word) { if (shown) html += `<span class="hl-${LITERALS.has(word) ? "literal" : "error"}">${word}</span>`; pendingKey = null; }
    else {
      if (token === "{" || token === "[") pendingKey = null;
      if (shown) html += escape(token);
    }
    if (shown) windowEnd = end;
    if (end >= to) break;
  }
  if (windowStart < 0) return escape(text);
  if (from === 0 && windowEnd >= text.length) return html;
  return blank(text.slice(0, windowStart), text, true) + html + blank(text.slice(windowEnd), text, false);
}

/// `part` of `text` (before the window, or after it) as its line breaks only, but for the
/// piece of it on the window's own first (or last) line; one line as wide as the longest of
/// `text`, so the copy scrolls as far sideways as the editor does.
function blank(part, text, before) {
  const first = part.indexOf("\n");
  if (first < 0) return escape(part);
  const last = part.lastIndexOf("\n");
  const breaks = "\n".repeat(part.split("\n").length - 1);
  let widest = 0;
  for (let at = 0, next; at <= text.length; at = next + 1) {
    next = text.indexOf("\n", at);
    if (next < 0) next = text.length;
    widest = Math.max(widest, next - at);
  }
  const wide = " ".repeat(widest);
  return before ? wide + breaks + escape(part.slice(last + 1)) : escape(part.slice(0, first)) + breaks + wide;
}

/// The characters [from, to) of lines firstLine ..< firstLine + lineCount.
function lineWindow(text, firstLine, lineCount) {
  if (firstLine <= 0 && lineCount === Infinity) return [0, text.length];
  let from = 0, line = 0;
  while (line < firstLine && from >= 0) { from = text.indexOf("\n", from) + 1 || -1; line++; }
  if (from < 0) return [text.length, text.length];
  let to = from;
  for (let n = 0; n < lineCount && to >= 0; n++) to = text.indexOf("\n", to) + 1 || -1;
  return [from, to < 0 ? text.length : to];
}

// The JSON string text[from..<to] (quotes included) decoded: its text, and for each of its
// characters where in the file it starts (`starts[k]`, and `starts[length]` its end).
function decode(text, from, to) {
  const end = to - 1 > from && text[to - 1] === '"' ? to - 1 : to;
  const raw = text.slice(from + 1, end);
  if (!raw.includes("\\")) return { text: raw, starts: null, offset: from + 1 };
  let decoded = "";
  const starts = [];
  let i = from + 1;
  while (i < end) {
    starts.push(i);
    if (text[i] === "\\" && i + 1 < end) {
      const e = text[i + 1];
      const hex = e === "u" ? text.slice(i + 2, i + 6) : "";
      if (/^[0-9a-fA-F]{4}$/.test(hex)) { decoded += String.fromCharCode(parseInt(hex, 16)); i += 6; }
      else { decoded += JSON_ESCAPES[e] ?? e; i += 2; }
    } else { decoded += text[i]; i += 1; }
  }
  starts.push(end);
  return { text: decoded, starts, offset: 0 };
}

// A rule expression: the JSON string text[from..<to], its quotes muted, its tokens
// coloured, each covering the file's characters it was decoded from.
function expression(text, from, to) {
  const { text: source, starts, offset } = decode(text, from, to);
  const at = (k) => (starts ? starts[k] : offset + k);
  let html = `<span class="hl-quote">"</span>`;
  let done = from + 1;
  lexExpression(source, (kind, tokenFrom, tokenTo) => {
    const start = at(tokenFrom), end = at(tokenTo);
    if (start > done) html += escape(text.slice(done, start));
    // Brackets, dots and commas stay plain: fewer elements to lay out.
    html += kind === "punctuation" ? escape(text.slice(start, end)) : `<span class="hl-${kind}">${escape(text.slice(start, end))}</span>`;
    done = end;
  });
  const contentEnd = at(source.length);
  if (contentEnd > done) html += escape(text.slice(done, contentEnd));
  if (to > contentEnd) html += `<span class="hl-quote">${escape(text.slice(contentEnd, to))}</span>`;
  return html;
}

// RuleLexer over an expression's decoded text: `token(kind, from, to)` for each token in
// order (indexes into `source`). What the server would refuse is an "error" token.
export function lexExpression(source, token) {
  let previousKind = null, previousText = null; // "/" is a regex where an operand is expected
  EXPRESSION_TOKEN.lastIndex = 0;
  let match;
  while (EXPRESSION_TOKEN.lastIndex < source.length && (match = EXPRESSION_TOKEN.exec(source))) {
    const [text, space, name, number, badTail, string, punctuation, slash] = match;
    if (space) continue;
    const from = EXPRESSION_TOKEN.lastIndex - text.length;
    let to = EXPRESSION_TOKEN.lastIndex;
    let kind;
    if (name) {
      kind = name.startsWith("$") ? "wildcard"
        : previousText === "." ? "member"
        : VARIABLES.has(name) ? "variable"
        : LITERALS.has(name) ? "literal" : "identifier";
    } else if (number) kind = badTail ? "error" : "number";
    else if (string) kind = string.length > 1 && string.endsWith(string[0]) && !/\\$/.test(string.slice(0, -1).replace(/\\\\/g, "")) ? "string" : "error";
    else if (punctuation) kind = /^[()[\].,]$/.test(punctuation) ? "punctuation" : "op";
    else if (slash) {
      const operand = previousKind === null || ((previousKind === "op" || previousKind === "punctuation") && previousText !== ")" && previousText !== "]");
      if (operand) {
        to = regexEnd(source, from);
        kind = to < 0 ? "error" : "regex";
        if (to < 0) to = source.length;
        EXPRESSION_TOKEN.lastIndex = to;
      } else kind = "op";
    } else kind = "error";
    previousKind = kind;
    previousText = text;
    token(kind, from, to);
  }
}

// The end (after its flags) of the regex literal at `from`, or -1 when it is not closed:
// RuleLexer's scan (a backslash escapes the next character; "/" inside [...] does not close).
function regexEnd(source, from) {
  let i = from + 1, inClass = false;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") { i += 2; continue; }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) {
      i++;
      while (i < source.length && /[a-zA-Z]/.test(source[i])) i++;
      return i;
    }
    i++;
  }
  return -1;
}
