class Commands:
    def do_start(self):
        return "start"

    def do_stop(self):
        return "stop"

    def status(self):
        return "ok"


def run(cmd_name):
    cmds = Commands()
    method = getattr(cmds, "do_" + cmd_name)  # unresolvable: computed name
    return method()


def check():
    return getattr(Commands(), "status")()


run("start")
run("stop")
check()
