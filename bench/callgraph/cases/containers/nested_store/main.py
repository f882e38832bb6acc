def on_save():
    return "save"


def on_load():
    return "load"


ROUTES = {"io": {}, "ui": {"load": on_load}}
ROUTES["io"]["save"] = on_save
ROUTES["io"]["save"]()
ROUTES["ui"]["load"]()
