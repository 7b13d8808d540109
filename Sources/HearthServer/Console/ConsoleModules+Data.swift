extension ConsoleModules {
    /// `/console/data.js`: The data view: the tree a page of keys at a time, the selected node live, set, push, delete, export, import.
    static let data = #"""

        // The data view: the tree a page of keys at a time (shallow reads: no request downloads a large
        // subtree), and the selected node's value, followed live, to set, push, delete, export, import.
        import { $, api, stream, url } from "./api.js";

        const pageSize = 50;
        const state = { selected: "/", live: null, dirty: false };

        function child(path, key) { return (path === "/" ? "" : path) + "/" + key; }

        // The tree: each node lists its children a page at a time.
        function nodeRow(path, key, value) {
          const row = document.createElement("div");
          row.className = "node";
          row.setAttribute("role", "treeitem");
          row.dataset.path = path;
          const toggle = document.createElement("span");
          toggle.className = "toggle";
          const isObject = value === true;
          toggle.textContent = isObject ? "▸" : "";
          const label = document.createElement("span");
          label.className = "key";
          label.textContent = key;
          row.append(toggle, label);
          if (!isObject) {
            const leaf = document.createElement("span");
            leaf.className = "leaf";
            leaf.textContent = JSON.stringify(value);
            row.append(leaf);
          }
          const children = document.createElement("div");
          children.className = "children";
          children.hidden = true;
          row.addEventListener("click", async (event) => {
            event.stopPropagation();
            select(path, isObject);
            if (!isObject) return;
            children.hidden = !children.hidden;
            toggle.textContent = children.hidden ? "▸" : "▾";
            if (!children.hidden && !children.dataset.loaded) await loadPage(children, path);
          });
          const wrapper = document.createElement("div");
          wrapper.append(row, children);
          return wrapper;
        }

        async function loadPage(container, path, after) {
          container.dataset.loaded = "1";
          const params = { shallow: "true", limitToFirst: String(pageSize + 1) };
          if (after !== undefined) params.startAfter = JSON.stringify(after);
          let page;
          try { page = await api(path, { params }); } catch (error) { return showError(error); }
          container.querySelector(":scope > .more")?.remove();
          if (page === null || typeof page !== "object") {
            if (after === undefined) container.textContent = page === null ? "(empty)" : JSON.stringify(page);
            return;
          }
          const keys = Object.keys(page);
          const shown = keys.slice(0, pageSize);
          for (const key of shown) container.append(nodeRow(child(path, key), key, page[key]));
          followPage(container, path, shown, page);
          if (keys.length > pageSize) {
            const more = document.createElement("div");
            more.className = "more";
            more.textContent = "more…";
            more.addEventListener("click", (event) => { event.stopPropagation(); loadPage(container, path, keys[pageSize - 1]); });
            container.append(more);
          }
        }

        // A page of leaves is followed live: one query over its key range (leaves only, so no
        // subtree is downloaded); each row's value changes as the data does. Only the last
        // `livePages` pages opened are live: each stream holds one of the browser's few
        // connections to the server.
        const livePages = 2;
        const pageStreams = [];
        function followPage(container, path, shown, page) {
          if (shown.length === 0 || shown.some((key) => page[key] === true)) return;
          while (pageStreams.length >= livePages) pageStreams.shift().abort();
          const range = { orderBy: '"$key"', startAt: JSON.stringify(shown[0]), endAt: JSON.stringify(shown[shown.length - 1]) };
          const rows = new Map(shown.map((key) => [key, container.querySelector(`.node[data-path="${CSS.escape(child(path, key))}"] .leaf`)]));
          const show = (key, value) => {
            const leaf = rows.get(key);
            if (!leaf || value === undefined) return;
            const text = value === null ? "(deleted)" : JSON.stringify(value);
            if (leaf.textContent === text) return;
            leaf.textContent = text;
            leaf.classList.remove("flash");
            void leaf.offsetWidth;
            leaf.classList.add("flash");
          };
          pageStreams.push(stream(url(path, range), (event, change) => {
            const keys = change.path.split("/").filter(Boolean);
            if (keys.length === 0) {
              const data = change.data ?? {};
              for (const key of rows.keys()) if (event === "put" || key in data) show(key, data[key] ?? null);
            } else if (keys.length === 1) {
              show(keys[0], change.data);
            }
          }, () => {}));
        }

        export async function showTree() {
          for (const controller of pageStreams.splice(0)) controller.abort();
          const tree = $("tree");
          tree.textContent = "";
          tree.append(nodeRow("/", "/", true));
          tree.querySelector(".node").click();
        }

        // The editor: the selected node's value (the first page of a large object), kept live.
        async function select(path, isObject) {
          state.selected = path;
          state.dirty = false;
          document.querySelectorAll(".node.selected").forEach((n) => n.classList.remove("selected"));
          document.querySelector(`.node[data-path="${CSS.escape(path)}"]`)?.classList.add("selected");
          $("editor-path").textContent = path;
          $("editor-error").textContent = "";
          follow(path, isObject);
        }

        // An object is followed through a query of its first children (a large one is never
        // downloaded whole); a leaf as it is (a query on a leaf finds no children).
        function follow(path, isObject) {
          state.live?.abort();
          let value = null;
          $("live").textContent = "connecting…";
          const params = isObject ? { orderBy: '"$key"', limitToFirst: String(pageSize) } : {};
          state.live = stream(url(path, params), (event, change) => {
            value = apply(value, change.path, change.data, event === "patch");
            if (!state.dirty) $("value").value = JSON.stringify(value, null, 2);
            $("value").classList.remove("flash");
            void $("value").offsetWidth;
            $("value").classList.add("flash");
          }, (status) => {
            $("live").textContent = status === "live" && isObject ? `live (its first ${pageSize} children)` : status;
          });
        }

        function apply(base, path, data, merge) {
          const keys = path.split("/").filter(Boolean);
          if (keys.length === 0) return merge ? { ...(base ?? {}), ...data } : data;
          const root = base && typeof base === "object" ? { ...base } : {};
          let node = root;
          for (const key of keys.slice(0, -1)) {
            node[key] = node[key] && typeof node[key] === "object" ? { ...node[key] } : {};
            node = node[key];
          }
          const last = keys[keys.length - 1];
          node[last] = merge ? { ...(node[last] ?? {}), ...data } : data;
          if (node[last] === null) delete node[last];
          return root;
        }

        function showError(error) { $("editor-error").textContent = error.message; }

        function editedValue() {
          try { return JSON.stringify(JSON.parse($("value").value)); }
          catch (error) { throw new Error("Not valid JSON: " + error.message); }
        }

        async function run(action) {
          $("editor-error").textContent = "";
          try { await action(); } catch (error) { showError(error); }
        }

        $("value").addEventListener("input", () => { state.dirty = true; });
        $("save").addEventListener("click", () => run(async () => {
          await api(state.selected, { method: "PUT", body: editedValue() });
          state.dirty = false;
        }));
        $("push").addEventListener("click", () => run(async () => {
          const answer = await api(state.selected, { method: "POST", body: editedValue() });
          $("live").textContent = "pushed " + answer.name;
        }));
        $("remove").addEventListener("click", () => run(async () => {
          if (!confirm(`Delete ${state.selected} and everything below it?`)) return;
          await api(state.selected, { method: "DELETE" });
        }));
        $("export").addEventListener("click", () => run(async () => {
          const value = await api(state.selected, { params: { format: "export" } });
          const link = document.createElement("a");
          link.href = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: "application/json" }));
          link.download = (state.selected === "/" ? "root" : state.selected.split("/").pop()) + ".json";
          link.click();
          URL.revokeObjectURL(link.href);
        }));
        $("import").addEventListener("change", (event) => run(async () => {
          const file = event.target.files[0];
          event.target.value = "";
          if (!file) return;
          const text = await file.text();
          JSON.parse(text);
          if (!confirm(`Replace ${state.selected} with ${file.name}?`)) return;
          await api(state.selected, { method: "PUT", body: text });
        }));

        /// Stops following the selected node and the pages of leaves (signing out).
        export function stopData() {
          state.live?.abort();
          for (const controller of pageStreams.splice(0)) controller.abort();
        }
        """#
}
