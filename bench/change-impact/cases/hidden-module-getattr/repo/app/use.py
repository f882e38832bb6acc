import compat


def when(text):
    return compat.parse_date(text)
