SAVE = "save"
LOAD = "load"
