_HOOKS = {}


def register(obj):
    _HOOKS[obj.__name__] = obj
    return obj


@register
def on_start():
    return "started"


@register
class Csv:
    def export(self):
        return "csv"


on_start()
Csv().export()
