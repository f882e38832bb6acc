from ui.page import render_all
from ui.widgets import Button


def test_render_all():
    assert render_all([Button('a')]) == '[a]'
