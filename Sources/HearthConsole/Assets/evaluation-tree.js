// The value of every part of a rule's expression, as a tree (the simulators' `evaluation`, of
// the database rules and of the storage rules alike): a part's text = its value, its own parts
// below it; short-circuited parts greyed, errors, true and false coloured.
import { element } from "./api.js";

/// One part of an expression: its text = its value, then its own parts below it.
export function part(node) {
  const line = element("div", { class: "sim-part", title: `line ${node.line}, column ${node.column}` },
    element("code", {}, node.text), " = ", element("span", { class: "sim-value " + valueClass(node) }, node.shown));
  const item = element("li", {}, line);
  if (node.children.length) item.append(element("ul", {}, ...node.children.map(part)));
  return item;
}

function valueClass(node) {
  if (!node.evaluated) return "not-evaluated";
  if (node.type === "error") return "value-error";
  if (node.type === "boolean") return node.value ? "value-true" : "value-false";
  return "";
}

/// The row under a rule that holds the tree of its `evaluation` (hidden until its toggle opens
/// it), and that toggle; both null when the entry has no evaluation. Opened at first when `open`.
export function evaluationRow(entry, deciding, open) {
  if (!entry.evaluation) return { values: null, toggle: "" };
  const values = element("tr", { class: deciding ? "sim-values deciding-values" : "sim-values" },
    element("td", { colspan: "5" }, element("ul", { class: "sim-tree" }, part(entry.evaluation))));
  const toggle = element("button", { class: "sim-toggle", title: "the value of each part", "aria-expanded": "false" }, "▸");
  const show = (shown) => {
    values.hidden = !shown;
    toggle.textContent = shown ? "▾" : "▸";
    toggle.setAttribute("aria-expanded", String(shown));
  };
  toggle.addEventListener("click", () => show(values.hidden));
  show(open);
  return { values, toggle };
}
