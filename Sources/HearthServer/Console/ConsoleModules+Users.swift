extension ConsoleModules {
    /// `/console/users.js`: The users view: accounts a page at a time, search, disable and enable, set a password, delete, profile.
    static let users = #"""
        // The users view: every account a page at a time (accounts:batchGet), found by e-mail or uid,
        // disabled and enabled, given a new password, deleted; each one's profile in the database.
        import { $, call, element, url } from "./api.js";

        const base = "/identitytoolkit.googleapis.com/v1/accounts:";
        let next = null;

        export async function showUsers() {
          $("users-rows").textContent = "";
          next = null;
          await more();
        }

        async function more() {
          const query = new URLSearchParams({ maxResults: "100" });
          if (next) query.set("nextPageToken", next);
          const page = await call(base + "batchGet?" + query);
          for (const user of page.users ?? []) $("users-rows").append(row(user));
          next = page.nextPageToken ?? null;
          $("users-more").hidden = !next;
          filter();
        }

        function row(user) {
          const post = (operation, body) => call(base + operation, { method: "POST", body: JSON.stringify(body) });
          const tr = element("tr", { "data-uid": user.localId, "data-email": user.email ?? "" },
            element("td", { class: "code" }, user.localId),
            element("td", {}, user.email ?? ""),
            element("td", {}, user.disabled ? "disabled" : "active"),
            element("td", {}, user.createdAt ? new Date(Number(user.createdAt)).toLocaleString() : ""),
            element("td", {},
              element("button", { onclick: () => act(() => post("update", { localId: user.localId, disableUser: !user.disabled })) },
                user.disabled ? "enable" : "disable"), " ",
              element("button", { onclick: () => {
                const password = prompt(`New password for ${user.email ?? user.localId}`);
                if (password) act(() => post("update", { localId: user.localId, password }));
              } }, "set password"), " ",
              element("button", { class: "danger", onclick: () => {
                if (confirm(`Delete the account ${user.email ?? user.localId}?`)) act(() => post("delete", { localId: user.localId }));
              } }, "delete"), " ",
              element("button", { onclick: () => profile(user) }, "profile")));
          return tr;
        }

        async function act(action) {
          $("users-error").textContent = "";
          try { await action(); await showUsers(); } catch (error) { $("users-error").textContent = error.message; }
        }

        async function profile(user) {
          try {
            const value = await call(url("/users/" + user.localId));
            $("users-profile").textContent = `${user.email ?? user.localId}\n` + JSON.stringify({ account: user, profile: value }, null, 2);
          } catch (error) { $("users-error").textContent = error.message; }
        }

        function filter() {
          const text = $("users-search").value.trim().toLowerCase();
          for (const tr of $("users-rows").children) {
            tr.hidden = Boolean(text) && !tr.dataset.uid.toLowerCase().includes(text) && !tr.dataset.email.includes(text);
          }
        }

        $("users-search").addEventListener("input", filter);
        $("users-more").addEventListener("click", () => more().catch((e) => { $("users-error").textContent = e.message; }));
        """#
}
