"""The browsers the console tests run in, behind one small page API.

Chromium: Debian's `chromium`, driven by Playwright for Python (its driver only, no browser
download). Firefox: Debian's `firefox-esr`, driven by Selenium through geckodriver (Mozilla's
WebDriver server, which compat/run builds from crates.io with cargo install): Playwright drives a stock Firefox only
through WebDriver BiDi commands newer than the ESR has, and its own Firefox build cannot be
downloaded here (docs/decisions.md). `FirefoxPage` answers the part of Playwright's Page and
Locator API the console tests use, so one test body runs in both browsers; `expect` takes a
locator of either kind.
"""

import os
import shutil
import tempfile

from playwright.sync_api import Locator as PlaywrightLocator
from playwright.sync_api import expect as playwright_expect
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.firefox.service import Service
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

# How long an expectation waits for the page to show it: the console polls once a second, and this
# machine may be busy.
TIMEOUT = 15.0
playwright_expect.set_options(timeout=TIMEOUT * 1000)


def chromium_path():
    return os.environ.get("SWITCHYARD_CHROMIUM") or shutil.which("chromium")


def firefox_paths():
    """(firefox, geckodriver), either None when missing."""
    firefox = os.environ.get("SWITCHYARD_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    cargo_bin = os.path.join(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"), "bin")
    driver = (os.environ.get("SWITCHYARD_GECKODRIVER") or shutil.which("geckodriver")
              or shutil.which("geckodriver", path=cargo_bin))
    return firefox, driver


# --- Firefox through Selenium ---------------------------------------------------------------------

# Finds elements from a chain of steps, each ("css", selector) or ("role", [role, name, exact]),
# each step searching inside what the previous found. A button's name is its aria-label or its
# text, with white space collapsed, as accessibility tools read it.
_FIND = """
function find(steps) {
let found = [document];
for (const [kind, arg] of steps) {
  const next = [];
  for (const root of found) {
    if (kind === 'css') next.push(...root.querySelectorAll(arg));
    else {
      const [role, name, exact] = arg;
      const selector = role === 'button' ? 'button, [role=button], input[type=submit], input[type=button]' : `[role=${role}]`;
      for (const el of root.querySelectorAll(selector)) {
        const label = (el.getAttribute('aria-label') || el.textContent || el.value || '').replace(/\\s+/g, ' ').trim();
        if (exact ? label === name : label.toLowerCase().includes(name.toLowerCase())) next.push(el);
      }
    }
  }
  found = next;
}
return found;
}
"""

_ERRORS = """
window.__consoleErrors = [];
window.addEventListener('error', (e) => window.__consoleErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.__consoleErrors.push(String(e.reason)));
"""


def _wait(what, check):
    """Polls `check` until it returns something other than None or False; fails after TIMEOUT.
    It waits for the page (which polls the emulator once a second), as Playwright's expect does,
    never for the emulator itself; Selenium's WebDriverWait does the polling (it hands the callable
    the object it was given, which `check` does not need)."""
    last = []

    def attempt(_):
        try:
            result = check()
        except Exception as e:  # an element replaced while being read: try again
            last[:] = [e]
            return False
        return result if result is not None and result is not False else False

    try:
        return WebDriverWait(None, TIMEOUT, poll_frequency=0.05).until(attempt)
    except TimeoutException:
        raise AssertionError(f"{what} (after {TIMEOUT} s; last error: {last[0] if last else None})") from None


class FirefoxLocator:
    def __init__(self, page, steps):
        self.page = page
        self.steps = steps

    def __repr__(self):
        return f"FirefoxLocator({self.steps})"

    def _all(self):
        return self.page.driver.execute_script(_FIND + "return find(arguments[0]);", self.steps)

    def _with_one(self, what, act, clickable=False):
        """Does `act(element)` once exactly one element matches (displayed and enabled, if
        `clickable`), finding it again if the console redrew it in between, as Playwright does."""

        def attempt():
            found = self._all()
            if len(found) != 1 or (clickable and not (found[0].is_displayed() and found[0].is_enabled())):
                return None
            return (act(found[0]),)

        return _wait(f"{what} on exactly one element for {self.steps}", attempt)[0]

    def locator(self, selector):
        return FirefoxLocator(self.page, self.steps + [["css", selector]])

    def get_by_role(self, role, name, exact=False):
        return FirefoxLocator(self.page, self.steps + [["role", [role, name, exact]]])

    def count(self):
        return len(self._all())

    def click(self):
        self._with_one("click", lambda e: e.click(), clickable=True)

    def focus(self):
        self._with_one("focus", lambda e: self.page.driver.execute_script("arguments[0].focus()", e))

    def press(self, key):
        self.focus()
        self.page.keyboard.press(key)

    def fill(self, text):
        def fill(element):
            element.clear()
            element.send_keys(text)

        self._with_one("fill", fill, clickable=True)

    def select_option(self, value):
        self._with_one("select", lambda e: Select(e).select_by_value(value), clickable=True)

    def get_attribute(self, name):
        return self._with_one("get_attribute", lambda e: e.get_attribute(name))

    def inner_text(self):
        return self._with_one("inner_text", lambda e: self.page.driver.execute_script("return arguments[0].innerText", e))

    def text_content(self):
        return self._with_one("text_content", lambda e: e.get_property("textContent"))

    def input_value(self):
        return self._with_one("input_value", lambda e: e.get_property("value"))

    def is_visible(self):
        found = self._all()
        return len(found) == 1 and found[0].is_displayed()

    def evaluate_all(self, expression):
        # One script: the elements found are read before the console can redraw them.
        return self.page.driver.execute_script(_FIND + f"return ({expression})(find(arguments[0]));", self.steps)

    def screenshot(self, path):
        self._with_one("screenshot", lambda e: e.screenshot(path))


class FirefoxKeyboard:
    def __init__(self, driver):
        self.driver = driver

    def press(self, key):
        keys = {"Enter": Keys.ENTER, "Tab": Keys.TAB, "Space": Keys.SPACE, " ": Keys.SPACE, "Escape": Keys.ESCAPE}
        chain = ActionChains(self.driver)
        if key.startswith("Shift+"):
            chain.key_down(Keys.SHIFT).send_keys(keys.get(key[6:], key[6:])).key_up(Keys.SHIFT)
        else:
            chain.send_keys(keys.get(key, key))
        chain.perform()

    def type(self, text):
        ActionChains(self.driver).send_keys(text).perform()


class FirefoxPage:
    """Playwright's Page as far as the console tests use it, over a Selenium Firefox session."""

    def __init__(self, driver):
        self.driver = driver
        self.keyboard = FirefoxKeyboard(driver)

    def goto(self, url):
        self.driver.get(url)
        self.driver.execute_script(_ERRORS)

    def locator(self, selector):
        return FirefoxLocator(self, [["css", selector]])

    def get_by_role(self, role, name, exact=False):
        return FirefoxLocator(self, [["role", [role, name, exact]]])

    def fill(self, selector, text):
        self.locator(selector).fill(text)

    def select_option(self, selector, value):
        self.locator(selector).select_option(value)

    def evaluate(self, expression):
        """As Playwright's: a function expression is called, anything else is its value."""
        return self.driver.execute_script(
            f"const v = ({expression}); return typeof v === 'function' ? v() : v;")

    def errors(self):
        return self.driver.execute_script("return window.__consoleErrors || []")


def launch_firefox(width, height):
    """A headless Firefox ESR session through geckodriver; (driver, profile dir to remove)."""
    firefox, geckodriver = firefox_paths()
    options = webdriver.FirefoxOptions()
    options.binary_location = firefox
    options.add_argument("-headless")
    options.add_argument(f"--width={width}")
    options.add_argument(f"--height={height}")
    # No network of its own: no updates, telemetry or captive-portal checks.
    for pref, value in {
        "app.update.disabledForTesting": True,
        "network.captive-portal-service.enabled": False,
        "network.connectivity-service.enabled": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "browser.shell.checkDefaultBrowser": False,
        "network.proxy.type": 0,
    }.items():
        options.set_preference(pref, value)
    home = tempfile.mkdtemp(prefix="switchyard-firefox-")
    service = Service(executable_path=geckodriver, log_output=os.path.join(home, "geckodriver.log"),
                      env={**os.environ, "HOME": home, "MOZ_CRASHREPORTER_DISABLE": "1"})
    driver = webdriver.Firefox(options=options, service=service)
    driver.set_window_size(width, height)
    return driver, home


# --- expectations on either kind of locator -------------------------------------------------------


class _Expect:
    def __init__(self, locator):
        self.locator = locator

    def _poll(self, what, check):
        _wait(f"expected {self.locator} {what}", check)

    def to_have_count(self, n):
        self._poll(f"to count {n}", lambda: self.locator.count() == n)

    # Text as Playwright's expect reads it: textContent, white space collapsed.
    def _text(self):
        return " ".join(self.locator.text_content().split())

    def to_have_text(self, text):
        self._poll(f"to have text {text!r}", lambda: self._text() == text)

    def to_contain_text(self, text):
        self._poll(f"to contain {text!r}", lambda: text in self._text())

    def to_have_attribute(self, name, value):
        self._poll(f"to have {name}={value!r}", lambda: self.locator.get_attribute(name) == value)

    def to_have_value(self, value):
        self._poll(f"to have value {value!r}", lambda: self.locator.input_value() == value)

    def to_be_visible(self):
        self._poll("to be visible", lambda: self.locator.is_visible())


def expect(locator):
    """Playwright's expect for Playwright's locators; the same assertions, polled, for Firefox's."""
    if isinstance(locator, PlaywrightLocator):
        return playwright_expect(locator)
    return _Expect(locator)
