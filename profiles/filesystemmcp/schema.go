package filesystemmcp

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/fsmcp/fsmcp/toolkit"
)

// defaults are the original's Zod .default() values, advertised in the
// schemas as zod-to-json-schema does.
var defaults = map[string]string{
	"path": `"."`, "recursive": "false", "include_stats": "false", "append": "false",
	"file_pattern": `"*"`, "use_regex": "false", "ignore_case": "false",
}

// advertised gives a tool the schema the original advertises: the
// defaults of optional parameters. Only the advertised copy changes; the
// validating schema stays as Bind made it.
func advertised(t toolkit.Tool) toolkit.Tool {
	t.Def.InputSchema = tidy(t.Def.InputSchema.(*jsonschema.Schema)) // Bind's
	return t
}

func tidy(s *jsonschema.Schema) *jsonschema.Schema {
	cp := *s
	if cp.Items != nil {
		cp.Items = tidy(cp.Items)
	}
	if cp.Properties != nil {
		cp.Properties = maps.Clone(s.Properties)
		for name, p := range cp.Properties {
			p = tidy(p)
			if d, ok := defaults[name]; ok && !slices.Contains(cp.Required, name) {
				p.Default = json.RawMessage(d)
			}
			cp.Properties[name] = p
		}
	}
	return &cp
}
