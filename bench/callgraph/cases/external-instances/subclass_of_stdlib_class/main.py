import threading


class Worker(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)

    def run(self):
        return "ran"


w = Worker()
w.start()
w.join()
w.run()
