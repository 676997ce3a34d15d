// Lets the conformance suite's CLI load on Node 20: its bundle imports
// fs.globSync (Node 22) at the top, for a tier-check command fsmcp never
// runs. Where fs has globSync, this does nothing.
import { register } from "node:module";
import fs from "node:fs";

if (!fs.globSync) register("./node20-fs-hooks.mjs", import.meta.url);
