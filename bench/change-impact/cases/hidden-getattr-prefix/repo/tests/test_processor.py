from jobs.processor import Processor


def test_refund():
    assert Processor().do_refund(1) == {"refund": 1}
