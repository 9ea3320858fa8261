#!/usr/bin/env python3
"""Sign in (or out) on glewlwyd's own login page with a real, headless Chromium (Selenium WebDriver).

usage: browser-login.py AUTHORIZATION_URL|START_LINK [--username U] [--password P] [--profile DIR] [--timeout S] [--screenshot PNG]
                        [--result FILE]
       browser-login.py --logout END_SESSION_URL --profile DIR [--timeout S] [--screenshot PNG] [--result FILE]

Sign-in: opens the authorization URL, or Xid's start link that redirects to it (glewlwyd answers with its login.html), fills #username and #password,
presses #loginbut, then "Continue", and returns once the browser has loaded the request's redirect_uri: the
caller's loopback listener must be up and answer it. Username and password default to XID_IDP_USERNAME and
XID_IDP_PASSWORD. With --logout: opens the end_session URL (id_token_hint, post_logout_redirect_uri, state),
presses "Logout" and waits for post_logout_redirect_uri to load; that needs the session of an earlier sign-in,
so both runs must use the same --profile (a Chromium user-data directory; default: a fresh one per run).
Exit status 0 on success; 1 with a message on stderr (and the screenshot, if asked) when a step does not
happen in time. --result FILE also writes "ok", or "failed: " and the reason, to FILE once Chromium has quit,
for callers that start this script without waiting for it (Xid's BrowserLauncher.command). Messages never
show a URL's query (it may carry a code). Needs setup-browser.sh first; re-runs itself with the venv's python.
"""
import argparse
import os
import signal
import sys
import time
import urllib.parse

VENV = os.environ.get("XID_INTEROP_VENV") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build", "interop-venv")
try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    python = os.path.join(VENV, "bin", "python")
    if os.path.exists(python) and not os.environ.get("XID_INTEROP_IN_VENV"):
        os.environ["XID_INTEROP_IN_VENV"] = "1"
        os.execv(python, [python, *sys.argv])
    sys.exit(f"browser-login: selenium is not importable (venv {VENV}): run scripts/interop/setup-browser.sh")

# Debian's packages, named explicitly so that Selenium Manager never tries to download a driver.
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def button(label):
    return By.XPATH, f"//button[normalize-space()='{label}']"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("url", help="authorization URL (without g_continue), or with --logout the end_session URL")
    ap.add_argument("--logout", action="store_true", help="sign out through end_session instead")
    ap.add_argument("--username", default=os.environ.get("XID_IDP_USERNAME", "alice"))
    ap.add_argument("--password", default=os.environ.get("XID_IDP_PASSWORD", "alice-password-1"))
    ap.add_argument("--profile", help="Chromium user-data directory kept between runs (default: fresh)")
    ap.add_argument("--timeout", type=float, default=30, help="seconds for the whole run (default 30)")
    ap.add_argument("--screenshot", help="write a PNG of the page here when a step fails")
    ap.add_argument("--result", help='write "ok" or "failed: REASON" here when done')
    args = ap.parse_args()
    status, message = run(args)
    print(message, file=sys.stderr)
    if args.result:
        with open(args.result + ".tmp", "w") as f:
            f.write("ok\n" if status == 0 else message.replace("browser-login: FAILED", "failed:", 1) + "\n")
        os.replace(args.result + ".tmp", args.result)
    return status


# The path of the start link Xid's LoopbackUserAgent gives the browser instead of the authorization URL.
START_LINK_PATH = "/xid-sign-in/"


def without_query(url):
    """The URL without its query and fragment, which may carry a code or a token."""
    return urllib.parse.urlsplit(url)._replace(query="", fragment="").geturl()


def run(args):
    """One browser run: (exit status, message)."""
    param = "post_logout_redirect_uri" if args.logout else "redirect_uri"
    target = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(args.url).query)).get(param)
    start = urllib.parse.urlsplit(args.url)
    if not target and not args.logout and start.path.startswith(START_LINK_PATH):
        # Xid's start link (no query: the command line shows nothing of the sign-in), which redirects
        # to the authorization URL once; the redirect URI is on the same listener.
        target = f"{start.scheme}://{start.netloc}/"
    if not target:
        return 1, f"browser-login: FAILED: the URL has no {param}"

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # no-sandbox: CI runs as root; no-proxy-server: everything is on loopback; English: the button labels
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-proxy-server", "--lang=en-US", "--no-first-run", "--window-size=1024,768"):
        options.add_argument(flag)
    if args.profile:
        options.add_argument(f"--user-data-dir={os.path.abspath(args.profile)}")
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US"})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # a killed run still quits Chromium (finally)
    started = time.monotonic()
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except WebDriverException as e:
        return 1, f"browser-login: FAILED to start {CHROMEDRIVER} with {CHROMIUM}: {e.msg}"
    ready = time.monotonic()
    step = "the page to open"
    try:
        def wait(condition):
            remaining = max(0.1, started + args.timeout - time.monotonic())
            return WebDriverWait(driver, remaining, poll_frequency=0.05).until(condition)

        def loaded(d):  # document.URL, not current_url: that one also names a page that failed to load
            url = d.execute_script("return document.URL")
            if url.startswith("chrome-error:"):
                raise WebDriverException(f"{target} did not load: is the caller's loopback listener up?")
            return url.startswith(target) and START_LINK_PATH not in url

        driver.get(args.url)
        if args.logout:
            step = 'the end-session page\'s "Logout" button (no session in this --profile?)'
            wait(EC.element_to_be_clickable(button("Logout"))).click()
        else:
            step = "the login form (#username) on login.html"
            # with a kept --profile the session may still be there: then "Continue" is offered at once
            found = wait(EC.any_of(EC.element_to_be_clickable((By.ID, "username")),
                                   EC.element_to_be_clickable(button("Continue"))))
            if found.get_attribute("id") == "username":
                found.send_keys(args.username)
                driver.find_element(By.ID, "password").send_keys(args.password)
                driver.find_element(By.ID, "loginbut").click()
                step = 'the "Continue" button after login (wrong password? consent not granted?)'
                found = wait(EC.element_to_be_clickable(button("Continue")))
            found.click()
        step = f"{target} to load"
        wait(loaded)
    except WebDriverException as e:
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
        reason = type(e).__name__ + (f": {e.msg}" if getattr(e, "msg", None) else "")
        return 1, f"browser-login: FAILED waiting for {step} ({reason}); page {without_query(driver.current_url)}"
    finally:
        driver.quit()
    now = time.monotonic()
    return 0, (f"browser-login: {'signed out' if args.logout else 'signed in as ' + args.username} in "
               f"{now - started:.2f} s (browser start {ready - started:.2f} s, pages {now - ready:.2f} s)")


if __name__ == "__main__":
    sys.exit(main())
