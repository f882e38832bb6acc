PLUGINS = {}


def register(cls):
    PLUGINS[cls.__name__] = cls
    return cls


@register
class Csv:
    def export(self):
        return "csv"


@register
class Json:
    def export(self):
        return "json"


def export_as(fmt):
    exporter = PLUGINS[fmt]()  # unresolvable: registry dispatch
    return exporter.export()


export_as("Json")
