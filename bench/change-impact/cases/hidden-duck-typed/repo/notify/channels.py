"""Delivery channels (duck-typed: anything with send(to, text))."""


class EmailChannel:
    def send(self, to, text):
        return f"mail {to}: {text}"


class SmsChannel:
    def send(self, to, text):
        return f"sms {to}: {text[:160]}"
