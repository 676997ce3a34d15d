package pattern

import (
	"regexp/syntax"

	csindex "github.com/google/codesearch/index"
)

// Trigrams is the AND/OR query of trigrams that every match of re
// holds, as the index plans it (codesearch's planner: exact sets,
// prefixes and suffixes, case folding with unicode.SimpleFold, so ſ and
// the Kelvin sign are among an -i literal's spellings, as in Go's
// matcher); Op QAll when no trigram is required. re is a Pattern's
// Syntax, the tree the backends run.
func Trigrams(re *syntax.Regexp) *csindex.Query { return csindex.RegexpQuery(re) }
