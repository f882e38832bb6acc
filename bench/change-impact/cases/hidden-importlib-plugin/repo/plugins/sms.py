"""SMS plugin."""


def send(msg):
    return f"sms:{msg[:160]}"


def setup(registry):
    registry["sms"] = send
