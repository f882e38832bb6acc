import unittest

from shop.notify import Outbox, channel, channels


class OutboxTest(unittest.TestCase):
    def setUp(self):
        self.outbox = Outbox()

    def test_email(self):
        msg = self.outbox.send("email", "bob@example.com", "hello")
        self.assertEqual(msg, "email to bob@example.com: hello")
        self.assertEqual(self.outbox.sent, [msg])

    def test_sms_is_truncated(self):
        msg = self.outbox.send("sms", "555", "x" * 200)
        self.assertTrue(msg.endswith("…"))
        self.assertEqual(len(msg), len("sms to 555: ") + 140)

    def test_unknown_channel(self):
        with self.assertRaises(LookupError):
            self.outbox.send("pigeon", "roof", "coo")

    def test_registering_a_channel(self):
        @channel("log")
        def to_log(to, body):
            return f"log[{to}] {body}"

        self.assertIn("log", channels())
        self.assertEqual(self.outbox.send("log", "app", "hi"), "log[app] hi")
