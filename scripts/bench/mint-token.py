#!/usr/bin/env python3
"""Prints an HS256 ID token for the benchmark: mint-token.py JWT_SECRET UID [SECONDS]."""
import base64, hashlib, hmac, json, sys, time

def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

secret, uid = sys.argv[1], sys.argv[2]
lifetime = int(sys.argv[3]) if len(sys.argv) > 3 else 3600
now = int(time.time())
header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
claims = {"user_id": uid, "sub": uid, "iat": now, "exp": now + lifetime, "auth_time": now,
          "firebase": {"sign_in_provider": "password"}}
payload = b64(json.dumps(claims).encode())
signature = hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
print(f"{header}.{payload}.{b64(signature)}")
