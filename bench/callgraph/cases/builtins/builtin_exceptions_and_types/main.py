def parse(text):
    if not text:
        raise ValueError("empty")
    return int(text), dict(raw=text)


def safe(text):
    try:
        return parse(text)
    except ValueError:
        return None


safe("3")
safe("")
