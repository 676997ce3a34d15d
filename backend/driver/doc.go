// Package driver runs the external search tools behind backend's
// contract: rg (ripgrep) for grep and glob, find(1) for globs, rg as PATH
// really has it (FindRG: links, shims, the loader), and Select, which
// picks among them and the native scanner (backend/native) at start;
// backend/driver/confine runs rg and find under Landlock and traces
// which binary a shim hands over to.
// It is a room of its own because it is the one place that starts
// programs and parses their output into backend's Sink; what a search
// means is decided elsewhere (backend, backend/ignore), so the drivers and
// the native scanner answer alike.
package driver
