from reports.service import export


def test_export_tsv():
    assert export("tsv", [[1, 2]]) == "1\t2"


def test_export_csv():
    assert export("csv", [[1, 2]]) == "1,2"
