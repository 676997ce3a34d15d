// Runs the MCP conformance suite's server scenarios that apply to fsmcp
// against a built fsmcp over Streamable HTTP, and exits 1 if one of them
// has a check that is not a success (a warning counts as a failure).
// Usage: node conformance.mjs /path/to/fsmcp
//
// The suite's client sends no Authorization header, so fsmcp runs with
// --no-auth on a loopback port. The scenarios left out, and why, are listed
// in the README ("Clients checked").
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// The scenarios whose checks exercise what fsmcp serves.
const applicable = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const binary = process.argv[2];
if (!binary) {
  console.error("usage: node conformance.mjs /path/to/fsmcp");
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), "fsmcp-conformance-"));
const root = join(tmp, "root");
const results = join(tmp, "results");
let server;
const cleanup = () => {
  server?.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true });
};
process.on("SIGINT", () => { cleanup(); process.exit(130); });

// run starts a process and resolves with its exit code; a hang is bounded.
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ["ignore", "inherit", "inherit"], ...opts });
    const timer = setTimeout(() => p.kill("SIGKILL"), 5 * 60 * 1000);
    p.on("exit", (code, signal) => { clearTimeout(timer); resolve(code ?? (signal ? 1 : 0)); });
  });
}

// startServer starts fsmcp on a free port and resolves with its /mcp URL,
// read from the line it logs once it listens.
function startServer() {
  mkdirSync(root);
  writeFileSync(join(root, "a.txt"), "hello from fsmcp\n");
  server = spawn(binary, ["--no-auth", "--listen", "127.0.0.1:0", "--resources", root], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, FSMCP_AUTH_TOKEN: "", FSMCP_NO_AUTH: "" },
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stderr });
    let url;
    lines.on("line", (line) => {
      const m = /url=(http:\/\/\S+\/mcp)/.exec(line);
      if (m && !url) { url = m[1]; resolve(url); }
    });
    server.on("exit", (code) => { if (!url) reject(new Error(`fsmcp exited (${code}) before it listened`)); });
  });
}

// failures lists a scenario's checks that are neither a success nor information.
function failures(scenario) {
  const dir = join(results, scenario);
  const out = [];
  for (const run of readdirSync(dir)) {
    const checks = JSON.parse(readFileSync(join(dir, run, "checks.json"), "utf8"));
    for (const c of checks) {
      if (c.status !== "SUCCESS" && c.status !== "INFO") out.push(`${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    }
  }
  return out;
}

let failed = 0;
try {
  const url = await startServer();
  console.log(`conformance: fsmcp at ${url}`);
  for (const scenario of applicable) {
    const code = await run(process.execPath, ["--import", join(here, "node20-fs.mjs"), suite, "server",
      "--url", url, "--scenario", scenario, "-o", join(results, scenario)]);
    const bad = failures(scenario);
    if (code !== 0 || bad.length > 0) {
      failed++;
      console.log(`FAIL ${scenario} (exit ${code})${bad.map((b) => "\n  " + b).join("")}`);
    } else {
      console.log(`ok   ${scenario}`);
    }
  }
} catch (e) {
  console.error(`conformance: ${e.message}`);
  failed++;
} finally {
  cleanup();
}
console.log(failed ? `conformance: ${failed} of ${applicable.length} scenarios failed` : `conformance: all ${applicable.length} applicable scenarios pass`);
process.exit(failed ? 1 : 0);
