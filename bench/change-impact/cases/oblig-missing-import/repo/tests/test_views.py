from text.views import title_slug


def test_title_slug():
    assert title_slug('A B') == 'a-b'
