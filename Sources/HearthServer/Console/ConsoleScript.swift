/// The console's script (`/console/app.js`, an ES module): signs in with the admin secret (kept
/// in session storage, sent only as `Authorization: Bearer`), browses the tree a page of keys at
/// a time (`shallow=true&limitToFirst&startAfter`: no request downloads a large subtree), edits,
/// pushes, deletes, exports and imports a node through the REST API, and follows the selected
/// node live over Server-Sent Events read with `fetch` (so the secret never goes in a URL).
enum ConsoleScript {
    static let javascript = #"""
        const pageSize = 50;
        const $ = (id) => document.getElementById(id);
        const state = { secret: sessionStorage.getItem("hearth.admin"), selected: "/", live: null, dirty: false };

        function namespace() { return $("namespace").value.trim() || "default"; }

        function url(path, params = {}) {
          const segments = path.split("/").filter(Boolean).map(encodeURIComponent);
          const query = new URLSearchParams({ ns: namespace(), ...params });
          return "/" + segments.join("/") + ".json?" + query;
        }

        async function api(path, { method = "GET", params = {}, body } = {}) {
          const response = await fetch(url(path, params), {
            method,
            headers: { Authorization: "Bearer " + state.secret, "Content-Type": "application/json" },
            body: body === undefined ? undefined : body,
          });
          const text = await response.text();
          let json = null;
          try { json = text ? JSON.parse(text) : null; } catch { json = text; }
          if (!response.ok) throw new Error((json && json.error) || `${response.status} ${response.statusText}`);
          return json;
        }

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
          for (const key of keys.slice(0, pageSize)) container.append(nodeRow(child(path, key), key, page[key]));
          if (keys.length > pageSize) {
            const more = document.createElement("div");
            more.className = "more";
            more.textContent = "more…";
            more.addEventListener("click", (event) => { event.stopPropagation(); loadPage(container, path, keys[pageSize - 1]); });
            container.append(more);
          }
        }

        async function showTree() {
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
          const controller = new AbortController();
          state.live = controller;
          const params = isObject ? { orderBy: '"$key"', limitToFirst: String(pageSize) } : {};
          let value = null;
          $("live").textContent = "connecting…";
          fetch(url(path, params), {
            headers: { Authorization: "Bearer " + state.secret, Accept: "text/event-stream" },
            signal: controller.signal,
          }).then(async (response) => {
            if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = "";
            $("live").textContent = isObject ? "live (its first " + pageSize + " children)" : "live";
            for (;;) {
              const { value: chunk, done } = await reader.read();
              if (done) break;
              buffer += chunk;
              let end;
              while ((end = buffer.indexOf("\n\n")) >= 0) {
                const message = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const event = /^event: (.*)$/m.exec(message)?.[1];
                const data = /^data: (.*)$/m.exec(message)?.[1];
                if (event !== "put" && event !== "patch") continue;
                const change = JSON.parse(data);
                value = apply(value, change.path, change.data, event === "patch");
                if (!state.dirty) $("value").value = JSON.stringify(value, null, 2);
                $("value").classList.remove("flash");
                void $("value").offsetWidth;
                $("value").classList.add("flash");
              }
            }
          }).catch((error) => { if (error.name !== "AbortError") $("live").textContent = "not live: " + error.message; });
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

        // Signing in: the secret is checked with one shallow read before the data view shows.
        async function signIn(secret) {
          state.secret = secret;
          await api("/", { params: { shallow: "true", limitToFirst: "1" } });
          sessionStorage.setItem("hearth.admin", secret);
          $("sign-in").hidden = true;
          $("data").hidden = false;
          $("sign-out").hidden = false;
          showTree();
        }

        $("sign-in").addEventListener("submit", async (event) => {
          event.preventDefault();
          $("sign-in-error").textContent = "";
          try { await signIn($("secret").value); $("secret").value = ""; }
          catch (error) { $("sign-in-error").textContent = "Not signed in: " + error.message; }
        });
        $("sign-out").addEventListener("click", () => {
          sessionStorage.removeItem("hearth.admin");
          state.live?.abort();
          location.reload();
        });
        $("namespace").addEventListener("change", () => { if (!$("data").hidden) showTree(); });
        if (state.secret) signIn(state.secret).catch(() => sessionStorage.removeItem("hearth.admin"));
        """#
}
