import threading


def work():
    return 1


def launch():
    t = threading.Thread(target=work)
    t.start()
    t.join()


launch()
