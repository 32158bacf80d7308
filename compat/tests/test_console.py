"""The web console at /_switchyard/ui, driven headless in Chromium (Debian's `chromium`, through
Playwright for Python) and in Firefox (Debian's `firefox-esr`, through Selenium and geckodriver;
compat/run installs all three when missing), as a person would use it. Every test that takes
`page` runs once in each browser (tests/browsers.py gives both one page API).

It runs the README's SNS retry scenario (an HTTP endpoint answering 503 under AWS's example delivery
policy, 51 attempts over 43 virtual minutes, then the dead-letter queue), opens the console and
checks the topic, the subscription and the attempts with their phases; advances the clock with the
console's own button and sees the timeline move; adds a fault with the console's form and sees the
next delivery meet it; and peeks into the DLQ. Keyboard use (tab order, Enter and Space, a visible
focus) and zoom, EventBridge's day-long default schedule read on one log axis from +1 ms to hours,
and SNS's 23-day schedule of an SQS subscription (100,016 attempts, drawn whole from the server's
bins, then zoomed in to single attempts) have tests of their own, as do a resource's details read
as labelled fields (a queue's attributes, its redrive policy folded), rules nested under their bus,
the attempts table folded under a summary of its count and outcomes, and lane labels (the source's
name, the full ARN in the tooltip, legible and not overlapping). Screenshots of the timeline and
the details are written next to the server log (compat/.logs/console-*.png).

Also: LocalStack's GET /_aws/sqs/messages, which the console peeks with (facts from LocalStack's
public documentation and test suite: the ReceiveMessageResponse shape, IsVisible / IsDelayed, the
error codes), and GET /_switchyard/resources.
"""

import json
import os
import re
import shutil
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from browsers import FirefoxPage, chromium_path, expect, firefox_paths, launch_firefox
from playwright.sync_api import sync_playwright

POLICY = {
    "healthyRetryPolicy": {
        "minDelayTarget": 1, "maxDelayTarget": 60, "numRetries": 50, "numNoDelayRetries": 3,
        "numMinDelayRetries": 2, "numMaxDelayRetries": 35, "backoffFunction": "exponential",
    }
}
# The phases of the 51 attempts: the first, 3 with no delay, 2 at the minimum delay, the backoff
# phase (50 - 3 - 2 - 35 = 10 retries), 35 at the maximum delay.
PHASES = ["initial"] + ["immediate"] * 3 + ["pre-backoff"] * 2 + ["backoff"] * 10 + ["post-backoff"] * 35
VIEWPORT = {"width": 1400, "height": 1000}
DAY = 86_400

_http = requests.Session()
_http.trust_env = False


def unavailable(browser, missing, how):
    """Skips when compat/run said it could not install `browser` (COMPAT_<BROWSER>_UNAVAILABLE
    holds why); otherwise a missing browser fails the test."""
    reason = os.environ.get(f"COMPAT_{browser.upper()}_UNAVAILABLE")
    if reason:
        pytest.skip(f"{browser} cannot be installed here: {reason}")
    pytest.fail(f"{missing} is not installed: compat/run installs it ({how})")


class Endpoint:
    """An HTTP endpoint on 127.0.0.1: confirms its subscription (GET SubscribeURL), then answers
    every notification with `status` (503 as in the README)."""

    def __init__(self):
        self.status = 503
        self.notifications = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                doc = json.loads(body or b"{}")
                status = 200
                if doc.get("Type") == "SubscriptionConfirmation":
                    _http.get(doc["SubscribeURL"], timeout=10)
                else:
                    outer.notifications += 1
                    status = outer.status
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d/hook" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    e = Endpoint()
    yield e
    e.close()


@pytest.fixture(params=["chromium", "firefox"])
def page(request):
    if request.param == "chromium":
        path = chromium_path()
        if not path:
            unavailable("chromium", "Debian's chromium", "apt-get install chromium")
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=path,
                headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
            )
            page = browser.new_page(viewport=VIEWPORT)
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page
            browser.close()
            assert errors == [], f"the console raised: {errors}"
    else:
        firefox, geckodriver = firefox_paths()
        if not firefox:
            unavailable("firefox", "Debian's firefox-esr", "apt-get install firefox-esr")
        if not geckodriver:
            unavailable("firefox", "geckodriver", "cargo install geckodriver --locked")
        driver, home = launch_firefox(VIEWPORT["width"], VIEWPORT["height"])
        try:
            page = FirefoxPage(driver)
            yield page
            errors = page.errors()
        finally:
            driver.quit()
            shutil.rmtree(home, ignore_errors=True)
        assert errors == [], f"the console raised: {errors}"


def screenshot(page, locator, name):
    """Writes `locator`'s picture to compat/.logs/console-<name>[-firefox].png."""
    logs = os.path.dirname(os.environ.get("COMPAT_SERVER_LOG", "compat/.logs/x"))
    os.makedirs(logs, exist_ok=True)
    suffix = "-firefox" if isinstance(page, FirefoxPage) else ""
    locator.screenshot(path=os.path.join(logs, f"console-{name}{suffix}.png"))


def zoomed(span, times):
    """The console's window after `times` zooms in from `span` ms (halved, rounded as JavaScript's
    Math.round rounds)."""
    for _ in range(times):
        span = max(int(span * 0.5 + 0.5), 1)
    return span


def retry_scenario(sns, sqs, control, endpoint):
    """The README's 'Testing a retry schedule in seconds', up to the publish."""
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sqs.create_queue(QueueName="dlq")
    attributes = {
        "DeliveryPolicy": json.dumps(POLICY),
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq"}),
    }
    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url, Attributes=attributes)
    control.advance(0)  # the SubscriptionConfirmation goes out; the endpoint confirms
    subs = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert len(subs) == 1 and subs[0]["SubscriptionArn"].startswith(topic + ":"), subs
    message_id = sns.publish(TopicArn=topic, Message='{"id": 42}')["MessageId"]
    return topic, subs[0]["SubscriptionArn"], message_id


def attempts(control, source, message_id=None):
    params = {"source": source, "event": "attempt"}
    if message_id:
        params["messageId"] = message_id
    return control.get("/deliveries", **params).json()["records"]


def test_console_shows_the_retry_schedule_moves_with_the_clock_and_adds_faults(
    sns, sqs, control, endpoint, url, page
):
    topic, sub, message_id = retry_scenario(sns, sqs, control, endpoint)
    page.goto(url + "/_switchyard/ui")
    expect(page.locator("#clock-mode")).to_have_text("manual")

    # The topic and its subscription, with protocol and confirmation state.
    tree = page.locator("#resource-tree")
    expect(tree.get_by_role("button", name="orders", exact=True)).to_be_visible()
    sub_button = tree.locator(f'button[data-arn="{sub}"]')
    expect(sub_button).to_contain_text(f"http → {endpoint.url} (confirmed)")
    tree.get_by_role("button", name="orders", exact=True).click()
    expect(page.locator('#detail-fields [data-field="arn"] > dd')).to_have_text(topic)

    # Choose the subscription: its delivery policy among its fields, its lane on the timeline,
    # before the clock moves.
    sub_button.click()
    expect(page.locator('#detail-fields [data-field="deliveryPolicy"] summary')).to_contain_text("healthyRetryPolicy")
    expect(page.locator("#tl-source")).to_have_value(sub)
    # The subscription's lanes: the SubscriptionConfirmation (an attempt too) and the message.
    expect(page.locator("#tl-svg g.lane")).to_have_count(2)
    page.select_option("#tl-message", message_id)
    before = attempts(control, sub, message_id)
    assert 1 <= len(before) < 51, before
    expect(page.locator("#tl-records tbody tr[data-event=attempt]")).to_have_count(len(before))
    now_before = page.locator("#tl-now").get_attribute("data-now")

    # +1 h from the console's own button: every attempt is made, the last goes to the DLQ.
    page.get_by_role("button", name="+1 h").click()
    expect(page.locator("#status")).to_contain_text("Advanced to")
    rows = page.locator("#tl-records tbody tr[data-event=attempt]")
    expect(rows).to_have_count(51)
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.phase)") == PHASES
    marks = page.locator("#tl-svg g.rec.attempt")
    expect(marks).to_have_count(51)
    assert marks.evaluate_all("gs => gs.map(g => g.dataset.phase)") == PHASES
    expect(page.locator("#tl-svg g.rec.dead-lettered")).to_have_count(1)
    assert page.locator("#tl-now").get_attribute("data-now") != now_before
    assert int(page.locator("#tl-now").get_attribute("data-now")) - int(now_before) == 3_600_000
    assert endpoint.notifications == 51
    screenshot(page, page.locator("#timeline"), "timeline")  # the table stays folded

    # Peek into the DLQ from the console: the message is there, and stays there.
    page.locator("#resource-tree").get_by_role("button", name="dlq", exact=True).click()
    page.get_by_role("button", name="Peek (no receive)").click()
    expect(page.locator("#peek-result")).to_contain_text('"Value": "0"')
    expect(page.locator("#peek-result")).to_contain_text("id")

    # The fault form: the endpoint would answer 200 now, but a fault of 500 for one attempt is met
    # by the next delivery, published from the console's own form.
    endpoint.status = 200
    page.fill("#fault-form input[name=target]", endpoint.url)
    page.fill("#fault-form input[name=status]", "500")
    page.fill("#fault-form input[name=count]", "1")
    page.get_by_role("button", name="Add fault").click()
    expect(page.locator("#fault-list")).to_contain_text(f"{endpoint.url}: status 500, 1 attempt(s) left")
    page.locator("#resource-tree").get_by_role("button", name="orders", exact=True).click()
    page.fill("#detail textarea[name=message]", "after the fault")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator("#status")).to_contain_text("Publish: done, id")
    second = page.locator("#status").inner_text().rsplit(" ", 1)[-1]
    control.advance(0)
    first = attempts(control, sub, second)
    assert [(a["attempt"], a["phase"], a["status"], a["outcome"]) for a in first] == [
        (1, "initial", 500, "retryable"),
        (2, "immediate", 200, "delivered"),
    ]
    expect(page.locator("#fault-list")).to_contain_text("No faults in force.")
    page.select_option("#tl-message", second)
    expect(page.locator("#tl-records tbody tr")).to_have_count(2)


def test_console_keyboard_and_zoom(sns, sqs, control, endpoint, url, page):
    """Keyboard only: Tab reaches the clock buttons, Enter presses them; the zoom keeps every
    attempt readable on a linear axis from milliseconds to days."""
    _, sub, message_id = retry_scenario(sns, sqs, control, endpoint)
    control.advance(3600)
    page.goto(url + "/_switchyard/ui")
    page.locator(f'#resource-tree button[data-arn="{sub}"]').focus()
    page.keyboard.press("Enter")
    page.locator("#tl-message").focus()
    page.select_option("#tl-message", message_id)
    expect(page.locator("#tl-svg g.rec.attempt")).to_have_count(51)
    page.locator("#tl-fit").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#tl-span")).to_contain_text("window")
    fitted = int(page.locator("#tl-chart").get_attribute("data-span"))
    page.locator("body").press("+")
    page.locator("body").press("+")
    # Zoomed in 4x from the whole schedule: only the first part of it is on screen.
    expect(page.locator("#tl-chart")).to_have_attribute("data-span", str(zoomed(fitted, 2)))
    assert 0 < page.locator("#tl-svg g.rec.attempt").count() < 51
    page.select_option("#tl-scale", "log")
    expect(page.locator("#tl-svg g.rec.attempt")).to_have_count(51)
    day = page.get_by_role("button", name="+1 day")
    day.focus()
    before = control.clock()["epochMillis"]
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("Advanced to")
    assert control.clock()["epochMillis"] - before == 86_400_000


def test_console_assets_are_served_from_the_binary(url):
    r = _http.get(url + "/_switchyard/ui", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "https://" not in r.text and "http://" not in r.text.replace("http://www.w3.org", "")
    for name, kind in [("app.js", "text/javascript"), ("timeline.js", "text/javascript"), ("style.css", "text/css")]:
        r = _http.get(f"{url}/_switchyard/ui/{name}", timeout=10)
        assert r.status_code == 200 and r.headers["content-type"].startswith(kind), name
        assert "https://" not in r.text, f"{name} refers to the network"
    r = _http.get(url + "/_switchyard/ui/nope.js", timeout=10)
    assert (r.status_code, r.json()["error"]) == (404, "NotFound")


def test_console_reads_a_day_long_schedule_from_milliseconds_to_hours(make_client, sqs, control, url, page):
    """EventBridge's default retry policy (24 virtual hours) on a failing target: the console's
    '+1 day' runs it, and the log axis shows the first millisecond and the last hours in one lane."""
    events = make_client("events")
    queue = "arn:aws:sqs:us-east-1:000000000000:orders"
    sqs.create_queue(QueueName="orders")
    rule = events.put_rule(Name="all-orders", EventPattern='{"source":["shop"]}')["RuleArn"]
    events.put_targets(Rule="all-orders", Targets=[{"Id": "q", "Arn": queue}])
    assert control.post("/faults", {"target": queue, "status": 500}).status_code == 201
    events.put_events(Entries=[{"Source": "shop", "DetailType": "OrderPlaced", "Detail": "{}"}])
    page.goto(url + "/_switchyard/ui")
    target = page.locator(f'#resource-tree button[data-arn="{rule}#q"]')
    expect(target).to_contain_text("all-orders → q")
    target.click()
    page.get_by_role("button", name="+1 day").click()
    expect(page.locator("#status")).to_contain_text("Advanced to")
    made = attempts(control, f"{rule}#q")
    assert len(made) > 100 and made[-1]["nextAttemptAt"] is None, made[-1]
    expect(page.locator("#tl-svg g.rec.attempt")).to_have_count(len(made))
    phases = set(page.locator("#tl-svg g.rec.attempt").evaluate_all("gs => gs.map(g => g.dataset.phase)"))
    assert phases == {"initial", "retry"}
    ticks = page.locator("#tl-svg > text").evaluate_all("ts => ts.map(t => t.textContent)")
    assert "+1 ms" in ticks and "+6 h" in ticks, ticks


def ticks(page):
    return page.locator("#tl-svg text.tick").evaluate_all("ts => ts.map(t => t.textContent)")


def test_console_draws_the_23_day_schedule_whole_and_zooms_to_single_attempts(sns, sqs, control, url, page):
    """SNS's AWS-managed schedule of an SQS subscription whose queue fails: 100,016 attempts over
    23 virtual days (fewer with the server's jitter), then the DLQ (compat/run gives the server a
    delivery log of 200,000 records, so none falls out). The console draws it whole from the server's bins, on the log axis and
    fitted on a linear one in days, then zoomed in to the first seconds, attempt by attempt."""
    topic = sns.create_topic(Name="orders")["TopicArn"]
    target = "arn:aws:sqs:us-east-1:000000000000:target"
    for name in ["target", "dlq"]:
        sqs.create_queue(QueueName=name)
    redrive = json.dumps({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:dlq"})
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=target, Attributes={"RedrivePolicy": redrive},
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    assert control.post("/faults", {"target": target, "status": 500}).status_code == 201
    capacity = control.get("/deliveries/timeline", bins=1).json()["capacity"]
    assert capacity > 100_017, (f"the server keeps {capacity} delivery records: start it with "
                                "--delivery-log-size 200000, as compat/run does")
    sns.publish(TopicArn=topic, Message="long haul")
    control.advance(24 * DAY)
    whole = control.get("/deliveries/timeline", source=sub, bins=1).json()
    first, last = whole["lanes"][0]["first"]["at"], whole["lanes"][0]["last"]["at"]
    assert (whole["lanes"][0]["attempts"], whole["evicted"]) == (100_016, 0), whole["lanes"][0]["attempts"]
    # 23 days with no jitter; the server's jitter (on, as by default) shortens each delay.
    days = (epoch_ms(last) - epoch_ms(first)) / (DAY * 1000)
    assert 15 < days < 23.2, days

    page.goto(url + "/_switchyard/ui")
    page.locator(f'#resource-tree button[data-arn="{sub}"]').click()
    lane = page.locator("#tl-svg g.lane")
    expect(lane).to_have_count(1)
    expect(lane.locator("text.lane-summary")).to_contain_text("100,016 attempts over ")
    said = re.fullmatch(r"100,016 attempts over (\d+\.\d) d", lane.locator("text.lane-summary").text_content())
    assert said and abs(float(said[1]) - days) <= 0.05, (said, days)
    assert lane.get_attribute("data-attempts") == "100016"
    expect(page.locator("#tl-summary")).to_contain_text("1 lane(s) · 100,016 attempts · 100,017 records")
    assert "dropped" not in page.locator("#tl-summary").inner_text()
    # The log axis: the first attempts one by one, the rest as bars, the DLQ write at the end;
    # every record accounted for once.
    assert page.locator("#tl-chart").get_attribute("data-scale") == "log"
    marks = page.locator("#tl-svg g.rec.attempt")
    bars = page.locator("#tl-svg g.rec.bin")
    assert marks.evaluate_all("gs => gs.slice(0, 7).map(g => g.dataset.phase)") == (
        ["initial"] + ["immediate"] * 3 + ["pre-backoff"] * 2 + ["backoff"])
    # The last bin is a bar: the DLQ write is counted in it and drawn on its own as well.
    drawn = marks.count() + sum(bars.evaluate_all("gs => gs.map(g => Number(g.dataset.count))"))
    assert drawn == 100_017, drawn
    expect(page.locator("#tl-svg g.rec.dead-lettered")).to_have_count(1)
    assert "post-backoff" in bars.evaluate_all("gs => gs.map(g => g.dataset.phase)")
    assert {"+1 ms", "+1 s", "+1 min", "+1 h", "+1 d", "+7 d", "+14 d"} <= set(ticks(page)), ticks(page)
    screenshot(page, page.locator("#timeline"), "23-days")

    # Fitted on a linear axis: the 23 days, labelled in days.
    page.get_by_role("button", name="Fit").click()
    expect(page.locator("#tl-chart")).to_have_attribute("data-scale", "linear")
    fitted = int(page.locator("#tl-chart").get_attribute("data-span"))
    assert fitted == int((epoch_ms(last) - epoch_ms(first)) * 1.05 + 0.5), fitted
    labels = ticks(page)
    assert labels[0] == "+0" and all(t.endswith(" d") for t in labels[1:]) and len(labels) >= 4, labels

    # Zoomed in to the first seconds with the keyboard: single attempts, nothing binned.
    page.get_by_role("button", name="Fit").focus()
    for _ in range(18):
        page.keyboard.press("+")
    span = zoomed(fitted, 18)
    assert 1_000 < span < 10_000, span
    expect(page.locator("#tl-chart")).to_have_attribute("data-span", str(span))
    window = control.get("/deliveries/timeline", source=sub, **{"from": first},
                         to=iso(epoch_ms(first) + span), bins=1, exact=100).json()
    early = [r["phase"] for r in window["lanes"][0]["bins"][0]["records"]]
    assert len(early) >= 6 and early[:4] == ["initial"] + ["immediate"] * 3, early
    expect(bars).to_have_count(0)
    expect(marks).to_have_count(len(early))
    assert marks.evaluate_all("gs => gs.map(g => g.dataset.phase)") == early
    assert all(t == "+0" or t.endswith(" s") or t.endswith(" ms") for t in ticks(page)), ticks(page)
    screenshot(page, page.locator("#tl-chart"), "23-days-first-seconds")


def epoch_ms(at):
    """An RFC 3339 time of the control API in epoch milliseconds."""
    t = datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return round(t.timestamp() * 1000)


def iso(ms):
    """Epoch milliseconds in the control API's form."""
    t = datetime.fromtimestamp(ms / 1000, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def test_console_says_when_the_start_of_a_schedule_left_the_log(sns, sqs, control, endpoint, url, page):
    """The README's schedule with the log emptied after its first ten minutes: the lane begins
    with a later attempt, and the console says how many came before it."""
    _, sub, message_id = retry_scenario(sns, sqs, control, endpoint)
    control.advance(600)
    made = len(attempts(control, sub, message_id))
    assert control.delete("/deliveries").status_code == 200
    control.advance(3600)
    page.goto(url + "/_switchyard/ui")
    page.locator(f'#resource-tree button[data-arn="{sub}"]').click()
    lane = page.locator("#tl-svg g.lane")
    expect(lane).to_have_count(1)
    assert lane.get_attribute("data-dropped") == str(made)
    expect(lane.locator("text.lane-summary")).to_contain_text(f"{51 - made} attempts over")
    expect(lane.locator("text.lane-summary")).to_contain_text(f"{made} earlier dropped")
    capacity = control.get("/deliveries/timeline", bins=1).json()["capacity"]
    expect(page.locator("#tl-summary")).to_contain_text(
        f"{made} earlier attempts dropped from the log, which keeps the newest {capacity:,} records")


def test_console_is_usable_by_keyboard_alone(sns, sqs, control, endpoint, url, page):
    """Tab order from the top of the page, a visible focus on each control, Enter and Space on
    buttons, typing into the fault form; and phases told apart by letter and pattern, not colour
    alone."""
    _, sub, _ = retry_scenario(sns, sqs, control, endpoint)
    control.advance(3600)
    page.goto(url + "/_switchyard/ui")
    expect(page.locator(f'#resource-tree button[data-arn="{sub}"]')).to_be_visible()
    focused = """() => { const e = document.activeElement; const s = getComputedStyle(e);
        return [(e.getAttribute('aria-label') || e.id || e.textContent || e.name || '').trim(),
                s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2] }"""
    order = []
    while "fault-clear" not in order:  # the page's last control
        assert len(order) < 40, order
        page.keyboard.press("Tab")
        name, ring = page.evaluate(focused)
        order.append(name)
        assert ring, f"no visible focus on {name!r} after {order}"
    wanted = ["Skip to the timeline", "+1 s", "+1 min", "+1 h", "+1 day", "dlq", "orders",
              "tl-source", "tl-message", "tl-scale", "Zoom in", "Zoom out", "Pan left", "Pan right", "tl-fit"]
    positions = [order.index(w) for w in wanted if w in order]
    assert len(positions) == len(wanted) and positions == sorted(positions), order

    # Enter on a resource selects it; Space on a clock button presses it.
    for _ in range(len(order) - order.index("orders") - 1):
        page.keyboard.press("Shift+Tab")
    assert page.evaluate(focused)[0] == "orders"
    page.keyboard.press("Enter")
    expect(page.locator("#detail-h")).to_have_text("topics: orders")
    page.get_by_role("button", name="+1 min").focus()
    before = control.clock()["epochMillis"]
    page.keyboard.press("Space")
    expect(page.locator("#status")).to_contain_text("Advanced to")
    assert control.clock()["epochMillis"] - before == 60_000

    # A fault added with the keyboard only.
    page.locator("#fault-form input[name=target]").focus()
    page.keyboard.type(endpoint.url)
    page.keyboard.press("Enter")
    expect(page.locator("#fault-list")).to_contain_text(f"{endpoint.url}: status 500, until cleared")

    # Not colour alone: every attempt carries its phase's letter and pattern, as the legend says.
    page.locator(f'#resource-tree button[data-arn="{sub}"]').click()
    expect(page.locator("#tl-svg g.rec.attempt")).to_have_count(52)  # the confirmation and 51
    letters = page.locator("#tl-svg g.rec.attempt").evaluate_all(
        "gs => gs.map(g => [g.dataset.phase, g.querySelector('text').textContent, g.querySelector('rect').getAttribute('fill')])")
    key = {"initial": "I", "immediate": "M", "pre-backoff": "P", "backoff": "B", "post-backoff": "A"}
    for phase, letter, fill in letters:
        assert letter.startswith(key[phase]) and fill == f"url(#p-{phase})", (phase, letter, fill)
    legend = page.locator("#tl-legend").inner_text()
    assert all(f"{letter} = {phase}" in legend for phase, letter in key.items()), legend


def test_console_shows_a_functions_invocations_and_its_attempts_on_the_timeline(make_client, sqs, control, url, page):
    """A Lambda function in the tree: its last invocations (request id, duration, result, the log
    folded), and the attempts of a failing asynchronous invocation on the timeline."""
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("app.py", "def ok(event, context):\n    return event\n"
                             "def fails(event, context):\n    raise ValueError('no')\n")
    awslambda = make_client("lambda")
    for name, handler in [("hello", "app.ok"), ("broken", "app.fails")]:
        awslambda.create_function(FunctionName=name, Role="arn:aws:iam::000000000000:role/l",
                                  Runtime="python3.12", Handler=handler, Code={"ZipFile": buf.getvalue()})
    out = awslambda.invoke(FunctionName="hello", Payload=b'{"n": 1}')
    assert out["StatusCode"] == 200
    awslambda.invoke(FunctionName="broken", InvocationType="Event", Payload=b"{}")
    control.advance(180)
    page.goto(url + "/_switchyard/ui")
    hello = "arn:aws:lambda:us-east-1:000000000000:function:hello"
    button = page.locator(f'#resource-tree button[data-arn="{hello}"]')
    expect(button).to_contain_text("hello")
    button.click()
    expect(page.locator("#invocations")).to_contain_text("Success")
    expect(page.locator("#invocations")).to_contain_text("RequestResponse")
    broken = "arn:aws:lambda:us-east-1:000000000000:function:broken"
    page.locator(f'#resource-tree button[data-arn="{broken}"]').click()
    expect(page.locator("#invocations")).to_contain_text("ValueError")
    expect(page.locator("#tl-svg g.rec.attempt")).to_have_count(3)


def field(page, name):
    """The value (dd) of a top-level field of the chosen resource's details."""
    return page.locator(f'#detail-fields > dl > [data-field="{name}"] > dd')


def test_console_shows_attributes_as_fields_and_rules_under_their_bus(make_client, sqs, sns, control, url, page):
    """A resource's details read as labelled fields, not a JSON dump (a queue's attributes each
    with its value, a policy folded); every rule is listed under the bus it belongs to, its
    targets under it."""
    dlq = sqs.create_queue(QueueName="work-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "3"})
    queue = sqs.create_queue(QueueName="work", Attributes={"VisibilityTimeout": "45", "RedrivePolicy": redrive})["QueueUrl"]
    events = make_client("events")
    bus = events.create_event_bus(Name="orders-bus")["EventBusArn"]
    on_bus = events.put_rule(Name="big-orders", EventBusName="orders-bus", EventPattern='{"source":["shop"]}')["RuleArn"]
    events.put_targets(Rule="big-orders", EventBusName="orders-bus", Targets=[{"Id": "to-work", "Arn": dlq_arn}])
    on_default = events.put_rule(Name="every-minute", ScheduleExpression="rate(1 minute)")["RuleArn"]
    default = next(b["arn"] for b in control.get("/resources").json()["regions"][0]["eventBuses"] if b["name"] == "default")

    page.goto(url + "/_switchyard/ui")
    page.locator(f'#resource-tree button[data-arn="{queue_arn(sqs, queue)}"]').click()
    expect(page.locator("#detail-h")).to_have_text("queues: work")
    assert page.locator("#detail-json").count() == 0  # no JSON dump
    row = page.locator('#detail-fields [data-field="attributes"] [data-field="VisibilityTimeout"]')
    expect(row.locator("dt")).to_have_text("VisibilityTimeout")
    expect(row.locator("dd")).to_have_text("45")
    expect(field(page, "url")).to_have_text(queue)
    expect(page.locator('#detail-fields > dl > [data-field="maxReceiveCount"] > dt')).to_have_text("Max receive count")
    expect(field(page, "maxReceiveCount")).to_have_text("3")
    # The redrive policy, a JSON document, folded: its keys in the summary, the whole on opening.
    policy = page.locator('#detail-fields [data-field="RedrivePolicy"] details')
    expect(policy.locator("summary")).to_have_text("JSON document: deadLetterTargetArn, maxReceiveCount")
    assert policy.evaluate_all("ds => ds.map(d => d.open)") == [False]
    policy.locator("summary").click()
    expect(policy.locator("pre")).to_be_visible()
    expect(policy.locator("pre")).to_contain_text(f'"deadLetterTargetArn": "{dlq_arn}"')
    # The console polls: the fields follow the queue, and the policy stays open.
    sqs.send_message(QueueUrl=queue, MessageBody="one")
    expect(field(page, "visible")).to_have_text("1")
    assert policy.evaluate_all("ds => ds.map(d => d.open)") == [True]
    screenshot(page, page.locator("#detail"), "queue-details")

    # Each rule inside its own bus's entry of the tree (and not the other's), its target inside it.
    tree = page.locator("#resource-tree")
    expect(tree.locator(f'li[data-arn="{bus}"] li[data-arn="{on_bus}"] > button')).to_have_text("big-orders")
    expect(tree.locator(f'li[data-arn="{default}"] li[data-arn="{on_default}"] > button')).to_have_text("every-minute")
    assert tree.locator(f'li[data-arn="{default}"] [data-arn="{on_bus}"]').count() == 0
    assert tree.locator(f'li[data-arn="{bus}"] [data-arn="{on_default}"]').count() == 0
    expect(tree.locator(f'li[data-arn="{on_bus}"] button[data-arn="{on_bus}#to-work"]')).to_have_text("big-orders → to-work")
    expect(tree.locator(f'li[data-arn="{on_default}"] > .counts')).to_contain_text("0 target(s)")
    # A rule's details: its fields, its event pattern folded, its targets as fields too.
    tree.locator(f'button[data-arn="{on_bus}"]').click()
    expect(page.locator("#detail-h")).to_have_text("rules: big-orders")
    expect(field(page, "state")).to_have_text("ENABLED")
    expect(field(page, "eventPattern").locator("summary")).to_have_text("JSON document: source")
    expect(page.locator('#detail-fields [data-field="targets"] li [data-field="Arn"] > dd')).to_have_text(dlq_arn)
    screenshot(page, page.locator("main"), "rule-details")


def queue_arn(sqs, queue_url):
    return sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def test_console_folds_the_attempts_table_and_labels_lanes_by_name(make_client, sns, sqs, control, endpoint, url, page):
    """The attempts table is folded, its summary saying how many attempts there were and how the
    deliveries ended; each lane is labelled with its source's name in legible type (the full ARN in
    its tooltip), a long name shortened with an ellipsis, no label running into another or into
    the chart."""
    _, sub, message_id = retry_scenario(sns, sqs, control, endpoint)
    events = make_client("events")
    sqs.create_queue(QueueName="warehouse")
    events.create_event_bus(Name="orders-bus")
    long_rule = "notify-the-european-warehouse-team-about-every-single-order"
    rule = events.put_rule(Name=long_rule, EventBusName="orders-bus", EventPattern='{"source":["shop"]}')["RuleArn"]
    events.put_targets(Rule=long_rule, EventBusName="orders-bus",
                       Targets=[{"Id": "wh", "Arn": "arn:aws:sqs:us-east-1:000000000000:warehouse"}])
    events.put_events(Entries=[{"EventBusName": "orders-bus", "Source": "shop", "DetailType": "Order", "Detail": "{}"}])
    control.advance(3600)
    page.goto(url + "/_switchyard/ui")

    # Every source: three lanes (the subscription's confirmation and message, the rule's event).
    box = page.locator("#tl-table-box")
    summary = box.locator("summary")
    expect(page.locator("#tl-svg g.lane")).to_have_count(3)
    expect(summary).to_have_text("Attempts table: 53 attempts in 3 lanes, final outcomes 2 delivered, 1 dead-lettered (54 records)")
    assert box.evaluate_all("ds => ds.map(d => d.open)") == [False]
    lanes = page.locator("#tl-svg g.lane")
    names = dict(lanes.evaluate_all(
        "gs => gs.map(g => [g.dataset.source + ' ' + g.dataset.messageId, g.querySelector('text.lane-name').textContent])"))
    assert names[f"{sub} {message_id}"] == "orders → http", names
    # The rule's lane: too long a name for the column, shortened at its end.
    shown = next(v for k, v in names.items() if k.startswith(f"{rule}#wh "))
    assert shown.endswith("…") and len(shown) > 12 and f"{long_rule} → wh".startswith(shown[:-1]), shown
    titles = lanes.evaluate_all("gs => gs.map(g => g.querySelector('g.lane-label > title').textContent)")
    assert {t.split("\n")[0] for t in titles} == {sub, f"{rule}#wh"}, titles
    assert f"{sub}\nmessage {message_id}\ntarget {endpoint.url}" in titles, titles
    # Legible: drawn at the page's scale (12 px names), each label inside its own lane, left of the
    # chart, none over another.
    geometry = page.evaluate("""() => {
        const svg = document.getElementById('tl-svg');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const chart = svg.querySelector('g.lane > line').getBoundingClientRect().left;
        const boxes = [...svg.querySelectorAll('g.lane-label')].map((l) => l.getBoundingClientRect())
            .map((r) => [r.left, r.right, r.top, r.bottom]);
        const size = parseFloat(getComputedStyle(svg.querySelector('text.lane-name')).fontSize);
        return [scale, chart, boxes, size]; }""")
    scale, chart, boxes, size = geometry
    assert 0.97 < scale < 1.03 and size * scale >= 12, geometry
    assert all(right <= chart for _, right, _, _ in boxes), geometry
    assert all(a[3] <= b[2] for a, b in zip(boxes, boxes[1:])), geometry

    # One message: the summary says its attempts and how it ended; opening it shows the rows.
    page.locator(f'#resource-tree button[data-arn="{sub}"]').click()
    page.select_option("#tl-message", message_id)
    expect(summary).to_have_text("Attempts table: 51 attempts, final outcome dead-lettered (52 records)")
    drawn = "() => document.getElementById('tl-records').checkVisibility()"
    assert page.evaluate(drawn) is False  # folded: the table is not drawn
    summary.click()
    assert box.evaluate_all("ds => ds.map(d => d.open)") == [True] and page.evaluate(drawn) is True
    expect(page.locator("#tl-records tbody tr[data-event=attempt]")).to_have_count(51)
    expect(page.locator("#tl-records tbody tr[data-event=dead-lettered]")).to_be_visible()
