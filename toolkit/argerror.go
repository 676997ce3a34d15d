package toolkit

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ArgError is Bind's refusal of a call's arguments, before its handler
// runs: what is wrong, typed, so a table words it its original's way
// without parsing the validator's English. It reaches the wire as the
// -32602 whose message is Error(), unless the table's Errors maps it;
// errors.As finds it as that *jsonrpc.Error too.
type ArgError struct {
	// Field is the argument at fault, dotted when nested ("opts.depth");
	// for Missing, the object whose properties are missing ("" at the top).
	Field string
	// Reason is what is wrong with it.
	Reason ArgReason
	// Missing names the required properties absent from Field, in the
	// schema's order (Reason Missing).
	Missing []string
	// Got and Want are JSON type names (Reason WrongType): the value's,
	// and the ones the schema allows besides null.
	Got  string
	Want []string
	// detail is the validator's sentence; message is Error(), the
	// -32602's message.
	detail, message string
}

// ArgReason is the kind of an ArgError.
type ArgReason int

const (
	// Invalid: anything else (not an object, an enum, a bound); only
	// the message says what.
	Invalid ArgReason = iota
	// Missing: required properties are absent.
	Missing
	// WrongType: a property has the wrong JSON type. Properties inside
	// arrays are not named this way (Invalid).
	WrongType
)

func (e *ArgError) Error() string { return e.message }

// Detail is the validator's sentence, without Error's "invalid arguments: ".
func (e *ArgError) Detail() string { return e.detail }

func (e *ArgError) rpc() *jsonrpc.Error { return RPCError(jsonrpc.CodeInvalidParams, "%s", e.message) }

// As lets errors.As find an ArgError as the -32602 it answers.
func (e *ArgError) As(target any) bool {
	if p, ok := target.(**jsonrpc.Error); ok {
		*p = e.rpc()
		return true
	}
	return false
}

// classify types the validator's refusal of args by checking them against
// schema in the validator's own order: at each object, its properties
// (types, then nested objects) before its required ones.
func classify(schema *jsonschema.Schema, args map[string]any, detail string) *ArgError {
	e := &ArgError{detail: detail, message: "invalid arguments: " + detail}
	classifyObject(e, schema, args, "")
	return e
}

// argError is an ArgError of reason Invalid with message msg.
func argError(msg, detail string) *ArgError {
	return &ArgError{detail: detail, message: msg}
}

func classifyObject(e *ArgError, schema *jsonschema.Schema, obj map[string]any, at string) bool {
	for _, name := range sortedKeys(obj) {
		sub, ok := schema.Properties[name]
		if !ok || sub == nil {
			continue
		}
		field := name
		if at != "" {
			field = at + "." + name
		}
		got := jsonType(obj[name])
		if want := allowed(sub); len(want) > 0 && !typeFits(got, want) {
			e.Field, e.Reason, e.Got = field, WrongType, got
			e.Want = slices.DeleteFunc(slices.Clone(want), func(t string) bool { return t == "null" })
			return true
		}
		if inner, ok := obj[name].(map[string]any); ok && classifyObject(e, sub, inner, field) {
			return true
		}
	}
	var missing []string
	for _, r := range schema.Required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		e.Field, e.Reason, e.Missing = at, Missing, missing
		return true
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// allowed is the JSON types a schema allows (none: any).
func allowed(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// typeFits reports whether a value of JSON type got is one of want
// (an integer is a number).
func typeFits(got string, want []string) bool {
	return slices.Contains(want, got) || got == "integer" && slices.Contains(want, "number")
}

// jsonType is the JSON type name of a decoded value, as the validator
// says it.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
