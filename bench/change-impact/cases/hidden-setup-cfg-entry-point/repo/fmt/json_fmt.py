import json


class JsonFormatter:
    def __init__(self):
        self.indent = None

    def format(self, value):
        return json.dumps(value, indent=self.indent)
