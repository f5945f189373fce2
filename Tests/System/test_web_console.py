"""The web page (#36): a headless `kiosk run` with `web:` on a free loopback port, driven by a
real browser (web_browser_flow.py: log in, see the screenshot change, pause, go to an item, log
out) and attacked as the issue lists: no route without a login (every route the server lists,
every method), a wrong Host, a cross-site POST, a missing CSRF token, `../` paths, markup in a
title, a 10 GB body, 1,000 wrong passwords. Each is refused, nothing is written, kiosk plays on.

Every wait is for an event, with a deadline meant for a hang."""
import hashlib
import json
import math
import re
import time
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from control_client import wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from web_page import DEBIAN_PYTHON, REPO, TIMEOUT, Page, control, free_port, make_clip, running_kiosk  # noqa: F401

TITLE = "<script>alert('x')</script> & <b>menu</b>"


@pytest.fixture(scope="module")
def kiosk(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("web")
    first = make_clip(directory / "bars.mp4", "smptehdbars")
    second = make_clip(directory / "moving.mp4", "testsrc2")
    state = directory / "state"
    port = free_port()
    config = directory / "kiosk.conf"
    config.write_text("# the operator's own words\ndisplay: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"logging: {{proof_of_play: {directory / 'plays.jsonl'}}}\n"
                      "schedule:\n  entries:\n    - {name: night, playlist: default, days: daily, from: '02:00', to: '03:00'}\n"
                      f"items:\n  - {{path: {second}, title: {json.dumps(TITLE)}, volume: 60, start: 0:00.5}}\n  - {first}\n"
                      "layers: [{text: {text: Setup, name: setup}}]\n"
                      f"web: {{listen: '127.0.0.1:{port}', page_file: {directory / 'page-playlist.yaml'}, splash_layer: setup}}\n")
    written = config.read_bytes()
    with running_kiosk(config, state, port) as (process, socket_path, log):
        yield {"page": Page(port), "state": state, "config": config, "written": written, "socket": socket_path,
               "log": log, "directory": directory, "process": process}


def password(kiosk):
    return (kiosk["state"] / "web-password").read_text().strip()


def token(kiosk):
    return (kiosk["state"] / "web-token").read_text().strip()


def frames(kiosk):
    return control(kiosk, "get", "frames_presented")["data"]


def state_files(kiosk):
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in kiosk["state"].iterdir() if path.is_file()}


def test_the_password_is_made_once_private_and_logged_once(kiosk):
    secret = kiosk["state"] / "web-password"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert (kiosk["state"] / "web-token").stat().st_mode & 0o777 == 0o600
    assert re.fullmatch(r"[a-z2-9]{5}(-[a-z2-9]{5}){3}", password(kiosk))
    lines = [line for line in kiosk["log"].read_text().splitlines() if password(kiosk) in line]
    assert len(lines) == 1 and "web-password" in lines[0], lines
    # web.splash_layer shows it on the screen until the first login (the browser's, next).
    assert not (kiosk["state"] / "web-login-seen").exists()


def test_the_browser_logs_in_sees_the_screen_pauses_and_logs_out(kiosk, tmp_path):
    if not all(Path(tool).exists() for tool in ("/usr/bin/chromium", "/usr/bin/chromedriver")):
        pytest.fail("chromium and chromium-driver are missing: run deploy/setup")
    url = f"http://127.0.0.1:{kiosk['page'].port}/"
    shot = tmp_path / "page.png"
    result = subprocess.run([DEBIAN_PYTHON, str(REPO / "Tests" / "System" / "web_browser_flow.py"), url, password(kiosk),
                             TITLE, str(shot)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["first_page"] == url + "login"
    assert seen["wrong_password_message"] == "Wrong password."
    assert seen["after_login"] == url
    # The first login hid the splash layer's password for good (a marker in the state directory).
    assert (kiosk["state"] / "web-login-seen").exists()
    assert "no such layer" not in kiosk["log"].read_text() and "has no text to change" not in kiosk["log"].read_text()
    assert seen["screen_size"] == [320, 180]
    assert seen["screen_changed"] is True
    assert seen["title_shown"] == TITLE and seen["alert_opened"] is False
    assert seen["next_shown"] in ("next: bars.mp4", "next: " + TITLE), seen["next_shown"]
    assert seen["state_after_pause"] == "paused" and seen["paused_screen_still"] is True
    assert seen["item_after_goto"] == "1"
    assert seen["state_after_play"] == "playing"
    assert seen["playlist_before"] == [TITLE, str(kiosk["directory"] / "bars.mp4")]
    assert seen["playlist_after"] == [str(kiosk["directory"] / "bars.mp4"), TITLE]
    assert seen["card_saved"].startswith("Saved"), seen["card_saved"]
    assert seen["playlist_with_card"] == seen["playlist_after"] + ["Card: SPECIALS"]
    assert 'text: "SPECIALS"' in (kiosk["directory"] / "page-playlist.yaml").read_text()
    # The new order plays: item 0 is the bars now, the card last.
    assert wait_until(lambda: control(kiosk, "get", "playlist_count")["data"] == 3, timeout=TIMEOUT)
    control(kiosk, "goto", 0)
    assert wait_until(lambda: control(kiosk, "get", "title")["data"] == "bars.mp4", timeout=TIMEOUT)
    control(kiosk, "goto", 2)
    assert wait_until(lambda: control(kiosk, "get", "title")["data"] == "text:SPECIALS", timeout=TIMEOUT)
    control(kiosk, "goto", 0)
    assert seen["schedule_saved"].startswith("Saved"), seen["schedule_saved"]
    assert seen["message_reply"] == "override_text message BACK IN 5 MINUTES: success", seen["message_reply"]
    assert seen["message_shown"] == "text:BACK IN 5 MINUTES"
    assert "lunch break" in seen["dry_run"] and "night" in seen["dry_run"]
    assert kiosk["config"].read_bytes() == kiosk["written"]
    assert seen["after_logout"] == url + "login" and seen["after_logout_console"] == url + "login"
    assert shot.stat().st_size > 0
    # What the page did, the player did: the socket says the same.
    assert wait_until(lambda: control(kiosk, "get", "time_control_status")["data"] == "playing", timeout=TIMEOUT)


def test_the_api_gives_the_sockets_replies(kiosk):
    page = kiosk["page"]
    bearer = {"Authorization": f"Bearer {token(kiosk)}"}
    for words in (["get", "playlist_count"], ["get", "title"], ["goto", 7], ["seek"], ["nonsense"]):
        status, _, body = page.request("POST", "/api/v1/command", json.dumps({"command": words}).encode(), bearer)
        reply = json.loads(body)
        socket_reply = control(kiosk, *words)
        socket_reply.pop("request_id", None)   # the test's socket client numbers its requests
        if words[0] == "get":
            assert reply == socket_reply and status == 200, (words, reply, socket_reply)
        else:
            assert reply["error"] == socket_reply["error"] and reply["error"] != "success" and status == 400, (words, reply)
    status, _, body = page.request("GET", "/api/v1/status", headers=bearer)
    summary = json.loads(body)
    assert status == 200 and summary["title"] in (TITLE, "moving.mp4", "bars.mp4") and summary["online"] is True
    # What plays next (#36): one of the two items. Not always the other one: the browser's
    # reorder reached this scheduled kiosk as a switch at the seam, after which the new list
    # plays from its first item, which may be the one playing now.
    assert summary["next"] in (TITLE, "bars.mp4"), summary
    # The disk kiosk writes its state to, with its free bytes (the page's status shows it).
    status, _, body = page.request("POST", "/api/v1/command", json.dumps({"command": ["get", "health"]}).encode(), bearer)
    disks = json.loads(body)["data"]["disks"]
    assert status == 200 and [disk["use"] for disk in disks][:1] == ["state"], disks
    assert 0 < disks[0]["free_bytes"] <= disks[0]["size_bytes"], disks
    # The socket's screenshot writes where its client says: over HTTP the picture has its own route.
    status, _, body = page.request("POST", "/api/v1/command", json.dumps({"command": ["screenshot", "/tmp/x.png"]}).encode(), bearer)
    assert status == 400 and "GET /api/v1/screenshot" in json.loads(body)["error"]
    status, headers, body = page.request("GET", "/api/v1/screenshot", headers=bearer)
    assert status == 200 and headers["Content-Type"] == "image/png" and body[:8] == b"\x89PNG\r\n\x1a\n"


def test_playlist_edits_are_checked_never_overwrite_and_leave_kiosk_conf_alone(kiosk):
    page = kiosk["page"]
    bearer = {"Authorization": f"Bearer {token(kiosk)}", "Content-Type": "application/json"}
    status, headers, body = page.request("GET", "/api/v1/playlist", headers=bearer)
    listing = json.loads(body)
    assert status == 200 and listing["editable"] is True and headers["ETag"] == listing["etag"]
    items = listing["items"]
    # The two files and the browser test's card (a `text:` entry: its words, no path).
    assert len(items) == 3 and items[2] == {"text": "SPECIALS", "enabled": True}, items
    page_file = kiosk["directory"] / "page-playlist.yaml"
    saved = page_file.read_bytes() if page_file.exists() else None

    def put(payload, tag):
        extra = {"If-Match": tag} if tag else {}
        status, _, body = page.request("PUT", "/api/v1/playlist", json.dumps(payload).encode(), {**bearer, **extra})
        return status, json.loads(body)

    # Without the tag, with a stale one, and with entries the rules refuse: nothing is written.
    assert put({"items": items}, None)[0] == 428
    assert put({"items": items}, '"0000000000000000"')[0] == 412
    for bad, words in (({"items": [{"path": "a.mp4", "gravity": "sideways"}]}, "gravity"),
                       ({"items": [{"path": "a.mp4", "enabled": False}]}, "no item is enabled"),
                       ({"items": [{"title": "no path"}]}, "has neither a path nor a card's text"),
                       ({"items": [{"path": "a.mp4", "text": "and a card"}]}, "both a path and a card's text"),
                       ({"items": [{"path": "a\nb.mp4"}]}, "line break")):
        status, answer = put(bad, listing["etag"])
        assert status == 422 and words in answer["error"], (bad, answer)
    assert (page_file.read_bytes() if page_file.exists() else None) == saved
    # 100 edits, each with the tag of the one before: kiosk.conf never changes, and each is read.
    tag = listing["etag"]
    for edit in range(100):
        reordered = list(reversed(items)) if edit % 2 == 0 else items
        status, answer = put({"items": reordered}, tag)
        assert status == 200, answer
        tag = answer["etag"]
        if edit == 0:
            reversed_tag = tag   # the tag of a list that is no longer the file's
            # The options the page does not show stay with their item (a save dropped them).
            moving = [line for line in page_file.read_text().splitlines() if "moving.mp4" in line]
            assert len(moving) == 1 and "volume: 60" in moving[0] and "start: 0:00.5" in moving[0], moving
    assert kiosk["config"].read_bytes() == kiosk["written"]
    # A second browser holding the first tag is told, not obeyed.
    status, answer = put({"items": [items[0]]}, reversed_tag)
    assert status == 412 and "changed elsewhere" in answer["error"]
    status, _, body = page.request("GET", "/api/v1/playlist", headers=bearer)
    assert json.loads(body)["items"] == items and json.loads(body)["source"] == "page"
    # A disabled item stays listed but does not play.
    status, answer = put({"items": [items[0], {**items[1], "enabled": False}]}, tag)
    assert status == 200
    assert wait_until(lambda: control(kiosk, "get", "playlist_count")["data"] == 1, timeout=TIMEOUT)
    status, answer = put({"items": items}, answer["etag"])
    assert status == 200
    assert wait_until(lambda: control(kiosk, "get", "playlist_count")["data"] == 3, timeout=TIMEOUT)
    assert kiosk["process"].poll() is None


def test_proof_of_play_and_the_schedule_are_kiosk_reports_own(kiosk):
    page = kiosk["page"]
    bearer = {"Authorization": f"Bearer {token(kiosk)}"}
    plays = kiosk["directory"] / "plays.jsonl"
    assert wait_until(lambda: plays.exists() and plays.read_text().count("\n") >= 2, timeout=TIMEOUT)
    status, headers, body = page.request("GET", "/api/v1/plays.csv", headers=bearer)
    assert status == 200 and headers["Content-Type"].startswith("text/csv") and "attachment" in headers["Content-Disposition"]
    report = subprocess.run([str(KIOSK), "report", "--csv", str(plays)], capture_output=True, text=True, timeout=60)
    # The same report (a play may end between the two reads: compare the header and the days).
    assert body.decode().splitlines()[0] == report.stdout.splitlines()[0]
    status, _, body = page.request("GET", "/api/v1/plays", headers=bearer)
    rows = json.loads(body)["rows"]
    assert status == 200 and rows and all(row["plays"] >= 1 for row in rows)
    status, _, body = page.request("GET", "/api/v1/schedule", headers=bearer)
    answer = json.loads(body)
    cli = subprocess.run([str(KIOSK), "schedule", "--config", str(kiosk["config"]), "--for", "7d", "--json"],
                         capture_output=True, text=True, timeout=60)
    expected = json.loads(cli.stdout)
    assert status == 200 and answer["dry_run"]["timezone"] == expected["timezone"]
    # Every night's entry in and out, the week through.
    assert len(answer["dry_run"]["changes"]) == len(expected["changes"]) >= 14
    assert "night" in answer["text"]


def test_the_log_shows_the_last_hour_but_never_the_password(kiosk):
    status, _, body = kiosk["page"].request("GET", "/api/v1/log", headers={"Authorization": f"Bearer {token(kiosk)}"})
    answer = json.loads(body)
    messages = [line["message"] for line in answer["lines"]]
    assert status == 200 and isinstance(answer["errors_last_hour"], int)
    assert any(message.startswith("display: headless 320x180") for message in messages), messages
    assert not any(password(kiosk) in message for message in messages)
    assert all(line["level"] in ("notice", "warning", "error", "critical") for line in answer["lines"])


def test_schedule_edits_are_kiosk_confs_rules_and_never_overwrite(kiosk):
    page = kiosk["page"]
    bearer = {"Authorization": f"Bearer {token(kiosk)}", "Content-Type": "application/json"}
    status, _, body = page.request("GET", "/api/v1/schedule/entries", headers=bearer)
    listing = json.loads(body)
    assert status == 200 and "entries" in listing["schedule"], listing

    def put(payload, tag):
        status, _, body = page.request("PUT", "/api/v1/schedule/entries", json.dumps(payload).encode(),
                                       {**bearer, **({"If-Match": tag} if tag else {})})
        return status, json.loads(body)

    page_file = kiosk["directory"] / "page-playlist.yaml"
    before = page_file.read_bytes() if page_file.exists() else None
    status, answer = put({"entries": [{"name": "x", "playlist": "nowhere"}], "inserts": []}, listing["etag"])
    assert status == 422 and "nowhere" in answer["error"] and str(page_file) in answer["error"], answer
    status, answer = put({"entries": [], "inserts": [{"at": "25:00", "item": "a.mp4"}]}, listing["etag"])
    assert status == 422 and "25:00" in answer["error"], answer
    assert put({"entries": [], "inserts": []}, None)[0] == 428
    assert (page_file.read_bytes() if page_file.exists() else None) == before
    entries = listing["schedule"]["entries"] + [{"name": "late", "playlist": "default", "from": "22:00", "to": "23:00"}]
    status, answer = put({"entries": entries, "inserts": listing["schedule"]["inserts"]}, listing["etag"])
    assert status == 200, answer
    status, _, body = page.request("GET", "/api/v1/schedule", headers=bearer)
    assert "late" in json.loads(body)["text"]
    # The playlist in the same file is untouched by a schedule save.
    status, _, body = page.request("GET", "/api/v1/playlist", headers=bearer)
    assert json.loads(body)["etag"] == answer["etag"]
    # The screen's on-windows (kiosk.conf's display.power): a wrong one refused at the page
    # file's line; one saved, kept by a save that does not name them, and none is always on.
    tag = answer["etag"]
    status, answer = put({"entries": entries, "inserts": [], "power": [{"from": "25:00", "to": "26:00"}]}, tag)
    assert status == 422 and "25:00" in answer["error"] and str(page_file) in answer["error"], answer
    assert listing["power_source"] == "kiosk.conf" and listing["schedule"]["power"] == [], listing
    # A window that leaves out this hour (kiosk's zone is the box's): the screen goes off.
    hour = time.localtime().tm_hour
    elsewhere = [{"days": "daily", "from": f"{(hour + 2) % 24:02d}:00", "to": f"{(hour + 3) % 24 or 24:02d}:00"}]
    status, answer = put({"entries": entries, "inserts": [], "power": elsewhere}, tag)
    assert status == 200 and answer["schedule"]["power"] == elsewhere and answer["power_source"] == "page", answer
    assert "power:" in page_file.read_text()
    assert wait_until(lambda: control(kiosk, "get", "display_power")["data"] == "off", timeout=TIMEOUT)
    status, answer = put({"entries": entries, "inserts": []}, answer["etag"])
    assert status == 200 and answer["schedule"]["power"] == elsewhere, answer
    # No window: always on again.
    status, answer = put({"entries": entries, "inserts": [], "power": []}, answer["etag"])
    assert status == 200 and answer["schedule"]["power"] == [] and "power: []" in page_file.read_text(), answer
    assert wait_until(lambda: control(kiosk, "get", "display_power")["data"] == "on", timeout=TIMEOUT)
    assert kiosk["config"].read_bytes() == kiosk["written"]


def test_no_route_answers_without_a_login(kiosk):
    page = kiosk["page"]
    status, _, body = page.request("GET", "/api/v1/routes", headers={"Authorization": f"Bearer {token(kiosk)}"})
    routes = json.loads(body)
    assert status == 200 and {route["path"] for route in routes} >= {"/", "/api/v1/command", "/api/v1/status", "/api/v1/screenshot"}
    before = state_files(kiosk)
    for route in routes:
        route["path"] = route["path"].replace("{id}", "0123456789abcdef" * 2)
        for method in route["methods"]:
            for headers in ({}, {"Cookie": "kiosk_session=" + "0" * 64}, {"Authorization": "Bearer " + "0" * 64}):
                status, answer_headers, body = page.request(method, route["path"], b'{"command": ["pause"]}' if method == "POST" else b"",
                                                            {**page.origin, **headers})
                if not route["login"]:
                    assert status in (200, 401, 429), (route, method, status)
                elif route["path"].startswith("/api/"):
                    assert status in (401, 403), (route, method, headers, status, body)
                else:
                    assert status in (303, 403) and answer_headers.get("Location", "/login") == "/login", (route, method, status)
    assert control(kiosk, "get", "time_control_status")["data"] != "paused"   # (waiting at a seam under load is playing on)
    assert state_files(kiosk) == before


def test_rebinding_cross_site_and_forged_requests_are_refused(kiosk):
    page = kiosk["page"]
    cookie, csrf = page.login(password(kiosk))
    command = json.dumps({"command": ["pause"]}).encode()
    good = {**page.origin, "Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}
    # A name the box was not told of (DNS rebinding), with a valid session even.
    status, _, _ = page.request("GET", "/api/v1/status", headers={"Cookie": cookie}, host="evil.example")
    assert status == 421
    status, _, _ = page.request("POST", "/api/v1/command", command, good, host=f"evil.example:{page.port}")
    assert status == 421
    # Cross-site: another origin, no origin at all from a cookie session, Sec-Fetch-Site.
    for headers in ({**good, "Origin": "http://evil.example"}, {k: v for k, v in good.items() if k != "Origin"},
                    {**good, "Sec-Fetch-Site": "cross-site"}, {**good, "Origin": "null"}):
        status, _, body = page.request("POST", "/api/v1/command", command, headers)
        assert status == 403, (headers, status, body)
    # The CSRF token missing or another session's.
    for headers in ({k: v for k, v in good.items() if k != "X-CSRF-Token"}, {**good, "X-CSRF-Token": "0" * 64}):
        status, _, body = page.request("POST", "/api/v1/command", command, headers)
        assert status == 403 and b"CSRF" in body, (status, body)
    status, _, _ = page.request("POST", "/logout", b"", {**page.origin, "Cookie": cookie})
    assert status == 403
    assert control(kiosk, "get", "time_control_status")["data"] != "paused"   # (waiting at a seam under load is playing on)
    # The same request with everything right is carried out (the refusals above were not luck).
    status, _, body = page.request("POST", "/api/v1/command", command, good)
    assert status == 200 and json.loads(body)["error"] == "success"
    assert wait_until(lambda: control(kiosk, "get", "time_control_status")["data"] == "paused", timeout=TIMEOUT)
    control(kiosk, "play")


def test_paths_markup_and_huge_bodies_are_refused(kiosk):
    page = kiosk["page"]
    cookie, csrf = page.login(password(kiosk))
    for path in ("/../etc/passwd", "/api/v1/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/static/../../kiosk.conf",
                 "/api/v1/screenshot/../../../../etc/shadow", "//etc/passwd"):
        status, _, body = page.request("GET", path, headers={"Cookie": cookie})
        assert status == 404 and b"root:" not in body, (path, status)
    control(kiosk, "goto", 0)
    assert wait_until(lambda: control(kiosk, "get", "title")["data"] == TITLE, timeout=TIMEOUT)
    status, _, body = page.request("GET", "/", headers={"Cookie": cookie})
    assert TITLE.encode() not in body and b"&lt;script&gt;" in body
    # 10 GB declared: refused before a byte is read, and kiosk plays on.
    before = frames(kiosk)
    status, _, body = page.request("POST", "/api/v1/command", b"", {**page.origin, "Cookie": cookie, "X-CSRF-Token": csrf,
                                                                     "Content-Length": str(10 * 1024 ** 3)})
    # In the API's own form, as every other refusal: {"error": reason}.
    assert status == 413 and "larger than this route takes" in json.loads(body)["error"], body
    assert wait_until(lambda: frames(kiosk) > before + 10, timeout=TIMEOUT)


def test_a_thousand_wrong_passwords_are_slowed_and_change_nothing(kiosk):
    page = kiosk["page"]
    before = state_files(kiosk)
    played = frames(kiosk)
    statuses = []
    started = time.monotonic()
    for attempt in range(1000):
        status, _, _ = page.request("POST", "/login", urllib.parse.urlencode({"password": f"guess-{attempt}"}).encode(),
                                    {**page.origin, "Content-Type": "application/x-www-form-urlencoded"})
        statuses.append(status)
    assert set(statuses) <= {401, 429}
    # The free failures, then one more each time a doubling wait ran out (however long the
    # thousand took on this machine).
    elapsed = time.monotonic() - started
    assert statuses.count(401) <= 5 + 2 + math.ceil(math.log2(elapsed + 1)), (statuses.count(401), elapsed)
    # While it waits, even the right password is not read.
    status, headers, _ = page.request("POST", "/login", urllib.parse.urlencode({"password": password(kiosk)}).encode(),
                                      {**page.origin, "Content-Type": "application/x-www-form-urlencoded"})
    assert status == 429 and int(headers["Retry-After"]) > 0
    assert state_files(kiosk) == before
    assert kiosk["config"].read_bytes() == kiosk["written"]
    assert wait_until(lambda: frames(kiosk) > played + 10, timeout=TIMEOUT)
    assert kiosk["process"].poll() is None


def test_a_page_file_kiosk_cannot_read_is_set_aside_at_start_and_the_screen_plays(tmp_path):
    """A page file broken by a hand edit (or written by a kiosk with other rules) kept `kiosk run`
    from starting at all: a dark screen for the page's file. Now the start sets it aside with its
    errors, kiosk.conf's own playlist plays, and `kiosk check` still fails on it."""
    clip = make_clip(tmp_path / "bars.mp4", "smptehdbars")
    page_file = tmp_path / "page-playlist.yaml"
    page_file.write_text("items: [\n  - broken: {{\n")
    port = free_port()
    config = tmp_path / "kiosk.conf"
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"items: [{clip}]\nweb: {{listen: '127.0.0.1:{port}', page_file: {page_file}}}\n")
    check = subprocess.run([str(KIOSK), "check", str(config)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 2 and f"{page_file}:2:" in check.stdout + check.stderr, check
    written = page_file.read_bytes()
    with running_kiosk(config, tmp_path / "state", port) as (_process, socket_path, log):
        running = {"socket": socket_path}
        assert wait_until(lambda: control(running, "get", "frames_presented")["data"] > 5, timeout=TIMEOUT), log.read_text()
        assert control(running, "get", "title")["data"] == "bars.mp4"
        text = log.read_text()
        assert "web.page_file cannot be read" in text and f"{page_file}:2:" in text, text
    assert page_file.read_bytes() == written   # the user's file is not rewritten
