// Drives fsmcp with the TypeScript @modelcontextprotocol/client 2.x pinned
// to the 2026-07-28 protocol (server/discover, no initialize, no session)
// over Streamable HTTP. Reads a plan from stdin — {url, calls: [{name,
// arguments}]}, where "$session" in an argument stands for the session
// the previous fs_bash answer named — and prints {serverInfo, protocol,
// tools, results: [{isError, text}]} as JSON. With "roots" (file:// URIs)
// in the plan, the client offers roots and answers roots/list with them:
// on this protocol, when the server asks through an input_required result.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input);

const options = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
if (plan.roots) options.capabilities = { roots: {} };
const client = new Client({ name: "fsmcp-ts2-check", version: "1.0.0" }, options);
if (plan.roots) client.setRequestHandler("roots/list", async () => ({ roots: plan.roots.map((uri) => ({ uri })) }));
await client.connect(new StreamableHTTPClientTransport(new URL(plan.url)));
const { tools } = await client.listTools();
const results = [];
let session = "";
for (const c of plan.calls) {
  const args = JSON.parse(JSON.stringify(c.arguments).replaceAll("$session", session));
  try {
    const res = await client.callTool({ name: c.name, arguments: args });
    const text = res.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
    const m = text.match(/\[session: (sess-[A-Z0-9]+) /);
    if (m) session = m[1];
    results.push({ isError: !!res.isError, text });
  } catch (e) {
    results.push({ isError: true, protocolError: true, text: String(e.message ?? e) });
  }
}
console.log(JSON.stringify({ serverInfo: client.getServerVersion(), protocol: client.getNegotiatedProtocolVersion(), tools: tools.map((t) => t.name), results }));
await client.close();
