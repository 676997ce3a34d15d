// Module hooks for node20-fs.mjs: the suite's "fs" import gets node:fs plus
// a globSync that says what it needs.
const shim = "data:text/javascript," + encodeURIComponent(
  'export * from "node:fs"; export { default } from "node:fs";' +
  ' export function globSync() { throw new Error("fs.globSync needs Node 22 or later"); }');

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
