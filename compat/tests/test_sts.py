"""STS GetCallerIdentity: which account a request is taken to come from."""


def test_default_account(sts):
    assert sts.get_caller_identity()["Account"] == "000000000000"


def test_twelve_digit_access_key_is_the_account(make_client):
    sts = make_client("sts", aws_access_key_id="111122223333")
    assert sts.get_caller_identity()["Account"] == "111122223333"


def test_other_access_keys_map_to_the_default_account(make_client):
    sts = make_client("sts", aws_access_key_id="AKIAIOSFODNN7EXAMPLE")
    assert sts.get_caller_identity()["Account"] == "000000000000"


def test_request_signed_for_another_region(make_client):
    sts = make_client("sts", region_name="eu-west-1")
    assert sts.get_caller_identity()["Account"] == "000000000000"
