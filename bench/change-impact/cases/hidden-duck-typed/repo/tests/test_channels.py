from notify.channels import EmailChannel


def test_email_send():
    assert EmailChannel().send("ann", "hi") == "mail ann: hi"
