"""Triggers on the host (issue 15): a headless `kiosk run` whose kiosk.conf has a trigger,
fired through the control socket (`trigger NAME`; keys and zones are test_triggers.py's, in the
bed). What the bed test does not look at: proof of play names the trigger as the reason the
item was cut short, and a live reload of kiosk.conf hands the socket the new triggers.

Every wait is for an event (a control event, a log line, a line in a file) with a deadline
meant for a hang."""
import json
import signal
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until
from test_resume import KIOSK, Run, make_clip

EVENT_TIMEOUT = 30


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("trigger-clips")
    return {name: make_clip(directory / f"{name}.mp4") for name in ("loop", "promo")}


def write(config: Path, clips, plays: Path, name: str) -> None:
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"logging: {{proof_of_play: {plays}}}\n"
                      f"items: [{clips['loop']}]\n"
                      f"triggers:\n  - {{name: {name}, items: [{clips['promo']}]}}\n")


def started(client: ControlClient, stem: str, after: int = 0) -> int:
    """The position in `client.events` of the first `item_started` of the clip called `stem`
    after the first `after` events (read from the socket as they come)."""
    checked = after
    while True:
        for n in range(checked, len(client.events)):
            event = client.events[n]
            if event.get("event") == "item_started" and Path(event.get("path", "")).stem == stem:
                return n
        checked = max(checked, len(client.events))
        # The next message (the socket's timeout, EVENT_TIMEOUT, is the deadline for a hang).
        message = client.read_message()
        assert message is not None, f"kiosk closed the socket; events: {client.events}"
        if "event" in message:
            client.events.append(message)


@pytest.fixture(scope="module")
def session(tmp_path_factory, clips):
    """One kiosk: the trigger fired, the loop back, a reload renaming the trigger, the new name
    fired, SIGTERM. Returns the control events, the refusal of the old name, the plays."""
    tmp_path = tmp_path_factory.mktemp("trigger-run")
    state = tmp_path / "state"
    state.mkdir()
    plays = tmp_path / "plays.jsonl"
    config = tmp_path / "kiosk.conf"
    write(config, clips, plays, "promo")
    run = Run(tmp_path, config, state, "triggers")
    client = ControlClient(run.socket, timeout=EVENT_TIMEOUT)
    seen = {}
    try:
        # Into the loop's clip, then the trigger: the promo plays, the loop comes back past 1 s.
        assert wait_until(lambda: any(f["pts"] >= 1.0 for f in run.frames()), timeout=EVENT_TIMEOUT)
        assert client.ok("trigger", "promo") is None
        promo = started(client, "promo")
        back = started(client, "loop", after=promo + 1)
        seen["resumed_at"] = client.events[back]["time"]

        # A reload renames the trigger: the socket knows only the new name from then on.
        write(config, clips, plays, "offer")
        assert wait_until(lambda: run.log_lines("reloaded: triggers"), timeout=EVENT_TIMEOUT), run.log.read_text()
        seen["old_name"] = client.command("trigger", "promo")
        seen["new_name"] = client.command("trigger", "offer")
        started(client, "promo", after=back + 1)
    finally:
        client.close()
        seen["rc"] = run.stop(signal.SIGTERM)
    seen["log"] = run.log.read_text()
    seen["plays"] = [json.loads(line) for line in plays.read_text().splitlines()]
    return seen


def test_the_loop_resumes_after_the_trigger(session):
    assert session["resumed_at"] >= 0.5, session


def test_a_reload_hands_the_socket_the_new_triggers(session):
    assert session["old_name"]["error"] == "trigger: no trigger 'promo': kiosk.conf defines 'offer'", session
    assert session["new_name"]["error"] == "success", session


def test_proof_of_play_names_the_trigger_as_the_reason(session):
    plays = session["plays"]
    cut = [r for r in plays if Path(r["path"]).stem == "loop" and r["outcome"] == "interrupted"]
    assert cut and all(r["reason"] == "trigger" for r in cut), plays
    promos = [r for r in plays if Path(r["path"]).stem == "promo"]
    # The first promo was shown to its end (the clips are 5 s; the second is cut by the stop).
    assert promos and promos[0]["seconds"] >= 4.5, plays
    # Each record says why it played: the promo as the trigger fired (by its name of the time:
    # renamed by the reload), the loop's clip in the default playlist's loop.
    assert [(r["played_as"], r["by"]) for r in promos] == [("trigger", "promo"), ("trigger", "offer")], plays
    assert all("playlist" not in r for r in promos), plays   # a trigger's own items are of no playlist
    assert all((r["playlist"], r["played_as"]) == ("default", "loop") and "by" not in r for r in cut), plays


def test_a_trigger_that_played_to_its_end_is_recorded_completed(session):
    promo = next(r for r in session["plays"] if Path(r["path"]).stem == "promo")
    assert promo["outcome"] == "completed", session["plays"]


def test_kiosk_stops_cleanly(session):
    assert session["rc"] == 0, session["log"]
    assert " error " not in session["log"], session["log"]
