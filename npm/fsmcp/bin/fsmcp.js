#!/usr/bin/env node
// Runs the fsmcp binary that npm installed for this platform: package
// fsmcp lists one package per platform (@fsmcp/<os>-<cpu>) as an optional
// dependency with os and cpu set, so npm installs only the one that fits
// and nothing is downloaded after install. stdio is inherited (it is the
// MCP stream), signals are passed on, and the binary's exit status (or
// the signal that ended it) becomes this process's.
"use strict";

const { spawn } = require("child_process");
const os = require("os");
const path = require("path");

const pkg = `@fsmcp/${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "fsmcp.exe" : "fsmcp";

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  process.stderr.write(
    `fsmcp: no binary for ${process.platform}-${process.arch}: the package ${pkg} is not installed. ` +
      "npm installs it with fsmcp as an optional dependency unless optional dependencies are left out " +
      "(--omit=optional, --no-optional); fsmcp ships for linux, darwin and win32 on x64 and arm64.\n",
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// Pass on what a host or a terminal sends; the child decides what it means.
const signals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"].filter((s) => process.platform !== "win32" || s !== "SIGQUIT");
const forward = (s) => {
  try {
    child.kill(s);
  } catch {
    // The child has already gone: its exit handler ends this process.
  }
};
for (const s of signals) process.on(s, forward);

child.on("error", (err) => {
  process.stderr.write(`fsmcp: cannot run ${bin}: ${err.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // End this process by the same signal, so the caller sees what happened.
    // Should this process outlive it (a signal node ignores), the shell's
    // convention for a death by signal stands.
    process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
    for (const s of signals) process.removeListener(s, forward);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
