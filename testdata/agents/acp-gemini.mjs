// An editor's side for Gemini CLI behind ACP (`gemini --acp`), built on the
// ACP SDK: it launches `sightline acp -- node GEMINI --acp`, offers the
// editor's file system (fs/read_text_file, fs/write_text_file, from the
// disk), opens a session in the workspace, sends one prompt and prints, one
// JSON line each, what the editor was sent: file requests, permission
// requests (allowed once) and session updates. The scripted model
// (GOOGLE_GEMINI_BASE_URL) plays the tool calls.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const ws = process.env.WORKSPACE;
const proxy = spawn(process.env.SIGHTLINE_BIN, ["acp", "--", process.execPath, process.env.GEMINI_CLI, "--acp"], {
  cwd: ws,
  stdio: ["pipe", "pipe", "inherit"],
  detached: true,
});
const say = (kind, v) => console.log(JSON.stringify({ kind, v }));
const app = client({ name: "scripted-editor" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    say("permission", params);
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    say("read", params);
    let lines = readFileSync(params.path, "utf8").split("\n");
    const from = (params.line ?? 1) - 1;
    lines = lines.slice(from, params.limit ? from + params.limit : undefined);
    return { content: lines.join("\n") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    say("write", { path: params.path });
    writeFileSync(params.path, params.content);
    return {};
  })
  .onNotification(methods.client.session.update, ({ params }) => say("update", params.update));
const conn = app.connect(ndJsonStream(Writable.toWeb(proxy.stdin), Readable.toWeb(proxy.stdout)));
conn.closed.catch(() => {});
const ctx = conn.agent;
const timer = setTimeout(() => { say("timeout", null); process.kill(-proxy.pid, "SIGKILL"); process.exit(2); }, 60000);
await ctx.request(methods.agent.initialize, {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
});
const s = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
say("session", s.sessionId);
const r = await ctx.request(methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Make the change." }] });
say("done", r);
clearTimeout(timer);
proxy.stdin.end();
await new Promise((resolve) => proxy.on("exit", resolve));
process.exit(0);
