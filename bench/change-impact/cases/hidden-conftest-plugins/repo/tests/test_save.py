from store.save import save


def test_save(db):
    assert save(db, 'k', 1) == 1
