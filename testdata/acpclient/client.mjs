// A scripted ACP client (the editor's side) built on the official
// TypeScript SDK: it launches `sightline acp -- node agent.mjs`, serves the
// agent's file reads and writes from the disk as an editor serves them from
// its buffers, and checks what the agent gets through sightline: reads
// recorded, an unread write refused before it reaches the editor, a read
// one written, an edit's permission rejected for unread lines and asked of
// the user otherwise, sightline's MCP server in the session, cancellation
// and unknown methods passed through, the agent's death ending the proxy.
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const bin = process.env.SIGHTLINE_BIN;
const ws = process.env.WORKSPACE;
const file = path.join(ws, "demo.txt");
const here = path.dirname(new URL(import.meta.url).pathname);

function check(cond, what, detail = "") {
  if (!cond) {
    console.log(`FAIL ${what}${detail ? ": " + detail : ""}`);
    process.exit(1);
  }
  console.log(`ok  ${what}`);
}

const proxy = spawn(bin, ["acp", "--", process.execPath, path.join(here, "agent.mjs")], {
  cwd: ws,
  stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((resolve) => proxy.on("exit", (code, signal) => resolve({ code, signal })));

const seen = { written: [], permissions: [], messages: [], echo: [], notes: [] };
let sessionId;
const texts = () => seen.messages.join("");

const app = client({ name: "scripted-editor" })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    const all = fs.readFileSync(params.path, "utf8").split("\n");
    const first = (params.line ?? 1) - 1;
    const end = params.limit ? first + params.limit : all.length;
    return { content: all.slice(first, end).join("\n") + (end < all.length ? "\n" : "") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    seen.written.push(params.content);
    fs.writeFileSync(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push(params.toolCall.toolCallId);
    return { outcome: { outcome: "selected", optionId: "allow" } };
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") seen.messages.push(params.update.content.text);
  })
  .onRequest("_scripted/echo", (p) => p, ({ params }) => {
    seen.echo.push(params.text);
    return { echoed: params.text };
  })
  .onNotification("_scripted/note", (p) => p, ({ params }) => {
    seen.notes.push(params.n);
  });

// ledgerUntil waits for the session's ledger to satisfy pred: without a
// language server, the proxy's engine writes its ledger to the database
// behind (every 500 ms), where `sightline ledger` reads it.
async function ledgerUntil(pred) {
  let l;
  for (let i = 0; i < 30; i++) {
    l = ledger();
    if (pred(l)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return l;
}

const covers = (ranges, line) => JSON.parse(ranges).some((r) => r.start <= line && r.end >= line);

function ledger() {
  const out = execFileSync(bin, ["ledger", "demo.txt", "--json", "--session", `acp-${sessionId}`], { cwd: ws, encoding: "utf8" });
  const d = JSON.parse(out).documents[0] ?? {};
  return { read: JSON.stringify(d.read ?? []), authored: JSON.stringify(d.authored ?? []) };
}

const stream = ndJsonStream(Writable.toWeb(proxy.stdin), Readable.toWeb(proxy.stdout));
const conn = app.connect(stream);
conn.closed.catch(() => {}); // the agent's death closes it, on purpose
{
  const ctx = conn.agent;
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  check(init.agentInfo?.name === "scripted-agent", "initialize answered through the proxy");
  const s = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [{ name: "other", command: "/bin/true", args: [], env: [] }] });
  sessionId = s.sessionId;
  const prompt = async (step, options) => {
    seen.messages = [];
    const r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: step }] }, options);
    // The SDK hands notifications to their handlers asynchronously: let
    // those sent before the answer land.
    await new Promise((resolve) => setImmediate(resolve));
    return r;
  };

  await prompt("mcp");
  const servers = JSON.parse(texts().replace(/^mcp: /, ""));
  const ours = servers.find((x) => x.name === "sightline");
  check(servers.length === 2 && servers[0].name === "other", "the editor's MCP servers kept", texts());
  check(ours && ours.command === bin && ours.args[0] === "mcp" && ours.args.includes("--session-file"), "sightline's MCP server added to session/new", texts());
  const named = fs.readFileSync(ours.args[ours.args.indexOf("--session-file") + 1], "utf8").trim();
  check(named === `acp-${sessionId}`, "the MCP server's session is the ACP session's", named);

  await prompt("read");
  check(texts() === 'read: "line 1\\nline 2\\nline 3\\n"', "fs/read_text_file answered by the editor", texts());
  let l = await ledgerUntil((l) => l.read !== "[]");
  check(l.read === '[{"start":1,"end":3}]', "fs/read_text_file's lines recorded", l.read);

  await prompt("tool-read");
  l = await ledgerUntil((l) => covers(l.read, 4) && covers(l.read, 5) || covers(l.authored, 4));
  check(covers(l.read, 4) && covers(l.read, 5) || covers(l.authored, 4) && covers(l.authored, 5), "a read tool call's lines recorded", JSON.stringify(l));

  await prompt("edit-unread");
  check(seen.permissions.length === 0, "a permission for an unread edit never reached the editor");
  check(/^permission: error sightline: sightline rejected this edit of .*demo\.txt: Line 9 was never shown to the agent\. Read lines 9, then retry the edit\./.test(texts().split("\n").filter(Boolean).at(-1)), "the agent got an error saying why", texts());
  check(texts().includes("sightline rejected this edit"), "the editor was told why");

  await prompt("edit-read");
  check(seen.permissions.length === 1 && texts() === "permission: allow", "a permission for a read edit asked of the user", texts());
  check(fs.readFileSync(file, "utf8").includes("FIVE\n"), "the agent's edit applied");
  l = await ledgerUntil((l) => covers(l.authored, 5));
  check(covers(l.authored, 5), "the edit's line counts as authored", JSON.stringify(l));
  // Written behind with the edit's record, after the rejection.
  check(!covers(l.read, 9) && !covers(l.authored, 9), "the rejected edit's lines do not count as read", JSON.stringify(l));

  await prompt("write-unread");
  check(seen.written.length === 0, "an unread write never reached the editor", seen.written.join("|"));
  check(/^write error -32001: sightline refused this change of .*demo\.txt: Line 8 was never shown to you\./.test(texts()), "the agent got the refusal naming the line", texts());
  check(texts().includes("8\tline 8"), "the refusal carries the line", texts());

  await prompt("write-unread");
  check(texts() === "write: ok" && seen.written.length === 1, "the retry, with the line handed over, reaches the editor", texts());
  check(fs.readFileSync(file, "utf8").split("\n")[7] === "EIGHT", "the editor wrote it");
  l = await ledgerUntil((l) => covers(l.authored, 8));
  check(covers(l.authored, 8), "the written lines count as authored", l.authored);

  await prompt("write-read");
  check(texts() === "write: ok" && seen.written.length === 2, "a write of read lines forwarded", texts());

  await prompt("unknown");
  check(seen.echo[0] === "ping \u2603 </script>" && texts() === 'unknown: {"echoed":"ping \u2603 </script>"}', "an unknown request passed both ways", texts());
  check(seen.notes[0] === 1, "an unknown notification passed");

  // session/cancel ends a turn; $/cancel_request cancels a request.
  const waiting = prompt("wait");
  await new Promise((r) => setTimeout(r, 100));
  await ctx.notify(methods.agent.session.cancel, { sessionId });
  check((await waiting).stopReason === "cancelled", "session/cancel reached the agent");
  const ac = new AbortController();
  const waiting2 = prompt("wait", { cancellationSignal: ac.signal });
  await new Promise((r) => setTimeout(r, 100));
  ac.abort();
  let cancelled;
  try {
    cancelled = (await waiting2).stopReason;
  } catch (e) {
    cancelled = `error ${e.code}`;
  }
  check(cancelled === "cancelled" || cancelled === "error -32800", "$/cancel_request reached the agent", cancelled);

  // session/load names the session directly.
  await ctx.request(methods.agent.session.load, { sessionId: "loaded-1", cwd: ws, mcpServers: [] });
  sessionId = "loaded-1";
  await prompt("mcp");
  const loaded = JSON.parse(texts().replace(/^mcp: /, ""));
  check(loaded.length === 1 && loaded[0].args.join(" ").includes("--session acp-loaded-1"), "session/load gets the server with its session", texts());

  // The agent dies: the proxy ends with its exit code.
  prompt("die").catch(() => {});
  const { code } = await Promise.race([exited, new Promise((r) => setTimeout(() => r({ code: "timeout" }), 5000))]);
  check(code === 3, "the agent's death ends the proxy with its exit code", String(code));
}
console.log("ok  acp client done");
process.exit(0);
