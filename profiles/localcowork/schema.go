package localcowork

import (
	"encoding/json"
	"maps"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/fsmcp/fsmcp/toolkit"
)

// extra is what the original's zod schemas add to a parameter, as
// zod-to-json-schema writes them: a .default() and a z.enum().
type extra struct {
	def      string // JSON, "" for none
	enum     []any
	positive bool // an integer .positive(): written here as minimum 1
}

// extras are the original's additions, by tool and parameter.
var extras = map[string]map[string]extra{
	"filesystem.list_dir":   {"recursive": {def: "false"}},
	"filesystem.read_file":  {"encoding": {def: `"utf-8"`}},
	"filesystem.write_file": {"encoding": {def: `"utf-8"`}},
	"filesystem.move_file":  {"create_dirs": {def: "true"}},
	"filesystem.search_files": {
		"type":        {enum: []any{"file", "dir", "symlink"}},
		"max_results": {def: "100", positive: true},
	},
}

// advertised gives a tool the schema the original advertises. Only the
// advertised copy changes; the validating schema stays as Bind made it
// (the handlers check the enum and the bound with the original's words).
func advertised(t toolkit.Tool) toolkit.Tool {
	s, ok := t.Def.InputSchema.(*jsonschema.Schema)
	add := extras[t.Def.Name]
	if !ok || add == nil {
		return t
	}
	cp := *s
	cp.Properties = maps.Clone(s.Properties)
	for name, x := range add {
		p, ok := cp.Properties[name]
		if !ok {
			continue
		}
		q := *p
		if x.def != "" {
			q.Default = json.RawMessage(x.def)
		}
		q.Enum = x.enum
		if x.positive {
			// zod-to-json-schema wrote draft-04's {minimum: 0,
			// exclusiveMinimum: true}, which 2020-12 readers reject;
			// for an integer, minimum 1 says the same in every draft.
			one := 1.0
			q.Minimum = &one
		}
		cp.Properties[name] = &q
	}
	def := *t.Def
	def.InputSchema = &cp
	t.Def = &def
	return t
}
