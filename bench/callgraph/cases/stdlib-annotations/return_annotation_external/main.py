import io


def open_buffer() -> io.StringIO:
    return io.StringIO()


def fill():
    buf = open_buffer()
    buf.write("a")
    return buf.getvalue()


fill()
