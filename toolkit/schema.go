package toolkit

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// oneType returns a copy of an inferred schema in which a field typed
// ["null", X] (how the inference types pointers and slices) is typed X:
// strict schema dialects (OpenAI's, Gemini's) reject a list of types. A
// client omits such a field rather than sending null; validation keeps
// the original schema, so a null that does come is still accepted.
func oneType(s *jsonschema.Schema) *jsonschema.Schema {
	s = s.CloneSchemas()
	dropNull(s)
	return s
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Properties, s.PatternProperties, s.Defs, s.Definitions, s.DependentSchemas} {
		for _, c := range m {
			dropNull(c)
		}
	}
	for _, l := range [][]*jsonschema.Schema{s.PrefixItems, s.AnyOf, s.OneOf, s.AllOf} {
		for _, c := range l {
			dropNull(c)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalItems, s.AdditionalProperties, s.Not, s.Contains, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties, s.If, s.Then, s.Else} {
		dropNull(c)
	}
}
