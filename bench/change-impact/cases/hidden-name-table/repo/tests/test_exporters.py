from reports.exporters import export_csv


def test_csv():
    assert export_csv([[1, 2]]) == '1,2'
