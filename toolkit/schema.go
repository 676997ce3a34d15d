package toolkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

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

// advertise applies a tool input's `advertise` struct tags to its
// advertised schema s (Bind's copy; validation never sees them). They say
// what a seed's schema states beyond what struct tags give the validator,
// checked (if at all) by the handler in the seed's own words:
//
//	default=V   the seed's default: V as JSON, or as a string when it is not
//	            JSON (default=false, default=100, default=., default=utf-8)
//	enum=a|b    the values the seed lists
//	minimum=N   the seed's lower bound
//	required    required in the advertised schema only: a missing value
//	            reaches the handler, which refuses it the seed's way
//
// Comma-separated; fields of nested structs and of slice elements too.
func advertise(t reflect.Type, s *jsonschema.Schema) {
	for s != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		if t.Kind() == reflect.Slice {
			s = s.Items
		}
		t = t.Elem()
	}
	if s == nil || t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		advertise(f.Type, p)
		tag, ok := f.Tag.Lookup("advertise")
		if !ok {
			continue
		}
		for _, item := range strings.Split(tag, ",") {
			key, val, _ := strings.Cut(item, "=")
			switch key {
			case "default":
				if !json.Valid([]byte(val)) {
					raw, _ := json.Marshal(val)
					val = string(raw)
				}
				p.Default = json.RawMessage(val)
			case "enum":
				p.Enum = nil
				for _, v := range strings.Split(val, "|") {
					p.Enum = append(p.Enum, v)
				}
			case "minimum":
				n, err := strconv.ParseFloat(val, 64)
				if err != nil {
					panic(fmt.Sprintf("field %s: advertise minimum=%q: %v", f.Name, val, err))
				}
				p.Minimum = &n
			case "required":
				s.Required = append(s.Required, name)
			default:
				panic(fmt.Sprintf("field %s: unknown advertise tag %q", f.Name, item))
			}
		}
	}
}
