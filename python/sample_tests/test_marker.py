"""@pytest.mark.switchyard(...): a test with an emulator of its own, started with other options."""

from pathlib import Path

import pytest
import switchyard as package

RESOURCES = Path(__file__).with_name("resources.yaml")


@pytest.mark.switchyard(clock="real")
def test_a_real_clock_of_its_own(switchyard, switchyard_session):
    assert switchyard.url != switchyard_session.url
    assert switchyard.clock()["mode"] == "real"
    with pytest.raises(package.ControlError) as refused:
        switchyard.advance(1)
    assert (refused.value.status, refused.value.code) == (409, "ClockNotAdjustable")


@pytest.mark.switchyard(init_resources=RESOURCES, seed=7)
def test_init_resources(switchyard, aws_client):
    assert switchyard.clock()["mode"] == "manual"  # the session's clock option still applies
    urls = aws_client("sqs").list_queues()["QueueUrls"]
    assert urls == [f"{switchyard.url}/000000000000/seeded"]


def test_an_emulator_by_hand(tmp_path):
    with package.Emulator(clock="fast:60", state_dir=tmp_path / "state") as emulator:
        assert emulator.clock()["factor"] == 60
        emulator.client("sns").create_topic(Name="kept-on-disk")
        pid = emulator.pid
    assert not emulator.running and emulator.pid is None and pid
    assert (tmp_path / "state").is_dir()


def test_a_server_that_does_not_start_says_why():
    with pytest.raises(package.StartError) as failed:
        package.Emulator(no_such_option=True).start()
    assert "--no-such-option" in str(failed.value)  # the end of its log, in the error
