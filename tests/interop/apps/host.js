// The test host: a web page that renders an MCP Apps view (extension io.modelcontextprotocol/ui)
// the way a chat client does, built on the official host-side implementation: AppBridge and
// PostMessageTransport from @modelcontextprotocol/ext-apps/app-bridge, and the MCP client of
// @modelcontextprotocol/client over Streamable HTTP (protocol revision 2026-07-28), both bundled
// into /vendor/host-deps.js by scripts/interop-setup. Its MCP traffic goes to the same-origin
// /mcp, which the driver (browser.mjs) proxies to the server under test.
//
// Query parameters: sandbox=ORIGIN (required: the sandbox proxy's origin, not this page's),
// tool=NAME (default forecast), city, days (the tool's arguments).
//
// Flow: tools/list (declaring the UI extension) -> the tool's _meta.ui.resourceUri ->
// resources/read (mimeType text/html;profile=mcp-app) -> the sandbox iframe ->
// sandbox-proxy-ready -> sandbox-resource-ready {html, csp, permissions} -> the view's
// ui/initialize (answered by AppBridge) -> ui/notifications/initialized -> tool-input and
// tool-result (of a tools/call started in parallel). The view's own tools/call requests are
// proxied to the server only for tools whose visibility includes "app".
//
// Everything it does is recorded in window.__host (read by the driver) and shown in #log.
import {
  AppBridge,
  Client,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  StreamableHTTPClientTransport,
  getToolUiResourceUri,
} from "/vendor/host-deps.js";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const params = new URLSearchParams(location.search);
const sandboxOrigin = params.get("sandbox");
const toolName = params.get("tool") || "forecast";
const toolArguments = { city: params.get("city") || "Lisbon", days: Number(params.get("days") || 5) };

const state = {
  ready: false, // the tool result was delivered to the view
  error: null,
  tools: null,
  resource: null, // {uri, mimeType, meta}
  toolResult: null,
  viewCalls: [], // {name, outcome}
  sizes: [],
  logs: [],
  events: [],
};
window.__host = state;

const logElement = document.getElementById("log");
function log(line) {
  const entry = `${new Date().toISOString().slice(11, 23)} ${line}`;
  state.events.push(entry);
  logElement.textContent += `${entry}\n`;
}
function setStatus(text, kind = "ok") {
  const element = document.getElementById("status");
  element.textContent = text;
  element.dataset.state = kind;
}
function fail(error) {
  state.error = String(error && error.stack ? error.stack : error);
  log(`error: ${error && error.message ? error.message : error}`);
  setStatus("failed", "error");
}

function visibility(tool) {
  const v = tool && tool._meta && tool._meta.ui && tool._meta.ui.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

function decodeHtml(content) {
  if (typeof content.text === "string") return content.text;
  if (typeof content.blob === "string") {
    const bytes = Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  }
  throw new Error(`${content.uri}: neither text nor blob`);
}

async function main() {
  if (!sandboxOrigin) throw new Error("no ?sandbox=ORIGIN given");
  if (new URL(sandboxOrigin).origin === location.origin) {
    throw new Error("the sandbox proxy must be on another origin than the host");
  }

  const client = new Client(
    { name: "mcp-framework-apps-test-host", version: "1.0.0" },
    {
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  log("connected to /mcp (MCP 2026-07-28, extension io.modelcontextprotocol/ui declared)");

  const { tools } = await client.listTools();
  state.tools = tools.map((t) => ({ name: t.name, ui: t._meta && t._meta.ui }));
  const byName = new Map(tools.map((t) => [t.name, t]));
  const tool = byName.get(toolName);
  if (!tool) throw new Error(`tools/list has no tool named ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${toolName} has no _meta.ui.resourceUri`);
  if (!visibility(tool).includes("model")) throw new Error(`tool ${toolName} is not visible to the model`);
  log(`tools/list: ${tools.length} tools; ${toolName} renders ${uri}`);

  // The tool call runs while the view loads; its result is sent once the view is initialized.
  document.getElementById("call").textContent = `tools/call ${toolName} ${JSON.stringify(toolArguments)}`;
  const toolCall = client.callTool({ name: toolName, arguments: toolArguments });
  toolCall.catch(() => {});

  const read = await client.readResource({ uri });
  const content = read.contents.find((c) => c.uri === uri) || read.contents[0];
  if (!content) throw new Error(`resources/read ${uri}: no contents`);
  if (content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`resources/read ${uri}: mimeType ${content.mimeType}, expected ${RESOURCE_MIME_TYPE}`);
  }
  const html = decodeHtml(content);
  const uiMeta = (content._meta && content._meta.ui) || {};
  state.resource = { uri, mimeType: content.mimeType, meta: uiMeta, length: html.length };
  log(`resources/read ${uri}: ${content.mimeType}, ${html.length} characters, csp ${JSON.stringify(uiMeta.csp || null)}`);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.title = "MCP App (sandbox proxy)";
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  if (uiMeta.prefersBorder !== false) iframe.classList.add("bordered");
  document.getElementById("slot").appendChild(iframe);

  const bridge = new AppBridge(
    client,
    { name: "mcp-framework-apps-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        containerDimensions: { width: 640, maxHeight: 600 },
        locale: "en-US",
        platform: "web",
      },
    },
  );
  bridge.addEventListener("sandboxready", () => {
    log("ui/notifications/sandbox-proxy-ready: sending sandbox-resource-ready");
    bridge.sendSandboxResourceReady({ html, csp: uiMeta.csp, permissions: uiMeta.permissions }).catch(fail);
  });
  const initialized = new Promise((resolve) => bridge.addEventListener("initialized", resolve));
  bridge.addEventListener("sizechange", ({ width, height }) => {
    state.sizes.push({ width, height });
    if (typeof height === "number" && height > 0) iframe.style.height = `${Math.min(height, 600)}px`;
    log(`ui/notifications/size-changed ${width}x${height}`);
  });
  bridge.addEventListener("loggingmessage", (message) => {
    state.logs.push(message);
    log(`notifications/message [${message.level}] ${JSON.stringify(message.data)}`);
  });
  bridge.onping = () => log("ping from the view");

  // The transport must listen before the sandbox loads, or its proxy-ready would be missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));

  // AppBridge.connect forwards every tools/call of the view to the server; a host must refuse
  // the tools that are not callable by apps (visibility without "app").
  bridge.oncalltool = async (request) => {
    const target = byName.get(request.name);
    if (!target || !visibility(target).includes("app")) {
      state.viewCalls.push({ name: request.name, outcome: "refused" });
      log(`view tools/call ${request.name}: refused (not callable by apps)`);
      throw new Error(`tool ${request.name} is not available to apps`);
    }
    log(`view tools/call ${request.name} ${JSON.stringify(request.arguments || {})}: forwarded`);
    const result = await client.callTool(request);
    state.viewCalls.push({ name: request.name, outcome: "ok", revision: result.structuredContent && result.structuredContent.revision });
    log(`view tools/call ${request.name}: result revision ${result.structuredContent && result.structuredContent.revision}`);
    return result;
  };

  iframe.src = `${sandboxOrigin}/sandbox.html?host=${encodeURIComponent(location.origin)}`;
  log(`sandbox iframe: ${iframe.src}`);

  await initialized;
  log(`ui/notifications/initialized from ${JSON.stringify(bridge.getAppVersion())}`);
  await bridge.sendToolInput({ arguments: toolArguments });
  const result = await toolCall;
  state.toolResult = result;
  await bridge.sendToolResult(result);
  log(`ui/notifications/tool-result sent (revision ${result.structuredContent && result.structuredContent.revision}, isError ${Boolean(result.isError)})`);
  state.ready = true;
  setStatus("view ready");
}

main().catch(fail);
