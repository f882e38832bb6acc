def parse_date(text):
    y, m, d = text.split("-")
    return int(y), int(m), int(d)
