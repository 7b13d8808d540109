#!/usr/bin/env python3
"""Drives the web console (GET /) in headless Chromium over the DevTools protocol against a
running Hearth server on loopback, step by step, with a screenshot of each step.

    python3 scripts/console-check/check.py --port 9000 --admin-secret S [--chromium chromium] [--shots DIR]

Needs Debian's `chromium` and the PyPI package `websockets`. Writes data under /console-check
in the default namespace, publishes rules there, signs up accounts, uploads files to the bucket
console-check.appspot.com and saves storage rules: run it against a server of its own, started
with `--project-id console-check` and a copy of rules/storage.rules (run.sh does). Exit 1 when a step fails; the screenshots' folder is printed.
"""
import argparse, asyncio, base64, json, os, signal, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request

import websockets

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=9000)
parser.add_argument("--admin-secret", required=True)
parser.add_argument("--chromium", default="chromium")
parser.add_argument("--shots", default=None, help="folder for the screenshots (default: a new temporary one)")
parser.add_argument("--timeout", type=float, default=15)
args = parser.parse_args()
base = f"http://127.0.0.1:{args.port}"
shots = args.shots or tempfile.mkdtemp(prefix="hearth-console-")
os.makedirs(shots, exist_ok=True)


def sign_up(email):
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=check", method="POST",
                                     data=json.dumps({"email": email, "password": "secret1"}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["localId"]


def account(uid):
    request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:lookup", method="POST",
                                     data=json.dumps({"localId": [uid]}).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {args.admin_secret}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["users"][0]


def rest(method, path, body=None):
    request = urllib.request.Request(f"{base}{path}.json", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {args.admin_secret}"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"null")


def rest_in(namespace, method, path, body=None):
    request = urllib.request.Request(f"{base}{path}.json?ns={namespace}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {args.admin_secret}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"null")


def storage(method, name):
    """The object `name` of the check's bucket (its metadata, by Firebase's client API); None when there is none."""
    request = urllib.request.Request(f"{base}/v0/b/console-check.appspot.com/o/{urllib.parse.quote(name, safe='')}", method=method,
                                     headers={"Authorization": f"Bearer {args.admin_secret}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def storage_upload(name, data, content_type="text/plain"):
    request = urllib.request.Request(f"{base}/v0/b/console-check.appspot.com/o?name={urllib.parse.quote(name, safe='')}",
                                     method="POST", data=data,
                                     headers={"Authorization": f"Bearer {args.admin_secret}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def storage_rules_text():
    request = urllib.request.Request(f"{base}/.settings/storage.rules", headers={"Authorization": f"Bearer {args.admin_secret}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


class Page:
    def __init__(self, socket):
        self.socket, self.next_id = socket, 0

    async def call(self, method, **params):
        self.next_id += 1
        await self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(await self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def eval(self, expression):
        result = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    async def wait(self, expression, what):
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            if await self.eval(expression):
                return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"timed out waiting for {what}")

    async def shot(self, name):
        data = (await self.call("Page.captureScreenshot", format="png"))["data"]
        with open(os.path.join(shots, name + ".png"), "wb") as file:
            file.write(base64.b64decode(data))


async def steps(page):
    results = []

    async def step(name, body):
        try:
            await body()
            results.append((True, name))
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next step runs
            results.append((False, f"{name}: {error}"))
        await page.shot(f"{len(results):02d}-{name.replace(' ', '-')}")

    rest("PUT", "/console-check", {"greeting": "hello", "items": {f"k{n:06d}": n for n in range(100_000)}})
    # A second database, for the picker to list.
    rest_in("console-check-b", "PUT", "/picked", {"by": "the database picker"})

    def key(name):
        return page.eval(f"document.body.dispatchEvent(new KeyboardEvent('keydown', {{key: {json.dumps(name)}, bubbles: true}}))")

    def pick(namespace):
        return page.eval("{ const s = document.getElementById('namespace'); s.value = " + json.dumps(namespace) + ";"
                         " s.dispatchEvent(new Event('change')); }")

    async def sign_in_refused():
        await page.call("Page.navigate", url=base + "/")
        await page.wait("document.readyState === 'complete' && !!document.getElementById('secret')", "the page")
        await page.wait("performance.getEntriesByName('first-contentful-paint').length > 0", "the first paint")
        painted = await page.eval("performance.getEntriesByName('first-contentful-paint')[0].startTime")
        moved = await page.eval("performance.getEntriesByType('resource').reduce((t, e) => t + e.transferSize, 0)"
                                " + performance.getEntriesByType('navigation')[0].transferSize")
        print(f"figure: the console's first contentful paint {painted:.0f} ms after navigation, {moved} bytes transferred",
              flush=True)
        if await page.eval("performance.getEntriesByType('resource').some(e => e.name.endsWith('/console/files.js'))"):
            raise RuntimeError("the files view's module loaded before the view was opened")
        await page.eval("document.getElementById('secret').value = 'wrong'; document.getElementById('sign-in').requestSubmit()")
        await page.wait("document.getElementById('sign-in-error').textContent.includes('Not signed in')", "the refusal")
        await page.wait("!!document.querySelector('#sign-in-error .hint')?.textContent.includes('admin secret')", "what to do")

    async def sign_in():
        await page.eval(f"document.getElementById('secret').value = {json.dumps(args.admin_secret)};"
                        "document.getElementById('sign-in').requestSubmit()")
        await page.wait("!document.getElementById('views').hidden", "the data view")
        await page.wait("[...document.querySelectorAll('.key')].some(k => k.textContent === 'console-check')", "the root's keys")
        secret_in_urls = await page.eval("performance.getEntriesByType('resource').some(e => e.name.includes('auth='))")
        if secret_in_urls:
            raise RuntimeError("a request carried the secret in its URL")

    async def page_through():
        await page.eval("[...document.querySelectorAll('.node')].find(n => n.dataset.path === '/console-check').click()")
        await page.wait("!!document.querySelector('.node[data-path=\"/console-check/items\"]')", "console-check's children")
        await page.eval("document.querySelector('.node[data-path=\"/console-check/items\"]').click()")
        await page.wait("document.querySelectorAll('.node[data-path^=\"/console-check/items/\"]').length === 50", "the first page")
        for pages in (2, 3):
            await page.eval("document.querySelector('.more').click()")
            await page.wait(f"document.querySelectorAll('.node[data-path^=\"/console-check/items/\"]').length === {50 * pages}",
                            f"page {pages}")
        last = await page.eval("[...document.querySelectorAll('.node[data-path^=\"/console-check/items/\"]')].pop().dataset.path")
        if last != "/console-check/items/k000149":
            raise RuntimeError(f"the third page ends at {last}")
        # A page of leaves is live: a value written by REST shows in its row.
        rest("PUT", "/console-check/items/k000060", "written by REST")
        await page.wait("document.querySelector('.node[data-path=\"/console-check/items/k000060\"] .leaf')"
                        ".textContent === '\"written by REST\"'", "the row's live value")
        moved = await page.eval("performance.getEntriesByType('resource').filter(e => e.name.includes('items.json'))"
                                ".reduce((total, e) => total + e.transferSize, 0)")
        if moved > 100_000:
            raise RuntimeError(f"{moved} bytes moved to show 150 of 100,000 children")

    async def live_value():
        await page.eval("document.querySelector('.node[data-path=\"/console-check/greeting\"]').click()")
        await page.wait("document.getElementById('value').value === '\"hello\"'", "the greeting in the editor")
        rest("PUT", "/console-check/greeting", "changed by REST")
        await page.wait("document.getElementById('value').value === '\"changed by REST\"'", "the live change")

    async def edit_value():
        await page.eval("{ const v = document.getElementById('value'); v.value = '{\"edited\": true}';"
                        "v.dispatchEvent(new Event('input')); document.getElementById('save').click() }")
        deadline = time.monotonic() + args.timeout
        while rest("GET", "/console-check/greeting") != {"edited": True}:
            if time.monotonic() > deadline:
                raise RuntimeError("the edit did not reach the server")
            await asyncio.sleep(0.1)

    async def invalid_json_is_refused():
        await page.eval("{ const v = document.getElementById('value'); v.value = '{nope'; document.getElementById('save').click() }")
        await page.wait("document.getElementById('editor-error').textContent.startsWith('Not valid JSON')", "the JSON error")
        await page.wait("!!document.querySelector('#editor-error .hint')?.textContent.includes('double quotes')", "what to do")

    def set_rules_text(text):
        return page.eval("{ const t = document.getElementById('rules-text'); t.value = " + json.dumps(text) + ";"
                         "t.dispatchEvent(new Event('input')); }")

    async def rules_diagnostic():
        await page.eval("window.confirm = () => true; window.prompt = () => 'changed1'; document.getElementById('tab-rules').click()")
        await page.wait("document.getElementById('rules-text').value.includes('rules')", "the rules document")
        await set_rules_text('{"rules": {\n  ".read": "auht != null"}}')
        await page.wait("document.getElementById('rules-diagnostics').textContent.includes(\"2:13: unknown variable 'auht'\")",
                        "the diagnostic at line 2, column 13")
        if not await page.eval("document.getElementById('rules-publish').disabled"):
            raise RuntimeError("a document with errors can be published")

    async def rules_publish_and_roll_back():
        await page.eval("document.getElementById('rules-diff').textContent = ''")
        await set_rules_text('{"rules": {".read": true, ".write": true, "n": {".validate": "newData.isNumber()"}}}')
        await page.wait("!document.getElementById('rules-publish').disabled", "a valid draft")
        await page.eval("document.getElementById('rules-publish').click()")
        await page.wait("document.getElementById('rules-status').textContent === 'in force'", "the published rules in force")
        await page.wait("document.querySelectorAll('#rules-history li').length >= 2", "two versions")
        await page.eval("document.querySelector('#rules-history li:last-child button').click()")
        await page.wait("document.getElementById('rules-diff').textContent.includes('+ ')", "a diff")
        await page.eval("document.querySelectorAll('#rules-history li:last-child button')[1].click()")
        await page.wait("document.querySelectorAll('#rules-history li').length >= 3", "the rollback as a new version")

    async def simulate_refusal():
        await set_rules_text('{"rules": {".read": true, ".write": true, "n": {".validate": "newData.isNumber()"}}}')
        await page.eval("document.getElementById('sim-op').value = 'write'; document.getElementById('sim-path').value = '/n';"
                        "document.getElementById('sim-auth').value = 'amy'; document.getElementById('sim-value').value = '\"text\"';"
                        "document.getElementById('sim-draft').checked = true; document.getElementById('sim-run').click()")
        await page.wait("document.getElementById('sim-decision').textContent.startsWith('denied by /rules/n/.validate')",
                        "the deciding rule")
        await page.wait("document.querySelector('#sim-trace tr.deciding')?.textContent.includes('newData.isNumber()')",
                        "the deciding row in the trace")

    async def disable_user():
        uid = sign_up(f"console{int(time.time())}@example.com")
        await page.eval("document.getElementById('tab-users').click()")
        await page.wait(f"!!document.querySelector('tr[data-uid=\"{uid}\"]')", "the new account in the list")
        await page.eval(f"document.querySelector('tr[data-uid=\"{uid}\"] button').click()")
        await page.wait(f"document.querySelector('tr[data-uid=\"{uid}\"]')?.textContent.includes('disabled')", "the disabled state")
        if not account(uid).get("disabled"):
            raise RuntimeError("the server does not say the account is disabled")

    async def health():
        await page.eval("document.getElementById('tab-health').click()")
        await page.wait("[...document.querySelectorAll('.figure')].some(f => f.dataset.name === 'default: writes/s' && "
                        "!f.textContent.includes('…'))", "the database's writes/s after two samples")
        await page.wait("[...document.querySelectorAll('.figure')].some(f => f.dataset.name === 'default: listeners' && "
                        "Number(f.querySelector('.number').textContent) >= 1)", "the data view's live listener")

    async def simulate_values():
        # A denied read: the values of the parts of the rule show under it, one short-circuited.
        rest("PUT", "/console-check-sim/d1", {"owner": "amy"})
        await page.eval("document.getElementById('rules-text').value = ''; document.getElementById('tab-rules').click()")
        await page.wait("document.getElementById('rules-text').value.includes('rules')", "the rules document")
        await set_rules_text('{"rules": {"console-check-sim": {"$id": {".read": '
                             '"auth.uid === \'admin\' && data.exists() || data.child(\'owner\').val() === auth.uid"}}}}')
        await page.eval("document.getElementById('sim-op').value = 'read'; document.getElementById('sim-path').value = '/console-check-sim/d1';"
                        "document.getElementById('sim-auth').value = 'bob'; document.getElementById('sim-draft').checked = true;"
                        "document.getElementById('sim-run').click()")
        await page.wait("document.getElementById('sim-decision').textContent.startsWith('denied: no rule granted access')",
                        "the denied read")
        part = ("[...document.querySelectorAll('#sim-trace tr.sim-values:not([hidden]) .sim-part')]"
                ".some(p => p.textContent === {})")
        await page.wait(part.format(json.dumps("data.child('owner').val() = \"amy\"")), "the value of data.child('owner').val()")
        await page.wait(part.format(json.dumps("data.exists() = not evaluated")), "a short-circuited part")
        # The rule's values fold and unfold.
        await page.eval("document.querySelector('#sim-trace .sim-toggle').click()")
        await page.wait("document.querySelector('#sim-trace tr.sim-values').hidden", "the values folded")
        await page.eval("document.querySelector('#sim-trace .sim-toggle').click()")
        await page.wait("!document.querySelector('#sim-trace tr.sim-values').hidden", "the values unfolded")
        rest("DELETE", "/console-check-sim")

    items_row = "document.querySelector('.node[data-path=\"/console-check/items\"]')"
    items_rows = "document.querySelectorAll('.node[data-path^=\"/console-check/items/\"]')"

    def press(key):
        return page.eval(f"document.getElementById('tree').dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', bubbles: true}}))")

    async def tree_keyboard():
        # A fresh tree (the data tab shows it again): arrows move, → expands, Enter opens in the editor.
        await page.eval("document.getElementById('tab-data').click()")
        await page.wait("!!document.querySelector('.node[data-path=\"/console-check\"]')", "the root's keys")
        await page.eval("performance.setResourceTimingBufferSize(10000); document.getElementById('tree').focus()")
        await press("ArrowDown")
        await press("ArrowRight")
        await page.wait(f"!!{items_row}", "console-check expanded by →")
        await press("ArrowDown")
        await press("ArrowDown")
        await page.wait(f"{items_row}?.classList.contains('focused')", "the focus on /console-check/items")
        result = await page.eval("""(async () => {
          performance.clearResourceTimings();
          const started = performance.now();
          document.getElementById('tree').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
          const rows = () => document.querySelectorAll('.node[data-path^="/console-check/items/"]').length;
          while (rows() < 50 && performance.now() - started < 15000) await new Promise((done) => setTimeout(done, 2));
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
          const pages = performance.getEntriesByType('resource').filter(e => e.name.includes('items.json'));
          const bytes = pages.reduce((total, e) => total + e.transferSize, 0);
          const request = pages.find(e => e.name.includes('shallow=true'));
          return { shown: rows(), elapsed: performance.now() - started, bytes,
                   request: request ? request.responseEnd - request.startTime : -1 };
        })()""")
        if result["shown"] < 50:
            raise RuntimeError(f"{result['shown']} rows of items after Enter")
        await page.wait("document.getElementById('editor-path').textContent === '/console-check/items'", "items in the editor")
        print(f"figure: first page of 100,000 children shown in {result['elapsed']:.0f} ms after Enter "
              f"(its shallow read: {result['request']:.0f} ms), {result['bytes']} bytes (the finished requests on items: "
              f"the shallow page; the live streams are counted when they end)", flush=True)

    async def scroll_far():
        # Scrolling loads further pages on demand; the DOM keeps a bounded number of rows.
        await page.eval("performance.setResourceTimingBufferSize(10000); performance.clearResourceTimings()")
        result = await page.eval("""(async () => {
          const tree = document.getElementById('tree');
          const target = '.node[data-path="/console-check/items/k005000"]';
          const started = performance.now();
          for (let i = 0; i < 5000 && !document.querySelector(target); i++) {
            tree.scrollTop = tree.scrollHeight;
            await new Promise((done) => setTimeout(done, 5));
          }
          const row = document.querySelector(target);
          if (!row) return null;
          const index = Number(row.id.slice('tree-row-'.length));
          tree.scrollTop = index * 22 - tree.clientHeight / 2;
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
          const elapsed = performance.now() - started;
          const entries = performance.getEntriesByType('resource').filter(e => e.name.includes('items.json'));
          const bytes = entries.reduce((total, e) => total + e.transferSize, 0);
          const pages = entries.filter(e => /limitToFirst=(51|101|201|401)(&|$)/.test(e.name)).length;
          const rows = [...document.querySelectorAll('.node[data-path^="/console-check/items/"]')]
            .map((r) => [Number(r.id.slice('tree-row-'.length)), Number(r.dataset.path.split('/').pop().slice(1))]);
          return { elapsed, bytes, pages, rows, nodes: document.querySelectorAll('#tree .node').length,
                   elements: document.getElementById('tree').querySelectorAll('*').length,
                   height: tree.scrollHeight };
        })()""")
        if result is None:
            raise RuntimeError("k005000 never showed while scrolling")
        print(f"figure: scrolled to child 5,000 in {result['elapsed']:.0f} ms, {result['bytes']} bytes moved by the "
              f"{result['pages']} pages loaded on the way and the live streams ended; {result['nodes']} rows "
              f"({result['elements']} elements) in the DOM", flush=True)
        if result["nodes"] > 400:
            raise RuntimeError(f"{result['nodes']} rows in the DOM after scrolling to child 5,000")
        offsets = {key - index for index, key in result["rows"]}
        if len(offsets) != 1 or 5000 not in [key for _, key in result["rows"]]:
            raise RuntimeError(f"rows out of order or k005000 missing: {result['rows'][:5]}…")
        visible = await page.eval("(() => { const t = document.getElementById('tree'); const i = Math.floor(t.scrollTop / 22) + 1;"
                                  " return document.getElementById('tree-row-' + i)?.dataset.path; })()")
        if not visible or not visible.startswith("/console-check/items/k0049") and not visible.startswith("/console-check/items/k0050"):
            raise RuntimeError(f"the row at the top of the view is {visible}")

    async def live_object_child():
        # Children written by REST into the page in view show live: an object, then a leaf, then gone.
        rest("PUT", "/console-check/items/k005000x", {"an": {"object": 1}})
        row = "document.querySelector('.node[data-path=\"/console-check/items/k005000x\"]')"
        await page.wait(f"{row}?.querySelector('.toggle').textContent === '▸'", "the new object child")
        rest("PUT", "/console-check/items/k005000x", "a leaf now")
        await page.wait(f"{row}?.querySelector('.leaf')?.textContent === '\"a leaf now\"'", "the child turned leaf")
        rest("PUT", "/console-check/items/k005002", {"was": "a leaf"})
        await page.wait("document.querySelector('.node[data-path=\"/console-check/items/k005002\"] .toggle')"
                        "?.textContent === '▸'", "the leaf turned object")
        rest("DELETE", "/console-check/items/k005000x")
        await page.wait(f"!{row}", "the deleted child gone")
        # ← from a child goes to its parent, ← again collapses it.
        await page.eval("document.querySelector('.node[data-path=\"/console-check/items/k005001\"]').click()")
        for _ in range(2):
            await press("ArrowLeft")
        await page.wait(f"{items_row}?.getAttribute('aria-expanded') === 'false' && {items_rows}.length === 0", "items collapsed")

    async def edit_object_shallow():
        # An object's editor shows its first children shallow; saving writes only what changed.
        await page.eval("document.querySelector('.node[data-path=\"/console-check\"]').click()")
        await page.wait("document.getElementById('editor-path').textContent === '/console-check' && "
                        "document.getElementById('live').textContent.includes('first 50 children')", "console-check in the editor")
        await page.wait("(() => { try { const v = JSON.parse(document.getElementById('value').value);"
                        " return v.items === true && v.greeting === true; } catch { return false; } })()", "the shallow children")
        await page.eval("{ const v = document.getElementById('value'); v.value = '{\"greeting\": true, \"items\": true, \"note\": \"hi\"}';"
                        "v.dispatchEvent(new Event('input')); document.getElementById('save').click() }")
        deadline = time.monotonic() + args.timeout
        while rest("GET", "/console-check/note") != "hi":
            if time.monotonic() > deadline:
                raise RuntimeError("the new child did not reach the server")
            await asyncio.sleep(0.1)
        if rest("GET", "/console-check/items/k099999") != 99999 or rest("GET", "/console-check/greeting") != {"edited": True}:
            raise RuntimeError("saving the shallow view changed the children it did not touch")

    async def database_picker():
        # The picker lists the server's databases; picking one shows its tree and names it in the breadcrumb.
        await page.wait("[...document.querySelectorAll('#namespace option')].map(o => o.value).join() === "
                        "'console-check-b,default,\\u0000new'", "the databases in the picker")
        await pick("console-check-b")
        await page.wait("!!document.querySelector('.node[data-path=\"/picked\"]')", "console-check-b's tree")
        await page.wait("document.querySelector('#breadcrumb .database')?.textContent === 'console-check-b'", "the breadcrumb's database")

    async def empty_database():
        # A new database (no data yet): the data view says what to do.
        await page.eval("window.prompt = () => 'console-check-empty'")
        await pick("\u0000new")
        await page.wait("document.getElementById('namespace').value === 'console-check-empty' && "
                        "!document.getElementById('data-empty').hidden", "the empty database's advice")

    async def back_to_default():
        await pick("default")
        await page.wait("[...document.querySelectorAll('.key')].some(k => k.textContent === 'console-check')", "the root's keys")
        await page.wait("document.getElementById('data-empty').hidden", "no advice on a database with data")

    async def breadcrumb():
        await page.eval("document.querySelector('.node[data-path=\"/console-check/items/k000061\"]').click()")
        await page.wait("[...document.querySelectorAll('#breadcrumb button')].map(b => b.textContent).join('/') === "
                        "'default/console-check/items/k000061'", "the breadcrumb of k000061")
        await page.eval("document.querySelector('#breadcrumb button[data-path=\"/console-check\"]').click()")
        await page.wait("document.getElementById('editor-path').textContent === '/console-check' && "
                        "document.querySelector('.node.selected')?.dataset.path === '/console-check'", "console-check from the breadcrumb")
        await page.wait("document.querySelector('#breadcrumb [aria-current]')?.textContent === 'console-check'", "the breadcrumb's end")

    async def shortcuts():
        await page.eval("document.activeElement?.blur()")
        await key("?")
        await page.wait("document.getElementById('shortcuts').open", "the shortcuts dialog")
        await page.wait("document.getElementById('shortcuts').textContent.includes('Data, Rules, Users, Health')", "the keys listed")

    async def shortcut_keys():
        await page.eval("document.getElementById('shortcuts-close').click()")
        for pressed, view in [("2", "rules"), ("1", "data")]:
            await key(pressed)
            await page.wait(f"!document.getElementById('view-{view}').hidden", f"{pressed}: the {view} view")
        hints = await page.eval("[...document.querySelectorAll('#tab-data kbd, #save kbd')].map(k => k.textContent).join(' ')")
        if hints != "1 Ctrl Enter":
            raise RuntimeError(f"the shortcut hints read '{hints}'")

    async def health_charts():
        # Each figure's chart has a value axis with its unit and a time axis over the window picked.
        figure = "document.querySelector('.figure[data-name=\"default: writes/s\"]')"
        await page.wait(f"{figure}?.querySelectorAll('svg.chart .tick-x').length === 3 && !!{figure}.querySelector('svg.chart .line')",
                        "a chart with a time axis and a line")
        await page.eval("document.querySelector('#health-window button[data-seconds=\"60\"]').click()")
        await page.wait(f"[...{figure}.querySelectorAll('.tick-x')].map(t => t.textContent).join() === '−60 s,−30 s,now'", "the 1-minute window")
        ticks = await page.eval(f"[...{figure}.querySelectorAll('.tick-y')].map(t => t.textContent)")
        unit = await page.eval(f"{figure}.querySelector('.unit').textContent")
        if len(ticks) != 3 or ticks[0] != "0" or not ticks[2].endswith(" /s") or unit != "/s":
            raise RuntimeError(f"the value axis reads {ticks}, the unit '{unit}'")

    async def show(view):
        await page.eval(f"document.getElementById('tab-{view}').click()")
        await page.wait(f"!document.getElementById('view-{view}').hidden", f"the {view} view")
        if view == "data":
            await page.wait("!!document.querySelector('.node[data-path=\"/console-check\"]')", "the root's keys")
            await page.eval("document.querySelector('.node[data-path=\"/console-check\"]').click()")
            await page.wait("!!document.querySelector('.node[data-path=\"/console-check/greeting\"]')", "console-check's children")
            await page.eval("document.querySelector('.node[data-path=\"/console-check/greeting\"]').click()")
            await page.wait("document.getElementById('live').textContent.startsWith('live')", "the greeting live")
        elif view == "rules":
            await page.wait("document.getElementById('rules-status').textContent !== ''", "the rules checked")
        elif view == "users":
            await page.wait("document.querySelectorAll('#users-rows tr').length > 0", "the accounts")
        elif view == "health":
            await page.wait("document.querySelectorAll('.figure svg.chart .line').length > 3", "the charts")
        elif view == "files":
            await page.wait("document.querySelectorAll('#files-rows tr').length > 0", "the folders and files")
        await asyncio.sleep(0.3)

    async def every_view(theme):
        await page.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": theme}])
        background = await page.eval("getComputedStyle(document.documentElement).backgroundColor")
        expected = "rgb(15, 18, 22)" if theme == "dark" else "rgb(244, 245, 247)"
        if background != expected:
            raise RuntimeError(f"the {theme} theme's background is {background}")
        for view in ["data", "rules", "users", "health", "files"]:
            await show(view)
            await page.shot(f"view-{view}-{theme}")

    for name, body in [("sign-in refused", sign_in_refused), ("sign in", sign_in), ("database picker", database_picker),
                       ("empty database", empty_database), ("back to default", back_to_default),
                       ("page through 100,000 children", page_through), ("breadcrumb", breadcrumb),
                       ("live value", live_value), ("edit value", edit_value), ("invalid JSON refused", invalid_json_is_refused),
                       ("rules diagnostic as you type", rules_diagnostic), ("publish and roll back", rules_publish_and_roll_back),
                       ("simulate a refused write", simulate_refusal), ("disable a user", disable_user), ("health", health),
                       ("health charts", health_charts)]:
        await step(name, body)
    await step("simulate a denied read and see its values", simulate_values)
    await step("tree keyboard and first page", tree_keyboard)
    await step("scroll to child 5,000", scroll_far)
    await step("live object child", live_object_child)
    await step("edit an object shallow", edit_object_shallow)
    await step("shortcuts dialog", shortcuts)
    await step("shortcut keys", shortcut_keys)
    # Users, claims, health columns and rules highlighting (issue 16, items 3-5).
    searched = {}

    def sign_up_patiently(email):
        request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=check", method="POST",
                                         data=json.dumps({"email": email, "password": "secret1"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())["localId"]

    async def search_among_many():
        from concurrent.futures import ThreadPoolExecutor
        # More than the console's first page (100): some of them are not loaded until searched for.
        stamp = int(time.time())
        emails = [f"many{stamp}-{n:03d}@example.com" for n in range(101)]
        with ThreadPoolExecutor(2) as pool:
            uids = await asyncio.get_running_loop().run_in_executor(None, lambda: list(pool.map(sign_up_patiently, emails)))
        await page.eval("document.getElementById('users-search').value = ''; document.getElementById('tab-users').click()")
        await page.wait("document.querySelectorAll('#users-rows tr').length === 100", "the first page of 100 accounts")
        loaded = set(await page.eval("[...document.querySelectorAll('#users-rows tr')].map(r => r.dataset.uid)"))
        index = next(i for i, uid in enumerate(uids) if uid not in loaded)
        searched.update(uid=uids[index], email=emails[index])
        prefix = emails[index][:-len("@example.com")].upper()
        await page.eval("{ const s = document.getElementById('users-search'); s.value = " + json.dumps(prefix) + ";"
                        "s.dispatchEvent(new Event('input')); }")
        await page.wait(f"[...document.querySelectorAll('#users-rows tr')].map(r => r.dataset.uid).join() === {json.dumps(uids[index])}",
                        "the one account found by the server")
        asked = await page.eval("performance.getEntriesByType('resource').some(e => e.name.includes('batchGet') && e.name.includes('search='))")
        if not asked:
            raise RuntimeError("the search was not sent to the server")

    async def set_a_claim():
        uid = searched["uid"]
        rest("PUT", f"/users/{uid}", {"displayName": "Searched One"})
        await page.eval(f"document.querySelector('tr[data-uid=\"{uid}\"] button.details').click()")
        await page.wait(f"document.getElementById('users-title').textContent === {json.dumps(searched['email'])}", "the account's details")
        await page.wait("document.getElementById('users-profile').textContent.includes('Searched One')", "the profile at /users/<uid>")
        await page.eval("document.getElementById('users-claims').value = '[1]'; document.getElementById('users-claims-save').click()")
        await page.wait("document.getElementById('users-claims-error').textContent.includes('JSON object')", "a refused array")
        await page.eval("document.getElementById('users-claims').value = '{\"role\": \"editor\"}';"
                        "document.getElementById('users-claims-save').click()")
        await page.wait("document.getElementById('users-claims-status').textContent.startsWith('set')", "the claims set")
        await page.wait("JSON.parse(document.getElementById('users-claims').value).role === 'editor'", "the claims shown")
        if json.loads(account(uid).get("customAttributes", "{}")) != {"role": "editor"}:
            raise RuntimeError(f"the server has {account(uid).get('customAttributes')}")
        await page.eval("document.getElementById('users-claims').value = '{\"sub\": \"x\"}';"
                        "document.getElementById('users-claims-save').click()")
        await page.wait("document.getElementById('users-claims-error').textContent.includes('FORBIDDEN_CLAIM')", "a reserved name refused")

    async def health_columns():
        rest_in("console-check-b", "PUT", "/health", {"n": 1})
        await page.eval("document.getElementById('tab-health').click()")
        await page.wait("!!document.querySelector('.health-column[data-namespace=\"default\"]') && "
                        "!!document.querySelector('.health-column[data-namespace=\"console-check-b\"]')", "two databases' columns")
        rest_in("console-check-b", "PUT", "/health", {"n": 2})
        await page.wait("[...document.querySelectorAll('.health-column[data-namespace=\"console-check-b\"] .figure')]"
                        ".some(f => f.dataset.name === 'console-check-b: writes/s' && !f.textContent.includes('…'))",
                        "the second database's writes/s")

    async def highlighting():
        await page.eval("document.getElementById('rules-text').value = ''; document.getElementById('tab-rules').click()")
        await page.wait("document.getElementById('rules-text').value.includes('rules')", "the rules document")
        await set_rules_text('{"rules": {"$uid": {".validate": "newData.val().matches(/^a\\\\/[b/]$/i) && '
                             'newData.val() !== \'x/y\' && data.val() / 2 > 1"}}}')
        await page.wait("document.querySelector('#rules-highlight .hl-regex')?.textContent === '/^a\\\\\\\\/[b/]$/i'", "the regex literal")
        await page.wait("document.querySelector('#rules-highlight .hl-string')?.textContent === \"'x/y'\"", "the string")
        marks = await page.eval("[...document.querySelectorAll('#rules-highlight span')].map(s => s.className + ' ' + s.textContent)")
        for expected in ["hl-wildcard \"$uid\"", "hl-rule \".validate\"", "hl-variable newData", "hl-member matches", "hl-op /",
                         "hl-number 2", "hl-variable data"]:
            if expected not in marks:
                raise RuntimeError(f"no '{expected}' among {marks}")
        took = await page.eval(r"""(async () => {
            const { highlightRules } = await import('/console/highlight.js');
            const rule = (n) => `    "k${n}": {\n      ".read": "auth != null && root.child('members/' + $room).child(auth.uid).exists()",\n` +
              `      ".validate": "newData.isString() && newData.val().matches(/^[a-z0-9_]{1,32}$/) && newData.val().length <= 32"\n    },`;
            const text = '{"rules": {\n' + Array.from({ length: 500 }, (_, n) => rule(n)).join("\n") + '\n  "z": {".read": true}\n}}';
            const lines = text.split("\n").length;
            const pre = document.getElementById('rules-highlight'), textarea = document.getElementById('rules-text');
            textarea.value = text;
            // What the editor does per keystroke or scroll (rules.js render): the lines in view and
            // a screen around them highlighted, the rest plain; at the top, middle and bottom.
            const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight);
            const visible = Math.ceil(textarea.clientHeight / lineHeight);
            const time = (first, count) => {
              const runs = [];
              for (let r = 0; r < 5; r++) {
                const started = performance.now();
                pre.innerHTML = highlightRules(text, first, count) + "\n";
                void pre.scrollHeight;
                runs.push(performance.now() - started);
              }
              return runs.sort((a, b) => a - b)[2];
            };
            const windows = [0, lines / 2, lines - visible].map((at) => time(Math.max(0, at - visible), visible * 3));
            const whole = time(0, Infinity);
            return { lines, chars: text.length, editor: Math.max(...windows), whole };
        })()""")
        print(f"highlighting {took['lines']} lines ({took['chars']} chars), tokenize + innerHTML + layout, median of 5: "
              f"the editor's window {took['editor']:.1f} ms at worst (top, middle, bottom); every line {took['whole']:.1f} ms")
        if took["lines"] < 2000 or took["editor"] > 100:
            raise RuntimeError(f"highlighting the editor's window of {took['lines']} lines took {took['editor']:.0f} ms")
        await set_rules_text('{"rules": {".read": true}}')

    await step("search a user among many", search_among_many)
    await step("set a claim and see it", set_a_claim)
    await step("health shows two databases", health_columns)
    await step("highlighting marks a string and a regex", highlighting)
    # The Files view (issue 35, item 4): a bucket, its folders and files, uploads, downloads,
    # deletes, a file's metadata, the storage rules and their simulator.
    bucket = "console-check.appspot.com"  # run.sh starts the server with --project-id console-check
    shipped_storage_rules = storage_rules_text()
    files_rows = "[...document.querySelectorAll('#files-rows tr')].map(r => r.dataset.name)"

    async def files_default_bucket():
        await page.eval("document.getElementById('tab-files').click()")
        await page.wait("!document.getElementById('view-files').hidden", "the files view")
        await page.wait(f"document.getElementById('files-bucket').value === {json.dumps(bucket)}", "the server's default bucket")
        await page.wait(f"document.getElementById('files-empty').textContent.includes('No files in {bucket} yet')",
                        "the empty bucket's advice")
        await page.wait("document.getElementById('files-breadcrumb').textContent === " + json.dumps(bucket), "the breadcrumb")

    async def files_upload():
        data = bytes(range(256)) * 12
        path = os.path.join(tempfile.mkdtemp(prefix="hearth-upload-"), "hello.txt")
        with open(path, "wb") as file:
            file.write(data)
        document = await page.call("DOM.getDocument")
        node = await page.call("DOM.querySelector", nodeId=document["root"]["nodeId"], selector="#files-input")
        await page.call("DOM.setFileInputFiles", files=[path], nodeId=node["nodeId"])
        await page.wait(f"{files_rows}.includes('hello.txt')", "the uploaded file listed")
        await page.wait("document.querySelector('#files-uploads li[data-name=\"hello.txt\"]')?.dataset.state === 'done'",
                        "the upload's row done")
        size = await page.eval("document.querySelector('#files-rows tr[data-name=\"hello.txt\"] td.number').title")
        stored = storage("GET", "hello.txt")
        if stored["size"] != str(len(data)) or stored["contentType"] != "text/plain" or size != f"{len(data):,} bytes":
            raise RuntimeError(f"the server has {stored}, the row says {size}")

    async def files_drop_into_folder():
        await page.eval("window.prompt = () => 'docs'; document.getElementById('files-folder').click()")
        await page.wait("document.getElementById('files-empty').textContent.includes('Nothing in docs/ yet')", "the new folder")
        await page.eval("""{ const transfer = new DataTransfer();
          transfer.items.add(new File([new Uint8Array([137, 80, 78, 71, 1, 2, 3])], 'dropped.png', { type: 'image/png' }));
          const card = document.getElementById('files-drop');
          card.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true }));
          card.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true })); }""")
        await page.wait(f"{files_rows}.includes('docs/dropped.png')", "the dropped file listed in docs/")
        if storage("GET", "docs/dropped.png")["contentType"] != "image/png":
            raise RuntimeError("the dropped file's type is not image/png")
        await page.eval("document.querySelector('#files-breadcrumb button[data-prefix=\"\"]').click()")
        await page.wait(f"JSON.stringify({files_rows}) === JSON.stringify(['docs/', 'hello.txt'])", "the folder and the file at the top")

    async def files_paging():
        for n in range(105):
            storage_upload(f"many/f{n:03d}.txt", f"file {n}".encode())
        await key("r")
        await page.wait(f"{files_rows}.includes('many/')", "R: the folder listed again, with many/")
        await page.eval("document.querySelector('#files-rows tr[data-name=\"many/\"]').click()")
        await page.wait(f"{files_rows}.length === 100 && !document.getElementById('files-more').hidden", "the first page of 100")
        await page.eval("document.getElementById('files-more').click()")
        await page.wait(f"{files_rows}.length === 105 && document.getElementById('files-more').hidden", "the second page")
        last = await page.eval(f"{files_rows}.pop()")
        if last != "many/f104.txt":
            raise RuntimeError(f"the last row is {last}")
        await page.eval("document.querySelector('#files-breadcrumb button[data-prefix=\"\"]').click()")
        await page.wait(f"{files_rows}.includes('many/')", "back at the top")

    async def files_metadata():
        await page.eval("document.querySelector('#files-rows tr[data-name=\"hello.txt\"]').click()")
        await page.wait("document.getElementById('files-title').textContent === 'hello.txt' && "
                        "document.querySelector('#files-metadata [data-field=\"size\"]')?.textContent.includes('3,072 bytes')",
                        "the file's details")
        await page.eval("document.getElementById('files-custom').value = '{\"owner\": \"check\"}';"
                        "document.getElementById('files-save').click()")
        await page.wait("document.getElementById('files-detail-status').textContent === 'saved'", "the metadata saved")
        if storage("GET", "hello.txt").get("metadata") != {"owner": "check"}:
            raise RuntimeError(f"the server has {storage('GET', 'hello.txt').get('metadata')}")
        await page.eval("document.getElementById('files-custom').value = '{\"n\": 1}'; document.getElementById('files-save').click()")
        await page.wait("document.getElementById('files-detail-error').textContent.includes('strings')", "a number refused")

    async def files_download():
        folder = tempfile.mkdtemp(prefix="hearth-downloads-")
        await page.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=folder)
        await page.eval("document.getElementById('files-download').click()")
        target = os.path.join(folder, "hello.txt")
        deadline = time.monotonic() + args.timeout
        while not (os.path.exists(target) and os.path.getsize(target) == 3072):
            if time.monotonic() > deadline:
                raise RuntimeError(f"no hello.txt of 3,072 bytes in the downloads: {os.listdir(folder)}")
            await asyncio.sleep(0.1)
        with open(target, "rb") as file:
            if file.read() != bytes(range(256)) * 12:
                raise RuntimeError("the downloaded bytes differ from the uploaded ones")

    async def files_delete():
        await page.eval("window.confirm = (question) => { window.asked = question; return false; };"
                        "document.querySelector('#files-rows tr[data-name=\"hello.txt\"] button.danger').click()")
        await page.wait("(window.asked || '').startsWith('Delete console-check.appspot.com/hello.txt?')", "the question")
        if storage("GET", "hello.txt") is None:
            raise RuntimeError("deleted without a yes")
        await page.eval("window.confirm = () => true;"
                        "document.querySelector('#files-rows tr[data-name=\"hello.txt\"] button.danger').click()")
        await page.wait(f"!{files_rows}.includes('hello.txt') && document.getElementById('files-detail').hidden",
                        "the file gone from the list and the details")
        if storage("GET", "hello.txt") is not None:
            raise RuntimeError("the server still has hello.txt")

    def set_storage_rules(text):
        return page.eval("{ const t = document.getElementById('storage-rules-text'); t.value = " + json.dumps(text) + ";"
                         "t.dispatchEvent(new Event('input')); }")

    async def storage_rules_refused():
        await page.eval("document.querySelector('#files-mode button[data-mode=\"rules\"]').click()")
        await page.wait("document.getElementById('storage-rules-status').textContent === 'in force'", "the shipped rules in force")
        if await page.eval("document.getElementById('storage-rules-text').value") != shipped_storage_rules:
            raise RuntimeError("the editor does not show the rules in force")
        broken = shipped_storage_rules.replace("return request.auth != null;", "return requets.auth != null;")
        line = shipped_storage_rules[:shipped_storage_rules.index("return request.auth")].count("\n") + 1
        await set_storage_rules(broken)
        await page.wait(f"document.getElementById('storage-rules-diagnostics').textContent.startsWith('{line}:')",
                        f"a diagnostic at line {line} as you type")
        await page.wait("document.querySelector('#storage-rules-highlight .hl-error')?.textContent === 'requets'", "the mark")
        await page.eval("document.getElementById('storage-rules-save').click()")
        await page.wait("document.getElementById('storage-rules-error').textContent.startsWith('Not saved: Invalid storage rules')"
                        f" && document.getElementById('storage-rules-error').textContent.includes(':{line}:')", "the refusal")
        if storage_rules_text() != shipped_storage_rules:
            raise RuntimeError("a document with errors replaced the rules in force")

    async def storage_rules_saved():
        edited = shipped_storage_rules.replace("rules_version = '2';", "rules_version = '2';\n// Saved by the console check.")
        await set_storage_rules(edited)
        await page.wait("document.getElementById('storage-rules-status').textContent === 'valid draft'", "a valid draft")
        await page.eval("document.getElementById('storage-rules-save').click()")
        await page.wait("document.getElementById('storage-rules-status').textContent === 'in force'", "the saved rules in force")
        if storage_rules_text() != edited:
            raise RuntimeError("the server's storage rules are not the ones saved")

    async def storage_simulate():
        def fill(method, path, auth, size="1000", kind="image/png"):
            return page.eval(f"document.getElementById('storage-sim-method').value = {json.dumps(method)};"
                             "document.getElementById('storage-sim-method').dispatchEvent(new Event('change'));"
                             f"document.getElementById('storage-sim-path').value = {json.dumps(path)};"
                             f"document.getElementById('storage-sim-auth').value = {json.dumps(auth)};"
                             f"document.getElementById('storage-sim-size').value = {json.dumps(size)};"
                             f"document.getElementById('storage-sim-type').value = {json.dumps(kind)};"
                             "document.getElementById('storage-sim-decision').textContent = '';"
                             "document.getElementById('storage-sim-run').click()")
        await fill("create", "users/alice/avatar.png", "alice")
        await page.wait("document.getElementById('storage-sim-decision').textContent.startsWith('allowed by allow create, update')",
                        "an allowed avatar upload")
        await page.wait("document.querySelector('#storage-sim-trace tr.deciding')?.textContent.includes('uid = alice')",
                        "the deciding allow with its wildcards")
        await page.wait("[...document.querySelectorAll('#storage-sim-trace tr.deciding-values:not([hidden]) .sim-part')]"
                        ".some(p => p.textContent.startsWith('request.auth.uid ='))",
                        "the deciding condition's parts with their values")
        await fill("create", "users/alice/avatar.png", "alice", size=str(6 * 1024 * 1024))
        await page.wait("document.getElementById('storage-sim-decision').textContent.startsWith('denied')", "a 6 MB avatar denied")
        await fill("get", "docs/dropped.png", "")
        await page.wait("document.getElementById('storage-sim-decision').textContent.startsWith('denied')", "a signed-out read denied")
        await page.wait("document.getElementById('storage-sim-resource').textContent.includes('the stored object (7 bytes, image/png)')",
                        "the stored object as resource")

    async def files_bucket_refused():
        def pick_bucket(name):
            return page.eval("{ const b = document.getElementById('files-bucket'); b.value = " + json.dumps(name) + ";"
                             " b.dispatchEvent(new Event('change')); }")
        await page.eval("document.querySelector('#files-mode button[data-mode=\"browse\"]').click()")
        await pick_bucket("Not A Bucket")
        await page.wait("document.getElementById('files-error').textContent.includes(\"The bucket name 'Not A Bucket' is not one\")",
                        "the server's refusal")
        await page.wait("document.querySelector('#files-error .hint')?.textContent.includes('<project-id>.appspot.com')", "what to do")
        await pick_bucket(bucket)
        await page.wait(f"{files_rows}.includes('docs/') && document.getElementById('files-error').textContent === ''", "the bucket again")
        offered = await page.eval("[...document.querySelectorAll('#files-buckets option')].map(o => o.value)")
        if offered != [bucket]:
            raise RuntimeError(f"the buckets offered are {offered}")

    async def files_keys():
        await page.eval("document.querySelector('#files-mode button[data-mode=\"browse\"]').click()")
        await key("1")
        await key("5")
        await page.wait("!document.getElementById('view-files').hidden && "
                        f"{files_rows}.includes('docs/')", "5: the files view")
        await key("/")
        await page.wait("document.activeElement.id === 'files-rows'", "/: the list focused")
        rows = "document.getElementById('files-rows')"
        await page.eval(f"{rows}.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Home', bubbles: true}}));"
                        f"{rows}.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter', bubbles: true}}))")
        await page.wait("document.querySelector('#files-breadcrumb [aria-current]')?.dataset.prefix === 'docs/'", "Enter: docs/ open")
        await page.eval(f"{rows}.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Backspace', bubbles: true}}))")
        await page.wait("document.querySelector('#files-breadcrumb [aria-current]')?.dataset.prefix === ''", "Backspace: the top")

    for name, body in [("files default bucket, empty", files_default_bucket), ("files upload", files_upload),
                       ("files drop into a new folder", files_drop_into_folder), ("files paging", files_paging),
                       ("files metadata", files_metadata), ("files download", files_download),
                       ("files delete asks first", files_delete),
                       ("storage rules diagnostic and a refused save", storage_rules_refused),
                       ("storage rules saved", storage_rules_saved), ("storage rules simulate", storage_simulate),
                       ("files a bucket refused", files_bucket_refused), ("files keys", files_keys)]:
        await step(name, body)
    await step("every view light", lambda: every_view("light"))
    await step("every view dark", lambda: every_view("dark"))
    await page.call("Emulation.setEmulatedMedia", features=[])
    rest("DELETE", "/console-check")
    return results


async def main():
    profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
    # Port 0: the browser picks a free port and writes it to DevToolsActivePort in its profile,
    # so the check never talks to another browser. Its own process group: Debian's `chromium`
    # is a wrapper script, and the whole group is ended at the end.
    browser = subprocess.Popen([args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                                "--remote-debugging-port=0", f"--user-data-dir={profile.name}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        active = os.path.join(profile.name, "DevToolsActivePort")
        for _ in range(300):
            try:
                with open(active) as file:
                    port = int(file.readline())
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=2))
                target = next(t for t in targets if t["type"] == "page")
                break
            except Exception:  # noqa: BLE001 - the browser is still starting
                time.sleep(0.1)
        else:
            raise RuntimeError("chromium did not start")
        async with websockets.connect(target["webSocketDebuggerUrl"], max_size=64 << 20) as socket:
            page = Page(socket)
            await page.call("Page.enable")
            results = await steps(page)
    finally:
        os.killpg(browser.pid, signal.SIGTERM)
        browser.wait(10)
        profile.cleanup()
    failed = 0
    for ok, name in results:
        print(("ok   " if ok else "FAIL ") + name)
        failed += 0 if ok else 1
    print(f"{len(results) - failed} passed, {failed} failed; screenshots in {shots}")
    sys.exit(1 if failed else 0)


asyncio.run(main())
