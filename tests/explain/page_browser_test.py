#!/usr/bin/env python3
"""The explain page in a real browser: Debian's Chromium, headless, driven through
chromedriver's WebDriver protocol (Python's standard library only).

    page_browser_test.py SCHEDHOST PLUGIN_DIR SCENARIO|generated:NODES OUT_DIR

generated:NODES stands for a cluster of that many nodes made here (5,000 nodes must stay a
handful of rows). Writes OUT_DIR/explain.html with `schedhost explain --scenario SCENARIO --html`, opens it
from the file system (no network: the page must need none), and checks that
  - it renders with no console error or warning,
  - the heat map has one row per node group (each group of rejected nodes, each of the best
    20 feasible nodes, and one for the other feasible nodes) and one column per plugin (the
    Filter plugins, then the Score plugins), as the explanation's JSON says,
  - clicking a group shows its nodes, and clicking a node shows that node's verdicts,
and keeps a screenshot as OUT_DIR/explain-page.png (the test's artifact).
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port
        self.session = None

    def call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.loads(response.read() or b"{}").get("value")
        except urllib.error.HTTPError as e:
            fail("%s %s: HTTP %d: %s" % (method, path, e.code, e.read()[:500]))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body)

    def find_all(self, css):
        found = self.s("POST", "/elements", {"using": "css selector", "value": css})
        return [list(e.values())[0] for e in found]

    def text(self, element):
        return self.s("GET", "/element/%s/text" % element)

    def click(self, element):
        self.s("POST", "/element/%s/click" % element, {})


def generated_scenario(nodes, path):
    """A cluster of `nodes` nodes, a fifth of each kind: tainted (two taints), in another zone,
    too small for the pod, too full for it, and free; the pod asks for 3 cpu in zone a."""
    def node(i, cpu, zone, taint=None):
        n = {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": "node-%04d" % i,
                          "labels": {"kubernetes.io/hostname": "node-%04d" % i, "zone": zone}},
             "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}
        if taint:
            n["spec"] = {"taints": [{"key": "dedicated", "value": taint, "effect": "NoSchedule"}]}
        return n
    items, pods = [], []
    for i in range(nodes):
        kind = i % 5
        if kind == 0:
            items.append(node(i, "4", "a", "gpu" if i % 10 == 0 else "infra"))
        elif kind == 1:
            items.append(node(i, "4", "b"))
        elif kind == 2:
            items.append(node(i, "2", "a"))
        else:
            items.append(node(i, "4", "a"))
        if kind == 3:
            pods.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "busy-%d" % i, "namespace": "default",
                                      "uid": "busy-%d" % i},
                         "spec": {"nodeName": "node-%04d" % i, "containers": [
                             {"name": "c", "image": "i",
                              "resources": {"requests": {"cpu": "3500m"}}}]}})
    doc = {"name": "generated", "nodes": items, "pods": pods,
           "plugins": [{"name": "TaintToleration"}, {"name": "NodeAffinity"},
                       {"name": "NodeResourcesFit"}, {"name": "NodeResourcesBalancedAllocation"}],
           "pod": {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web", "namespace": "default", "uid": "web"},
                   "spec": {"nodeSelector": {"zone": "a"}, "containers": [
                       {"name": "web", "image": "nginx",
                        "resources": {"requests": {"cpu": "3"}}}]}}}
    with open(path, "w") as f:
        json.dump(doc, f)


def main():
    if len(sys.argv) != 5:
        fail("usage: page_browser_test.py SCHEDHOST PLUGIN_DIR SCENARIO|generated:NODES OUT_DIR")
    schedhost, plugin_dir, scenario, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    if scenario.startswith("generated:"):
        path = os.path.join(out_dir, "scenario.json")
        generated_scenario(int(scenario.split(":", 1)[1]), path)
        scenario = path
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    for path in (chromedriver, chromium):
        if not os.access(path, os.X_OK):
            fail("%s not found: scripts/install-deps.sh installs Debian's chromium and "
                 "chromium-driver" % path)
    page = os.path.join(out_dir, "explain.html")
    run = subprocess.run([schedhost, "explain", "--insecure-plugin-permissions", "--plugin-dir",
                          plugin_dir, "--scenario", scenario, "--html", page, "--json"],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        fail("schedhost explain exited %d: %s" % (run.returncode, run.stderr))
    explanation = json.loads(run.stdout)

    port = free_port()
    profile = tempfile.mkdtemp(prefix="schedhost-chromium-")
    driver_log = os.path.join(out_dir, "chromedriver.log")
    driver = subprocess.Popen([chromedriver, "--port=%d" % port, "--log-path=" + driver_log],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wd = WebDriver(port)
    try:
        deadline = time.time() + 30
        while True:
            try:
                if wd.call("GET", "/status", timeout=5).get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.time() > deadline:
                fail("chromedriver did not get ready within 30 s (log: %s)" % driver_log)
            time.sleep(0.2)
        created = wd.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run",
                         "--user-data-dir=" + profile, "--window-size=1400,1000"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}, timeout=120)
        wd.session = created["sessionId"]
        wd.s("POST", "/url", {"url": "file://" + os.path.abspath(page)})

        # No console errors or warnings while it rendered.
        logs = wd.s("POST", "/se/log", {"type": "browser"}) or []
        bad = [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")]
        if bad:
            fail("the page logged to the console: %s" % json.dumps(bad))

        # One column per plugin, one row per node group.
        columns = wd.find_all("#heatmap th.plugin")
        want_columns = len(explanation["filterPlugins"]) + len(explanation["scorePlugins"])
        if len(columns) != want_columns:
            fail("heat map has %d plugin columns, want %d" % (len(columns), want_columns))
        header = [wd.text(c) for c in columns]
        if header != explanation["filterPlugins"] + explanation["scorePlugins"]:
            fail("heat map columns %s" % header)
        rows = wd.find_all("#heatmap tr.group")
        shown = min(20, len(explanation["feasible"]))  # the page's kFeasibleRows
        want_rows = len(explanation["rejected"]) + shown + (
            1 if explanation["feasibleCount"] > shown else 0)
        if len(rows) != want_rows:
            fail("heat map has %d rows, want %d" % (len(rows), want_rows))

        # Click the first group of rejected nodes, then its first node.
        if explanation["rejected"]:
            group = explanation["rejected"][0]
            wd.click(wd.find_all("#heatmap tr.group.rejected")[0])
            heading = wd.text(wd.find_all("#detail h2")[0])
            want = "%d node%s" % (group["count"], "" if group["count"] == 1 else "s")
            if heading != want:
                fail("group detail heading %r, want %r" % (heading, want))
            links = wd.find_all("#detail a.node")
            if not links:
                fail("the group's detail lists no node")
            wd.click(links[0])
            heading = wd.text(wd.find_all("#detail h2")[0])
            if heading != group["nodes"][0]:
                fail("node detail heading %r, want %r" % (heading, group["nodes"][0]))
            detail = wd.text(wd.find_all("#detail")[0])
            if group["plugin"] and group["plugin"] not in detail:
                fail("node detail does not name %s: %r" % (group["plugin"], detail))
        pipeline = wd.text(wd.find_all("#pipeline")[0])
        for stage in ("PreFilter", "Filter", "Selected"):
            if stage not in pipeline:
                fail("pipeline %r lacks %s" % (pipeline, stage))

        shot = wd.s("GET", "/screenshot")
        with open(os.path.join(out_dir, "explain-page.png"), "wb") as f:
            f.write(base64.b64decode(shot))
        logs = wd.s("POST", "/se/log", {"type": "browser"}) or []
        bad = [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")]
        if bad:
            fail("the page logged to the console after the clicks: %s" % json.dumps(bad))
        print("ok: %d rows, %d columns; screenshot %s" % (
            len(rows), len(columns), os.path.join(out_dir, "explain-page.png")))
    finally:
        if wd.session:
            try:
                wd.call("DELETE", "/session/" + wd.session, timeout=30)
            except Exception:  # the test's verdict is already decided
                pass
        driver.terminate()
        try:
            driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            driver.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
