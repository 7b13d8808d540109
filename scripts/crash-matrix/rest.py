"""A small REST client for the matrix: one HTTP request per call, every call with a timeout."""
import http.client
import json
import urllib.parse


class HTTPFailure(Exception):
    """No answer: the connection failed or timed out (the server may have applied the request)."""


class Answer:
    def __init__(self, status, headers, body, data=b""):
        self.status = status
        self.headers = headers
        self.body = body
        self.data = data  # the body's bytes

    def header(self, name):
        return next((value for key, value in self.headers.items() if key.lower() == name.lower()), None)

    @property
    def ok(self):
        return 200 <= self.status < 300

    def json(self):
        return json.loads(self.body) if self.body else None

    def __repr__(self):
        return f"{self.status} {self.body[:300]!r}"


class Rest:
    def __init__(self, port, admin_secret, timeout=30.0):
        self.port = port
        self.admin_secret = admin_secret
        self.timeout = timeout

    def request(self, method, target, body=None, headers=None, timeout=None, raw=False):
        """`body` is JSON-encoded unless `raw`; answers an `Answer` or raises `HTTPFailure`."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout or self.timeout)
        try:
            payload = None
            if body is not None:
                payload = body if raw else json.dumps(body).encode()
            all_headers = {"Content-Type": "application/json"}
            all_headers.update(headers or {})
            connection.request(method, target, body=payload, headers=all_headers)
            response = connection.getresponse()
            data = response.read()
            return Answer(response.status, dict(response.getheaders()), data.decode("utf-8", "replace"), data)
        except (OSError, http.client.HTTPException) as error:
            raise HTTPFailure(f"{method} {target}: {error!r}") from error
        finally:
            connection.close()

    def db(self, method, path, body=None, ns="default", query=None, headers=None, token=None, raw=False):
        """A database request at `path` (no `.json`) as the admin, or as the user of `token`."""
        params = {"ns": ns}
        params.update(query or {})
        all_headers = {"Authorization": f"Bearer {token or self.admin_secret}"}
        all_headers.update(headers or {})
        target = "/" + path.strip("/") + ".json?" + urllib.parse.urlencode(params)
        return self.request(method, target, body, all_headers, raw=raw)

    def read(self, path, ns="default"):
        answer = self.db("GET", path, ns=ns)
        if answer.status != 200:
            raise HTTPFailure(f"GET {path} (ns {ns}): {answer!r}")
        return answer.json()

    def accounts(self, action, body, token=None, timeout=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        target = f"/identitytoolkit.googleapis.com/v1/accounts:{action}?key=crash-matrix"
        return self.request("POST", target, body, headers, timeout=timeout)

    def refresh(self, refresh_token):
        form = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": refresh_token}).encode()
        return self.request(
            "POST",
            "/securetoken.googleapis.com/v1/token?key=crash-matrix",
            form,
            {"Content-Type": "application/x-www-form-urlencoded"},
            raw=True,
        )

    def call(self, name, data, token, ns="default"):
        return self.request("POST", f"/functions/{name}?ns={ns}", {"data": data}, {"Authorization": f"Bearer {token}"})
