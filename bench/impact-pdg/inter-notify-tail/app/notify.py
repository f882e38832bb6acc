"""Messages and publishing."""


def build_message(user: str, total: int) -> str:
    return f"{user}:{total}"


def publish(topic: str, message: str) -> int:
    size = len(message)
    return size


def log_event(name: str) -> str:
    return name.upper()
