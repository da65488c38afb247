// The MCP Apps browser test: a web host (host.html + host.js, on one origin) renders the view of
// a server's tool through a sandbox proxy (sandbox.html, on another origin) in headless
// Chromium, driven by playwright-core, and checks what a user would see.
//
//   node tests/interop/apps/browser.mjs --mcp-url http://127.0.0.1:PORT/mcp [options]
//
// Options:
//   --mcp-url URL     the server's Streamable HTTP endpoint (required)
//   --apps-dir DIR    where scripts/interop-setup installed the npm pins (default
//                     $INTEROP_APPS_DIR): node_modules/playwright-core and host-deps.js
//   --chromium PATH   the browser (default $CHROMIUM or /usr/bin/chromium)
//   --screenshot PATH where the host page's screenshot goes (default target/apps/forecast.png)
//   --tool NAME       the tool the host calls (default forecast; for trying a broken setup)
//   --verbose         print the console, host events and proxy log even when all checks pass
//
// One small Node.js http server per origin, both on 127.0.0.1 (ports chosen by the system):
// the host origin serves host.html, host.js, /vendor/host-deps.js and proxies /mcp to the
// server (logging each POST's JSON-RPC method and tool name or resource uri); the sandbox
// origin serves sandbox.html only. Each wait is bounded (15 s), the whole run too (60 s).
// Prints "ok - ..." or "not ok - ..." per check, then "apps-browser: N passed, M failed";
// exit status 0 only when every check passed. On a failure it prints the browser's console
// messages, the host's event log and the proxy log.
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const STEP_MS = 15_000;
const RUN_MS = 60_000;

function usage(message) {
  if (message) console.error(`browser.mjs: ${message}`);
  console.error("usage: browser.mjs --mcp-url URL [--apps-dir DIR] [--chromium PATH] [--screenshot PATH] [--tool NAME] [--verbose]");
  process.exit(2);
}

const options = {
  mcpUrl: null,
  appsDir: process.env.INTEROP_APPS_DIR || null,
  chromium: process.env.CHROMIUM || "/usr/bin/chromium",
  screenshot: path.join(repoRoot, "target/apps/forecast.png"),
  tool: "forecast",
  verbose: false,
};
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  const value = () => process.argv[++i] ?? usage(`${arg} needs a value`);
  switch (arg) {
    case "--mcp-url": options.mcpUrl = value(); break;
    case "--apps-dir": options.appsDir = value(); break;
    case "--chromium": options.chromium = value(); break;
    case "--screenshot": options.screenshot = path.resolve(value()); break;
    case "--tool": options.tool = value(); break;
    case "--verbose": options.verbose = true; break;
    case "-h": case "--help": usage(); break;
    default: usage(`unknown argument '${arg}'`);
  }
}
if (!options.mcpUrl) usage("--mcp-url is required");
if (!options.appsDir) usage("--apps-dir (or INTEROP_APPS_DIR; see scripts/interop-setup) is required");
const upstream = new URL(options.mcpUrl);
const hostDeps = path.join(options.appsDir, "host-deps.js");
if (!existsSync(hostDeps)) usage(`${hostDeps} is missing: run scripts/interop-setup`);
if (!existsSync(options.chromium)) usage(`no browser at ${options.chromium} (Debian: apt-get install chromium)`);
const { chromium } = createRequire(path.join(options.appsDir, "package.json"))("playwright-core");

// --- the two origins -----------------------------------------------------------------------
const proxyLog = []; // every request the host origin received
const files = {
  host: {
    "/host.html": [path.join(here, "host.html"), "text/html; charset=utf-8"],
    "/host.js": [path.join(here, "host.js"), "text/javascript; charset=utf-8"],
    "/vendor/host-deps.js": [hostDeps, "text/javascript; charset=utf-8"],
  },
  sandbox: {
    "/sandbox.html": [path.join(here, "sandbox.html"), "text/html; charset=utf-8"],
  },
};

function serveFile(table, url, res, logEntry) {
  const entry = table[url.pathname];
  if (logEntry) logEntry.status = entry ? 200 : 404;
  if (!entry) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    return;
  }
  res.writeHead(200, { "content-type": entry[1], "cache-control": "no-store" });
  res.end(readFileSync(entry[0]));
}

// Forwards /mcp to the server, streaming the answer back (JSON or an SSE stream).
function proxyMcp(req, res, entry) {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    if (req.method === "POST") {
      try {
        const message = JSON.parse(body.toString("utf8"));
        entry.jsonMethod = message.method;
        entry.name = message.params && (message.params.name ?? message.params.uri);
      } catch {
        entry.jsonMethod = "(unparsable)";
      }
    }
    entry.mcpName = req.headers["mcp-name"];
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) {
      // The proxy is the host's backend: the browser's origin, cookies and hop-by-hop
      // headers stay here.
      if (!["host", "origin", "referer", "cookie", "connection", "keep-alive", "content-length"].includes(k)) headers[k] = v;
    }
    headers["content-length"] = String(body.length);
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: upstream.pathname + upstream.search, method: req.method, headers },
      (answer) => {
        entry.status = answer.statusCode;
        const out = { ...answer.headers };
        delete out.connection;
        delete out["keep-alive"];
        res.writeHead(answer.statusCode, out);
        answer.pipe(res);
      },
    );
    forward.on("error", (e) => {
      entry.status = `upstream error: ${e.message}`;
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`upstream error: ${e.message}\n`);
    });
    forward.end(body);
  });
}

const hostServer = http.createServer((req, res) => {
  const url = new URL(req.url, "http://host.invalid");
  const entry = { t: Date.now(), httpMethod: req.method, path: url.pathname + url.search };
  proxyLog.push(entry);
  if (url.pathname === "/mcp") return proxyMcp(req, res, entry);
  if (url.pathname === "/favicon.ico") {
    entry.status = 204;
    res.writeHead(204).end();
    return;
  }
  if (url.pathname === "/probe") {
    // The target of the CSP check: a same-origin fetch of the host page may reach it, the view's
    // fetch must not.
    entry.status = 204;
    res.writeHead(204, { "cache-control": "no-store", "access-control-allow-origin": "*" }).end();
    return;
  }
  serveFile(files.host, url, res, entry);
});
const sandboxServer = http.createServer((req, res) => {
  serveFile(files.sandbox, new URL(req.url, "http://sandbox.invalid"), res);
});
const listen = (server) => new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(0, "127.0.0.1", () => resolve(server.address().port));
});

// --- checks --------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
function ok(description) {
  passed++;
  console.log(`ok - ${description}`);
}
function notOk(description, detail) {
  failed++;
  console.log(`not ok - ${description}${detail ? `\n    ${String(detail).replace(/\n/g, "\n    ")}` : ""}`);
}
async function check(description, fn) {
  try {
    const detail = await fn();
    ok(detail ? `${description} (${detail})` : description);
    return true;
  } catch (e) {
    notOk(description, e && e.message ? e.message : e);
    return false;
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
async function waitFor(what, fn, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      if (e && e.fatal) throw e;
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const consoleLines = [];
let browser = null;
let page = null;

async function dumpDiagnostics() {
  console.log("\n--- browser console ---");
  for (const line of consoleLines) console.log(line);
  if (page) {
    try {
      const events = await page.evaluate(() => (window.__host ? window.__host.events : ["(no window.__host)"]));
      console.log("--- host events ---");
      for (const line of events) console.log(line);
      const error = await page.evaluate(() => window.__host && window.__host.error);
      if (error) console.log(`--- host error ---\n${error}`);
    } catch (e) {
      console.log(`(the host page could not be read: ${e.message})`);
    }
  }
  console.log("--- proxy log (host origin) ---");
  for (const e of proxyLog) {
    console.log(`${new Date(e.t).toISOString().slice(11, 23)} ${e.httpMethod} ${e.path}${e.jsonMethod ? ` ${e.jsonMethod}` : ""}${e.name ? ` ${e.name}` : ""} -> ${e.status ?? "-"}`);
  }
}

async function finish(code) {
  if (browser) await browser.close().catch(() => {});
  hostServer.close();
  sandboxServer.close();
  hostServer.closeAllConnections?.();
  sandboxServer.closeAllConnections?.();
  process.exit(code);
}

const runTimer = setTimeout(async () => {
  notOk(`the whole run finished within ${RUN_MS / 1000} s`);
  await dumpDiagnostics().catch(() => {});
  console.log(`apps-browser: ${passed} passed, ${failed} failed`);
  process.exit(1);
}, RUN_MS);
runTimer.unref();

async function run() {
  const hostPort = await listen(hostServer);
  const sandboxPort = await listen(sandboxServer);
  const hostOrigin = `http://127.0.0.1:${hostPort}`;
  const sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
  const hostUrl = `${hostOrigin}/host.html?sandbox=${encodeURIComponent(sandboxOrigin)}&tool=${encodeURIComponent(options.tool)}&city=Lisbon&days=5`;
  console.log(`# host ${hostOrigin}, sandbox proxy ${sandboxOrigin}, server ${upstream.href}`);

  browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    timeout: STEP_MS,
  });
  const context = await browser.newContext({ viewport: { width: 720, height: 480 } });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on("console", (m) => {
    const frame = m.location && m.location().url;
    consoleLines.push(`[${m.type()}] ${m.text()}${frame ? ` (${frame})` : ""}`);
  });
  page.on("pageerror", (e) => consoleLines.push(`[pageerror] ${e.message}`));
  page.on("requestfailed", (r) => consoleLines.push(`[requestfailed] ${r.url()} ${r.failure() && r.failure().errorText}`));
  await page.goto(hostUrl, { waitUntil: "load", timeout: STEP_MS });

  // 1. The host got the tool result and handed it to the view.
  let hostState = null;
  const delivered = await check("the host read the tool list and the ui:// resource, and delivered the tool result", async () => {
    hostState = await waitFor("window.__host.ready", async () => {
      const s = await page.evaluate(() => window.__host && {
        ready: window.__host.ready, error: window.__host.error, resource: window.__host.resource,
        toolResult: window.__host.toolResult,
      });
      if (s && s.error) throw Object.assign(new Error(`the host failed: ${s.error.split("\n")[0]}`), { fatal: true });
      return s && s.ready ? s : null;
    });
    assert(hostState.resource.mimeType === "text/html;profile=mcp-app", `mimeType ${hostState.resource.mimeType}`);
    const sc = hostState.toolResult && hostState.toolResult.structuredContent;
    assert(sc && Array.isArray(sc.days) && Number.isInteger(sc.revision), "the CallToolResult has no structuredContent {days, revision}");
    return `${hostState.resource.uri}, revision ${sc.revision}`;
  });

  if (!delivered) return;

  // The frames: host page > sandbox proxy (#app, other origin) > view (srcdoc).
  let sandboxFrame = null;
  let viewFrame = null;
  await check("the sandbox proxy and the view frames exist", async () => {
    await waitFor("the sandbox and view frames", async () => {
      sandboxFrame = page.frames().find((f) => f.parentFrame() === page.mainFrame() && f.url().startsWith(sandboxOrigin)) || null;
      viewFrame = sandboxFrame ? sandboxFrame.childFrames()[0] || null : null;
      return viewFrame;
    });
    return `${sandboxFrame.url().split("?")[0]} > ${viewFrame.url()}`;
  });
  if (!viewFrame) return;
  const revision = hostState.toolResult.structuredContent.revision;

  // 2. The view rendered it.
  await check("the view rendered 5 bars, the title 'Lisbon: 5 days' and the revision of the result", async () => {
    await viewFrame.waitForFunction(() => document.querySelectorAll("#chart .bar").length > 0, null, { timeout: STEP_MS });
    const seen = await viewFrame.evaluate(() => ({
      bars: document.querySelectorAll("#chart .bar").length,
      highs: [...document.querySelectorAll("#chart .bar")].map((b) => b.dataset.high),
      title: document.getElementById("title").textContent,
      revision: document.body.dataset.revision,
      status: document.getElementById("status").textContent,
    }));
    assert(seen.bars === 5, `${seen.bars} bars`);
    assert(seen.highs.every((h) => h !== undefined && h !== ""), "a bar without data-high");
    const expectedHighs = hostState.toolResult.structuredContent.days.map((d) => String(d.high));
    assert(JSON.stringify(seen.highs) === JSON.stringify(expectedHighs), `data-high ${seen.highs} != ${expectedHighs}`);
    assert(seen.title === "Lisbon: 5 days", `title '${seen.title}'`);
    assert(seen.revision === String(revision), `revision '${seen.revision}', the host got ${revision}`);
    return `highs ${seen.highs.join(",")}, status '${seen.status}'`;
  });

  await check("the host resized the iframe on ui/notifications/size-changed", async () => {
    const sizes = await waitFor("a size-changed notification", () => page.evaluate(() => window.__host.sizes.length && window.__host.sizes));
    const height = await page.evaluate(() => document.getElementById("app").getBoundingClientRect().height);
    const want = Math.min(sizes[sizes.length - 1].height, 600);
    assert(Math.abs(height - want) <= 2, `iframe height ${height}, the view asked for ${want}`);
    return `${sizes[sizes.length - 1].width}x${sizes[sizes.length - 1].height}`;
  });

  // 3. The view's Refresh button: tools/call forecast_refresh through the host to the server.
  await check("#refresh in the view calls forecast_refresh on the server and renders a newer revision", async () => {
    const before = Number(await viewFrame.evaluate(() => document.body.dataset.revision));
    const mark = proxyLog.length;
    await viewFrame.click("#refresh", { timeout: STEP_MS });
    const post = await waitFor("the proxy to see tools/call forecast_refresh", () =>
      proxyLog.slice(mark).find((e) => e.httpMethod === "POST" && e.jsonMethod === "tools/call" && e.name === "forecast_refresh"));
    const after = Number(await waitFor("a newer revision in the view", () =>
      viewFrame.evaluate((b) => Number(document.body.dataset.revision) > b && document.body.dataset.revision, before)));
    const calls = await page.evaluate(() => window.__host.viewCalls);
    assert(calls.some((c) => c.name === "forecast_refresh" && c.outcome === "ok"), `the host's view calls: ${JSON.stringify(calls)}`);
    assert(post.status === 200, `the server answered ${post.status}`);
    return `revision ${before} -> ${after}; Mcp-Name: ${post.mcpName ?? "(none)"}`;
  });

  // 4. The view runs under the CSP: its inline script ran (above), but it may not connect.
  await check("the view's CSP blocks fetch() (connect-src 'none') but not its inline script, and is the restrictive default", async () => {
    const title = await viewFrame.evaluate(() => document.getElementById("title").textContent);
    assert(title.startsWith("Lisbon"), `the view's inline script did not run (title '${title}')`);
    const probe = `${hostOrigin}/probe`;
    const control = await page.evaluate((u) => fetch(`${u}?from=host`).then((r) => `status ${r.status}`, (e) => `failed: ${e}`), probe);
    assert(control === "status 204", `the control fetch from the host page: ${control}`);
    const outcome = await viewFrame.evaluate((u) => new Promise((resolve) => {
      let violation = null;
      document.addEventListener("securitypolicyviolation", (e) => { violation = `${e.violatedDirective} ${e.blockedURI}`; });
      fetch(`${u}?from=view`, { mode: "no-cors" }).then(
        () => resolve({ fetched: true, violation }),
        (e) => setTimeout(() => resolve({ fetched: false, error: String(e), violation }), 50),
      );
    }), probe);
    assert(!outcome.fetched, "the view's fetch() succeeded");
    assert(!proxyLog.some((e) => e.path.includes("from=view")), "the view's request reached the proxy");
    assert(outcome.violation && outcome.violation.startsWith("connect-src"), `no connect-src violation reported (${outcome.error})`);
    const policy = await viewFrame.evaluate(() => {
      const meta = document.head.firstElementChild;
      return meta && meta.getAttribute("http-equiv") === "Content-Security-Policy" ? meta.getAttribute("content") : null;
    });
    assert(policy, "the first element of the view's <head> is not its CSP <meta>");
    for (const directive of ["default-src 'none'", "script-src 'self' 'unsafe-inline'", "connect-src 'none'", "frame-src 'none'", "object-src 'none'", "base-uri 'self'"]) {
      assert(policy.split(/;\s*/).includes(directive), `the policy lacks "${directive}": ${policy}`);
    }
    return `violation: ${outcome.violation}`;
  });

  // 5. The isolation: a sandboxed iframe on another origin.
  await check("the iframe has sandbox=\"allow-scripts allow-same-origin\" and the sandbox and view are on other origins", async () => {
    const sandboxAttribute = await page.evaluate(() => document.getElementById("app").getAttribute("sandbox"));
    const tokens = (sandboxAttribute || "").split(/\s+/);
    assert(tokens.includes("allow-scripts") && tokens.includes("allow-same-origin"), `sandbox="${sandboxAttribute}"`);
    const pageOrigin = await page.evaluate(() => location.origin);
    const proxyOrigin = await sandboxFrame.evaluate(() => location.origin);
    const viewOrigin = await viewFrame.evaluate(() => self.origin);
    assert(pageOrigin === hostOrigin, `host origin ${pageOrigin}`);
    assert(proxyOrigin === sandboxOrigin && proxyOrigin !== pageOrigin, `sandbox origin ${proxyOrigin}`);
    assert(viewOrigin !== pageOrigin, `view origin ${viewOrigin}`);
    const reach = await sandboxFrame.evaluate(() => { try { return String(window.parent.document.title); } catch (e) { return `blocked: ${e.name}`; } });
    assert(reach.startsWith("blocked"), `the sandbox could read the host's document (${reach})`);
    return `host ${pageOrigin}, sandbox ${proxyOrigin}, view ${viewOrigin}`;
  });

  await check("the server declared the view-only tool forecast_refresh to the host (it declared the UI extension)", async () => {
    const tools = await page.evaluate(() => window.__host.tools);
    const refresh = tools.find((t) => t.name === "forecast_refresh");
    assert(refresh, `tools/list: ${tools.map((t) => t.name).join(", ")}`);
    assert(JSON.stringify(refresh.ui && refresh.ui.visibility) === JSON.stringify(["app"]), `visibility ${JSON.stringify(refresh.ui)}`);
    return "visibility [\"app\"]";
  });

  // 6. The Server Card (SEP-2127): a page on another origin fetches it — CORS — and reads it,
  // then asks again with its ETag and is told nothing changed.
  await check("a page on another origin reads the server's card, and its ETag gives a 304", async () => {
    const cardUrl = `${upstream.href.replace(/\/$/, "")}/server-card`;
    const seen = await page.evaluate(async (url) => {
      const first = await fetch(url, { mode: "cors" });
      const card = await first.json();
      const etag = first.headers.get("etag");
      const again = await fetch(url, { mode: "cors", headers: { "If-None-Match": etag } });
      return {
        status: first.status,
        type: first.headers.get("content-type"),
        name: card.name,
        remotes: card.remotes,
        etag,
        againStatus: again.status,
        origin: location.origin,
      };
    }, cardUrl);
    assert(seen.origin !== upstream.origin, `the page is on the server's origin ${seen.origin}`);
    assert(seen.status === 200, `status ${seen.status}`);
    assert(seen.type && seen.type.startsWith("application/mcp-server-card+json"), `content-type ${seen.type}`);
    assert(seen.name === "io.github.mcp-framework/everything", `name ${seen.name}`);
    assert(Array.isArray(seen.remotes) && seen.remotes.length > 0, `remotes ${JSON.stringify(seen.remotes)}`);
    assert(seen.etag, "no ETag readable (Access-Control-Expose-Headers)");
    assert(seen.againStatus === 304, `If-None-Match answered ${seen.againStatus}`);
    return `${seen.name} from ${seen.origin}, ETag ${seen.etag}, then 304`;
  });

  await check(`screenshot of the host page saved to ${path.relative(process.cwd(), options.screenshot) || options.screenshot}`, async () => {
    mkdirSync(path.dirname(options.screenshot), { recursive: true });
    await page.screenshot({ path: options.screenshot, fullPage: true, timeout: STEP_MS });
  });
}

try {
  await run();
} catch (e) {
  notOk("the test ran to its end", e && e.stack ? e.stack : e);
}
if (passed === 0 && failed === 0) notOk("any check ran");
if (failed || options.verbose) await dumpDiagnostics();
console.log(`apps-browser: ${passed} passed, ${failed} failed`);
await finish(failed ? 1 : 0);
