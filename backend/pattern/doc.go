// Package pattern analyses a grep pattern once, for every part of the
// search that asks about it: Compile validates and compiles it the way
// both backends read it (ripgrep's syntax and rewrites) and ForRG spells
// the same pattern for rg; from the compiled pattern's syntax tree
// (Syntax, Simple) come the literal prefilter's needles (Needles), the
// native scanner's other questions (MatchesNewline, ASCIIOnly,
// NeedsNonASCII) and the index's trigram plan (Trigrams). It is a room
// of its own because the driver, the native scanner and the index must
// agree on what a pattern means: one analysis, as ripgrep's matcher is
// asked by its searcher, its literal prefilter and its printer, keeps
// them from drifting apart. The analysis is made once per search: the
// stack's door (Compiling) compiles the pattern, syntax tree and rg's
// spelling included, and the query carries the value
// (GrepQuery.Compiled) to every stage, which reads it with Of.
package pattern
