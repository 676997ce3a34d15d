// Package pattern analyses a grep pattern once, for every part of the
// search that asks about it: Compile validates and compiles it the way
// both backends read it (ripgrep's syntax and rewrites), ForRG is the
// same pattern spelled for rg, and the questions asked of the compiled
// pattern's syntax tree (must a match hold a byte >= 0x80?) are answered
// here too. It is a room of its own because the driver, the native
// scanner and the index must agree on what a pattern means; one
// analysis, as ripgrep's matcher is asked by its searcher, its literal
// prefilter and its printer, keeps them from drifting apart.
package pattern
