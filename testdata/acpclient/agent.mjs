// A scripted ACP agent built on the official TypeScript SDK: each prompt
// names one step, which the agent plays against its client (the editor, or
// sightline acp in between) and reports in an agent_message_chunk. It makes
// no decision of its own: what it sends is the step's, what it got back is
// reported as it came.
import { Readable, Writable } from "node:stream";
import * as path from "node:path";
import { agent, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const file = () => path.join(process.env.WORKSPACE, "demo.txt");
const sessions = new Map(); // sessionId -> { mcpServers, cancel }
let counter = 0;

async function say(ctx, sessionId, text) {
  await ctx.client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

async function update(ctx, sessionId, u) {
  await ctx.client.notify(methods.client.session.update, { sessionId, update: u });
}

const lines = (first, last, text) =>
  text.split("\n").slice(first - 1, last).map((l, i) => `${first + i}\t${l}`).join("\n");

const steps = {
  // A read tool of the agent's through the editor's fs/read_text_file,
  // lines 1-3: announced as a tool call, run, completed.
  async read(ctx, sessionId) {
    const id = `read-${++counter}`;
    await update(ctx, sessionId, { sessionUpdate: "tool_call", toolCallId: id, title: "Read demo.txt", kind: "read", status: "in_progress", locations: [{ path: file(), line: 1 }] });
    const r = await ctx.client.request(methods.client.fs.readTextFile, { sessionId, path: file(), line: 1, limit: 3 });
    await update(ctx, sessionId, { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    await say(ctx, sessionId, `read: ${JSON.stringify(r.content)}`);
  },
  // A whole-file write changing line 8 (never shown), then line 2 (shown).
  async "write-unread"(ctx, sessionId) {
    const cur = (await import("node:fs")).readFileSync(file(), "utf8").split("\n");
    cur[7] = "EIGHT";
    try {
      await ctx.client.request(methods.client.fs.writeTextFile, { sessionId, path: file(), content: cur.join("\n") });
      await say(ctx, sessionId, "write: ok");
    } catch (e) {
      await say(ctx, sessionId, `write error ${e.code}: ${e.message}`);
    }
  },
  // Both in one turn (acpx runs one prompt per process).
  async "read-write"(ctx, sessionId) {
    await say(ctx, sessionId, `session: ${sessionId}\n`);
    await steps.read(ctx, sessionId);
    await steps["write-unread"](ctx, sessionId);
  },
  async "write-read"(ctx, sessionId) {
    const cur = (await import("node:fs")).readFileSync(file(), "utf8").split("\n");
    cur[1] = "TWO";
    try {
      await ctx.client.request(methods.client.fs.writeTextFile, { sessionId, path: file(), content: cur.join("\n") });
      await say(ctx, sessionId, "write: ok");
    } catch (e) {
      await say(ctx, sessionId, `write error ${e.code}: ${e.message}`);
    }
  },
  // A read tool call of the agent's own, as claude-agent-acp reports one:
  // the location's line, then the content as cat -n in a Markdown fence.
  async "tool-read"(ctx, sessionId) {
    const text = (await import("node:fs")).readFileSync(file(), "utf8");
    const id = `read-${++counter}`;
    await update(ctx, sessionId, { sessionUpdate: "tool_call", toolCallId: id, title: "Read demo.txt", kind: "read", status: "pending", locations: [{ path: file(), line: 4 }] });
    await update(ctx, sessionId, {
      sessionUpdate: "tool_call_update", toolCallId: id, status: "completed",
      content: [{ type: "content", content: { type: "text", text: "```\n" + lines(4, 5, text) + "\n```" } }],
    });
    await say(ctx, sessionId, "tool-read: done");
  },
  // An edit of the agent's own asking permission: the diff first in a
  // tool_call, the permission request naming the call; then, if allowed,
  // the completed update.
  async "edit-unread"(ctx, sessionId) { await edit(ctx, sessionId, "line 9", "NINE"); },
  async "edit-read"(ctx, sessionId) { await edit(ctx, sessionId, "line 5", "FIVE"); },
  async mcp(ctx, sessionId) {
    await say(ctx, sessionId, `mcp: ${JSON.stringify(sessions.get(sessionId).mcpServers)}`);
  },
  // A request and a notification of a method no spec knows.
  async unknown(ctx, sessionId) {
    const r = await ctx.client.request("_scripted/echo", { sessionId, text: "ping \u2603 </script>" });
    await ctx.client.notify("_scripted/note", { sessionId, n: 1 });
    await say(ctx, sessionId, `unknown: ${JSON.stringify(r)}`);
  },
  // Waits until the turn is cancelled (session/cancel) or the request is
  // ($/cancel_request), then answers cancelled.
  async wait(ctx, sessionId) {
    await new Promise((resolve) => {
      sessions.get(sessionId).cancel = resolve;
      ctx.signal.addEventListener("abort", resolve);
    });
    return "cancelled";
  },
  async die() {
    process.exit(3);
  },
};

async function edit(ctx, sessionId, oldText, newText) {
  const fs = await import("node:fs");
  const id = `edit-${++counter}`;
  await update(ctx, sessionId, {
    sessionUpdate: "tool_call", toolCallId: id, title: "Edit demo.txt", kind: "edit", status: "pending",
    locations: [{ path: file() }], content: [{ type: "diff", path: file(), oldText, newText }],
  });
  let chosen, reason = "";
  try {
    const r = await ctx.client.request(methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId: id },
      options: [
        { optionId: "allow", name: "Yes", kind: "allow_once" },
        { optionId: "reject", name: "No", kind: "reject_once" },
      ],
    });
    chosen = r.outcome.outcome === "selected" ? r.outcome.optionId : r.outcome.outcome;
  } catch (e) {
    // sightline refuses an edit's permission with an error, whose message
    // says why.
    chosen = "error";
    reason = " sightline: " + e.message;
  }
  if (chosen === "allow") {
    fs.writeFileSync(file(), fs.readFileSync(file(), "utf8").replace(oldText + "\n", newText + "\n"));
    await update(ctx, sessionId, { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
  } else {
    await update(ctx, sessionId, { sessionUpdate: "tool_call_update", toolCallId: id, status: "failed" });
  }
  await say(ctx, sessionId, `permission: ${chosen}${reason}`);
}

agent({ name: "scripted-agent" })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: true },
    agentInfo: { name: "scripted-agent", version: "1.0.0" },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, ({ params }) => {
    const sessionId = `sess-${process.pid}-${++counter}`;
    sessions.set(sessionId, { mcpServers: params.mcpServers });
    return { sessionId };
  })
  .onRequest(methods.agent.session.load, ({ params }) => {
    sessions.set(params.sessionId, { mcpServers: params.mcpServers });
    return {};
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.();
  })
  .onRequest(methods.agent.session.prompt, async (ctx) => {
    const { sessionId, prompt } = ctx.params;
    const step = prompt.map((b) => b.text ?? "").join("").trim().split(/\s+/).at(-1);
    const run = steps[step];
    if (!run) {
      await say(ctx, sessionId, `unknown step ${step}`);
      return { stopReason: "end_turn" };
    }
    const stop = await run(ctx, sessionId);
    return { stopReason: stop ?? "end_turn" };
  })
  .connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
