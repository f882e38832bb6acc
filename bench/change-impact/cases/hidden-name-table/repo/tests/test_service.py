from reports.service import export


def test_export_csv():
    assert export('csv', [[1]]) == '1'
