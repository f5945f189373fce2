"""Uploads a file through the web page's file input in headless chromium, then saves the
playlist; prints what the page said. Run with Debian's python3 by test_web_uploads.py.

Usage: web_browser_upload.py URL PASSWORD FILE [--no-save]   (--no-save: upload only, waiting
up to 10 minutes: a gigabyte through a relay that cuts the connection)"""
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 120


def main():
    url, password, path = sys.argv[1:4]
    save = "--no-save" not in sys.argv[4:]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1400"):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    seen = {}
    try:
        wait = WebDriverWait(browser, DEADLINE if save else 600, poll_frequency=0.2)
        browser.get(url)
        browser.find_element(By.ID, "password").send_keys(password)
        browser.find_element(By.ID, "login").click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#playlist .item-name"))
        browser.find_element(By.ID, "upload-file").send_keys(path)
        browser.find_element(By.ID, "upload").click()
        wait.until(lambda b: b.find_element(By.ID, "upload-message").text.startswith(("Uploaded", "Not uploaded")))
        seen["message"] = browser.find_element(By.ID, "upload-message").text
        if not save:
            return
        browser.find_element(By.ID, "save").click()
        wait.until(lambda b: b.find_element(By.ID, "playlist-message").text.startswith(("Saved", "Not saved")))
        seen["saved"] = browser.find_element(By.ID, "playlist-message").text
        seen["playlist"] = browser.execute_script(
            "return Array.from(document.querySelectorAll('#playlist .item-name')).map(c => c.title);")
    finally:
        browser.quit()
        print(json.dumps(seen))


if __name__ == "__main__":
    main()
