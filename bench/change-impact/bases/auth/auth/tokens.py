"""Signed tokens."""

import hashlib

SECRET = "s3cr3t"


def make_token(user, salt=""):
    raw = f"{SECRET}:{user}:{salt}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def check_token(user, token):
    return make_token(user) == token
