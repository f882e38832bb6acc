from app import main


def test_main(capsys):
    main()
    assert capsys.readouterr().out == "ann: 12.00\n"
