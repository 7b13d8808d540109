// The console's keyboard shortcuts (listed in the dialog that ? opens): 1-5 the views, D the
// database picker, / the tree, the search or the files list, B the bucket, U an upload and R a
// refresh in the files view, Esc out of a text field. Keys typed in a text field are left to it;
// each editor's Ctrl+Enter is bound where the editor is (api.js onSubmitKey).
import { $, typing } from "./api.js";

/// `show(view)` switches views; `current()` names the one shown.
export function initShortcuts(show, current) {
  const views = ["data", "rules", "users", "health", "files"];
  document.addEventListener("keydown", (event) => {
    if ($("views").hidden || $("shortcuts").open) return;
    if (typing(event)) {
      if (event.key === "Escape" && event.target.id !== "namespace") event.target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    switch (event.key) {
      case "?": $("shortcuts").showModal(); break;
      case "1": case "2": case "3": case "4": case "5": show(views[Number(event.key) - 1]); break;
      case "d": case "D": {
        const picker = $("namespace");
        picker.focus();
        try { picker.showPicker(); } catch { /* focused is enough */ }
        break;
      }
      case "/":
        if (current() === "users") $("users-search").focus();
        else if (current() === "data") $("tree").focus();
        else if (current() === "files" && !$("files-browse").hidden) $("files-rows").focus();
        else return;
        break;
      case "b": case "B":
        if (current() !== "files") return;
        $("files-bucket").focus();
        $("files-bucket").select();
        break;
      case "u": case "U":
        if (current() !== "files" || $("files-browse").hidden) return;
        $("files-input").click();
        break;
      case "r": case "R":
        if (current() !== "files" || $("files-browse").hidden) return;
        $("files-refresh").click();
        break;
      default: return;
    }
    event.preventDefault();
  });
  $("shortcuts-open").addEventListener("click", () => $("shortcuts").showModal());
  $("shortcuts-close").addEventListener("click", () => $("shortcuts").close());
  // A click on the backdrop (outside the dialog's box) closes it.
  $("shortcuts").addEventListener("click", (event) => { if (event.target === $("shortcuts")) $("shortcuts").close(); });
}
