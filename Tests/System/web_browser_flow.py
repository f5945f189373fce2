"""The web page in a real headless browser (Debian's chromium and chromedriver through
python3-selenium), run with Debian's python3 by test_web_console.py. Prints one JSON object of
what it saw; every wait has a deadline meant for a hang, not a speed.

Usage: web_browser_flow.py URL PASSWORD TITLE OUT_PNG"""
import hashlib
import json
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 90


def main():
    url, password, title, shot = sys.argv[1:5]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1400"):
        options.add_argument(argument)
    service = Service(executable_path="/usr/bin/chromedriver")
    browser = webdriver.Chrome(options=options, service=service)
    seen = {}
    try:
        wait = WebDriverWait(browser, DEADLINE, poll_frequency=0.2)
        browser.get(url)
        seen["first_page"] = browser.current_url
        browser.find_element(By.ID, "password").send_keys("wrong-" + password)
        browser.find_element(By.ID, "login").click()
        wait.until(lambda b: b.find_elements(By.ID, "message"))
        seen["wrong_password_message"] = browser.find_element(By.ID, "message").text
        browser.find_element(By.ID, "password").send_keys(password)
        browser.find_element(By.ID, "login").click()
        wait.until(lambda b: b.find_elements(By.ID, "status"))
        seen["after_login"] = browser.current_url

        def status():
            # Read in one script: the page rebuilds the table every refresh.
            return browser.execute_script("""
                const out = {};
                for (const row of document.querySelectorAll('#status tr')) {
                  if (row.cells.length === 2) out[row.cells[0].textContent] = row.cells[1].textContent;
                }
                return out;
            """)

        wait.until(lambda b: status().get("state") == "playing")
        seen["state_before"] = status().get("state")

        def screen_digest():
            # The screenshot as the page shows it, read back through a canvas (same origin).
            return browser.execute_script("""
                const img = document.getElementById('screen');
                if (!img.complete || img.naturalWidth === 0) return null;
                const canvas = document.createElement('canvas');
                canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
                const context = canvas.getContext('2d');
                context.drawImage(img, 0, 0);
                return [img.naturalWidth, img.naturalHeight,
                        Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data.filter((_, i) => i % 97 === 0)).join(',')];
            """)

        wait.until(lambda b: screen_digest() is not None)
        first = screen_digest()
        seen["screen_size"] = first[:2]
        wait.until(lambda b: (screen_digest() or first)[2] != first[2])
        seen["screen_changed"] = True
        browser.save_screenshot(shot)

        # The title holds markup: shown as text, never run.
        # (the playlist loops: wait for the item that has it).
        wait.until(lambda b: b.find_element(By.ID, "now").get_attribute("textContent") == title)
        seen["title_shown"] = browser.find_element(By.ID, "now").get_attribute("textContent")
        # While it plays, the header says the other item comes next (the status's "next").
        wait.until(lambda b: b.find_element(By.ID, "upcoming").get_attribute("textContent").startswith("next: "))
        seen["next_shown"] = browser.find_element(By.ID, "upcoming").get_attribute("textContent")
        try:
            browser.switch_to.alert
            seen["alert_opened"] = True
        except NoAlertPresentException:
            seen["alert_opened"] = False

        browser.find_element(By.ID, "pause").click()
        wait.until(lambda b: status().get("state") == "paused")
        seen["state_after_pause"] = status().get("state")
        def next_picture():
            # The picture the page loads after this moment (it asks for one every 2 s).
            shown = browser.find_element(By.ID, "screen").get_attribute("src")
            wait.until(lambda b: b.find_element(By.ID, "screen").get_attribute("src") != shown and screen_digest() is not None)
            return hashlib.sha1(screen_digest()[2].encode()).hexdigest()

        paused = next_picture()
        seen["paused_screen_still"] = next_picture() == paused and next_picture() == paused
        browser.find_element(By.ID, "goto-index").clear()
        browser.find_element(By.ID, "goto-index").send_keys("1")
        browser.find_element(By.ID, "goto").click()
        wait.until(lambda b: status().get("item") == "1")
        seen["item_after_goto"] = status().get("item")
        browser.find_element(By.ID, "play").click()
        wait.until(lambda b: status().get("state") == "playing")
        seen["state_after_play"] = status().get("state")

        # The playlist: the second item moved up, saved, and the page shows the new order.
        def names():
            return browser.execute_script(
                "return Array.from(document.querySelectorAll('#playlist .item-name')).map(c => c.textContent);")

        wait.until(lambda b: len(names()) >= 2)
        seen["playlist_before"] = names()
        browser.find_element(By.ID, "up-1").click()
        browser.find_element(By.ID, "save").click()
        wait.until(lambda b: b.find_element(By.ID, "playlist-message").text.startswith("Saved"))
        seen["playlist_after"] = names()
        # A card added to the list ("Add a card": a `text:` item, #35) and saved with it.
        browser.find_element(By.ID, "add-card").send_keys("SPECIALS")
        browser.find_element(By.ID, "add-card-button").click()
        browser.execute_script("document.getElementById('playlist-message').textContent = '';")
        browser.find_element(By.ID, "save").click()
        wait.until(lambda b: b.find_element(By.ID, "playlist-message").text.startswith(("Saved", "Not saved")))
        seen["card_saved"] = browser.find_element(By.ID, "playlist-message").text
        seen["playlist_with_card"] = names()

        # A schedule entry added, saved, and seen in the 7-day dry run.
        browser.find_element(By.ID, "add-entry").click()
        wait.until(lambda b: b.find_elements(By.ID, "entries-1-name"))
        for key, value in (("name", "lunch break"), ("from", "11:30"), ("to", "14:00")):
            field = browser.find_element(By.ID, f"entries-1-{key}")
            field.clear()
            field.send_keys(value)
        browser.find_element(By.ID, "entries-1-playlist").click()   # the last field's change lands
        browser.find_element(By.ID, "save-schedule").click()
        wait.until(lambda b: b.find_element(By.ID, "schedule-message").text.startswith(("Saved", "Not saved")))
        seen["schedule_saved"] = browser.find_element(By.ID, "schedule-message").text
        wait.until(lambda b: "lunch break" in b.find_element(By.ID, "schedule").text)
        seen["dry_run"] = browser.find_element(By.ID, "schedule").text
        # A message from the page: a text card as override "message" (override_text), ended
        # with "End all".
        browser.find_element(By.ID, "override-text").send_keys("BACK IN 5 MINUTES")
        browser.find_element(By.ID, "override-text-show").click()
        wait.until(lambda b: b.find_element(By.ID, "reply").text.startswith("override_text"))
        seen["message_reply"] = browser.find_element(By.ID, "reply").text
        wait.until(lambda b: b.find_element(By.ID, "now").get_attribute("textContent") == "text:BACK IN 5 MINUTES")
        seen["message_shown"] = browser.find_element(By.ID, "now").get_attribute("textContent")
        browser.find_element(By.CSS_SELECTOR, "button[data-command='[\"override_cancel\"]']").click()
        wait.until(lambda b: b.find_element(By.ID, "now").get_attribute("textContent") != "text:BACK IN 5 MINUTES")
        browser.find_element(By.ID, "logout").click()
        wait.until(lambda b: b.find_elements(By.ID, "password"))
        seen["after_logout"] = browser.current_url
        browser.get(url)
        seen["after_logout_console"] = browser.current_url
    finally:
        browser.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
