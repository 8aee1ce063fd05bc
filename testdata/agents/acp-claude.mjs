// An editor's side for claude-agent-acp (Claude Code behind ACP), built on
// the ACP SDK the adapter itself depends on: it launches
// `sightline acp -- node ADAPTER`, opens a session in the workspace in
// the adapter's "default" mode (edits ask permission; ACP_MODE names
// another), sends one prompt
// and prints, one JSON line each, what the editor was sent: permission
// requests and session updates. The scripted model (ANTHROPIC_BASE_URL)
// plays the tool calls.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const adapter = process.env.CLAUDE_ACP; // the adapter's dist/index.js
const sdkPath = createRequire(adapter).resolve("@agentclientprotocol/sdk");
const { client, methods, ndJsonStream } = await import(pathToFileURL(sdkPath).href);

const ws = process.env.WORKSPACE;
// ACP_FLAGS: sightline acp's own flags (space-separated).
const flags = (process.env.ACP_FLAGS ?? "").split(" ").filter(Boolean);
const proxy = spawn(process.env.SIGHTLINE_BIN, ["acp", ...flags, "--", process.execPath, adapter], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });
const say = (kind, v) => console.log(JSON.stringify({ kind, v }));
const app = client({ name: "scripted-editor" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    say("permission", params);
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onNotification(methods.client.session.update, ({ params }) => say("update", params.update));
const conn = app.connect(ndJsonStream(Writable.toWeb(proxy.stdin), Readable.toWeb(proxy.stdout)));
conn.closed.catch(() => {});
const ctx = conn.agent;
const timer = setTimeout(() => { say("timeout", null); process.exit(2); }, 100000);
await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
const s = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
say("session", s.sessionId);
// ACP_MODE=auto keeps the adapter's own default (no permission asked).
if (process.env.ACP_MODE !== "auto") {
  await ctx.request(methods.agent.session.setMode, { sessionId: s.sessionId, modeId: process.env.ACP_MODE || "default" });
}
const r = await ctx.request(methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Make the change." }] });
await new Promise((resolve) => setImmediate(resolve));
say("done", r);
clearTimeout(timer);
proxy.stdin.end();
await new Promise((resolve) => proxy.on("exit", resolve));
process.exit(0);
