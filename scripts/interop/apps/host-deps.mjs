// The entry point of the browser bundle host-deps.js that scripts/interop-setup builds with
// esbuild (target/interop/apps/host-deps.js): the official MCP Apps host-side bridge and the MCP
// client, for tests/interop/apps/host.js, which imports them from /vendor/host-deps.js.
export {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  buildAllowAttribute,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";
export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
