def json_out():
    return "json"


def xml_out():
    return "xml"


def plain_out():
    return "plain"


WRITERS = {"json": json_out, "xml": xml_out}


def write(fmt):
    return WRITERS.get(fmt, plain_out)()


write("json")
write("xml")
write("csv")
