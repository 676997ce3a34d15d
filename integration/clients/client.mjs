// Drives fsmcp with a pinned older TypeScript SDK client. Reads a plan from
// stdin — {sdk: "sdk-1.0"|"sdk-1.10", transport: "stdio"|"http", command,
// args, env, url, headers, calls: [{name, arguments}]} — and prints
// {serverInfo, tools, results: [{isError, text}]} as JSON. Over stdio the
// command may be fsmcp itself or a bridge to it (mcp-remote).
let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input);

// Both map their subpaths into dist/ through package.json "exports".
const base = plan.sdk;
const { Client } = await import(`${base}/client/index.js`);

let transport;
if (plan.transport === "http") {
  const { StreamableHTTPClientTransport } = await import(`${base}/client/streamableHttp.js`);
  transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers: plan.headers ?? {} } });
} else {
  const { StdioClientTransport } = await import(`${base}/client/stdio.js`);
  transport = new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: "inherit" });
}

const client = new Client({ name: `fsmcp-${plan.sdk}-check`, version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
const { tools } = await client.listTools();
const results = [];
for (const c of plan.calls) {
  try {
    const res = await client.callTool({ name: c.name, arguments: c.arguments });
    const text = res.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
    results.push({ isError: !!res.isError, text });
  } catch (e) {
    results.push({ isError: true, protocolError: true, text: String(e.message ?? e) });
  }
}
console.log(JSON.stringify({ serverInfo: client.getServerVersion(), tools: tools.map((t) => t.name), results }));
await client.close();
