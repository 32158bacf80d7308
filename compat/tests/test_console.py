"""The web console at /_switchyard/ui, driven in headless Chromium (Debian's `chromium`, which
compat/run installs when missing) through Playwright for Python, as a person would use it.

It runs the README's SNS retry scenario (an HTTP endpoint answering 503 under AWS's example delivery
policy, 51 attempts over 43 virtual minutes, then the dead-letter queue), opens the console and
checks the topic, the subscription and the attempts with their phases; advances the clock with the
console's own button and sees the timeline move; adds a fault with the console's form and sees the
next delivery meet it; and peeks into the DLQ. Keyboard use and zoom, and EventBridge's day-long
default schedule read on one log axis from +1 ms to hours, have tests of their own. A screenshot of the timeline is written next to the
server log (compat/.logs/console-timeline.png).

Also: LocalStack's GET /_aws/sqs/messages, which the console peeks with (facts from LocalStack's
public documentation and test suite: the ReceiveMessageResponse shape, IsVisible / IsDelayed, the
error codes), and GET /_switchyard/resources.
"""

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from playwright.sync_api import expect, sync_playwright

POLICY = {
    "healthyRetryPolicy": {
        "minDelayTarget": 1, "maxDelayTarget": 60, "numRetries": 50, "numNoDelayRetries": 3,
        "numMinDelayRetries": 2, "numMaxDelayRetries": 35, "backoffFunction": "exponential",
    }
}
# The phases of the 51 attempts: the first, 3 with no delay, 2 at the minimum delay, the backoff
# phase (50 - 3 - 2 - 35 = 10 retries), 35 at the maximum delay.
PHASES = ["initial"] + ["immediate"] * 3 + ["pre-backoff"] * 2 + ["backoff"] * 10 + ["post-backoff"] * 35

_http = requests.Session()
_http.trust_env = False


def chromium_path():
    path = os.environ.get("SWITCHYARD_CHROMIUM") or shutil.which("chromium")
    assert path, "Debian's chromium is not installed: compat/run installs it (apt-get install chromium)"
    return path


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


@pytest.fixture
def page(url):
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
        browser.close()
        assert errors == [], f"the console raised: {errors}"


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
    expect(page.locator("#detail-json")).to_contain_text('"DeliveryPolicy"')

    # Choose the subscription: its lane on the timeline, before the clock moves.
    sub_button.click()
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
    logs = os.path.dirname(os.environ.get("COMPAT_SERVER_LOG", "compat/.logs/x"))
    os.makedirs(logs, exist_ok=True)
    page.locator("#tl-table-box summary").click()  # the picture: the chart, not the table
    page.locator("#timeline").screenshot(path=os.path.join(logs, "console-timeline.png"))
    page.locator("#tl-table-box summary").click()

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
    page.locator("body").press("+")
    page.locator("body").press("+")
    # Zoomed in 4x from the whole schedule: only the first part of it is on screen.
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
