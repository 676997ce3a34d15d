// Drives fsmcp with the official TypeScript MCP client. Reads a plan from
// stdin — {transport: "stdio"|"http", command, args, env, cwd, url, calls: [{name, arguments}]} —
// and prints {serverInfo, tools, results: [{isError, text}]} as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input);

const transport = plan.transport === "http"
  ? new StreamableHTTPClientTransport(new URL(plan.url))
  : new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: "inherit" });

const client = new Client({ name: "fsmcp-ts-check", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const results = [];
for (const c of plan.calls) {
  try {
    const res = await client.callTool({ name: c.name, arguments: c.arguments });
    const text = res.content.map((p) => (p.type === "text" ? p.text : `[${p.type} ${p.mimeType ?? ""}]`)).join("");
    results.push({ isError: !!res.isError, text });
  } catch (e) {
    results.push({ isError: true, protocolError: true, text: String(e.message ?? e) });
  }
}
console.log(JSON.stringify({ serverInfo: client.getServerVersion(), tools: tools.map((t) => t.name), results }));
await client.close();
