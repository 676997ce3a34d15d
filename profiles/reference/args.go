package reference

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The official server validates arguments with zod: unknown arguments are
// dropped, and every problem is one line "<message> at <path>", all of
// them after `MCP error -32602: Input validation error: Invalid arguments
// for tool <name>: `, in an isError result. A field is described as data
// here, from the tool's input struct (fieldsOf), and checked the same way.

type kind int

const (
	kString kind = iota
	kNumber
	kBool
	kStrings // array of strings
	kEdits   // array of {oldText, newText}
	kEnum
)

// field is one argument of a tool, in the order the tool's schema names
// them (the input struct's order).
type field struct {
	name     string
	kind     kind
	optional bool
	minItems int      // kStrings
	options  []string // kEnum
}

// fieldsOf describes the arguments of an input struct: the json name,
// optional when omitempty, the kind by Go type (string, float64, bool,
// []string, edits), and its zod tag: enum=a|b (a string of those values),
// min=N (an array of at least N items).
func fieldsOf(t reflect.Type) []field {
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := field{name: name, optional: opts == "omitempty"}
		switch ty := sf.Type; {
		case ty.Kind() == reflect.String:
			f.kind = kString
		case ty.Kind() == reflect.Float64:
			f.kind = kNumber
		case ty.Kind() == reflect.Bool:
			f.kind = kBool
		case ty == reflect.TypeFor[[]string]():
			f.kind = kStrings
		case ty == reflect.TypeFor[[]edit]():
			f.kind = kEdits
		default:
			panic(fmt.Sprintf("reference: field %s: no zod kind for %v", sf.Name, ty))
		}
		for _, item := range strings.Split(sf.Tag.Get("zod"), ",") {
			switch key, val, _ := strings.Cut(item, "="); key {
			case "":
			case "enum":
				f.kind, f.options = kEnum, strings.Split(val, "|")
			case "min":
				n, err := strconv.Atoi(val)
				if err != nil {
					panic(fmt.Sprintf("reference: field %s: zod min=%q", sf.Name, val))
				}
				f.minItems = n
			default:
				panic(fmt.Sprintf("reference: field %s: unknown zod tag %q", sf.Name, item))
			}
		}
		fields = append(fields, f)
	}
	return fields
}

// check returns the zod issues of args against fields, in zod's order.
func check(args map[string]any, fields []field) []string {
	var issues []string
	add := func(msg, at string) { issues = append(issues, msg+" at "+at) }
	for _, f := range fields {
		v, present := args[f.name]
		if !present && f.optional {
			continue
		}
		if !present {
			v = undefined{}
		}
		switch f.kind {
		case kString, kNumber, kBool:
			if want := map[kind]string{kString: "string", kNumber: "number", kBool: "boolean"}[f.kind]; typeOf(v) != want {
				add(expected(want, v), f.name)
			}
		case kEnum:
			s, ok := v.(string)
			if !ok || !contains(f.options, s) {
				add("Invalid option: expected one of \""+strings.Join(f.options, "\"|\"")+"\"", f.name)
			}
		case kStrings, kEdits:
			list, ok := v.([]any)
			if !ok {
				add(expected("array", v), f.name)
				continue
			}
			for i, item := range list {
				at := fmt.Sprintf("%s[%d]", f.name, i)
				if f.kind == kStrings {
					if typeOf(item) != "string" {
						add(expected("string", item), at)
					}
					continue
				}
				obj, ok := item.(map[string]any)
				if !ok {
					add(expected("object", item), at)
					continue
				}
				for _, k := range []string{"oldText", "newText"} {
					x, ok := obj[k]
					if !ok {
						x = undefined{}
					}
					if typeOf(x) != "string" {
						add(expected("string", x), at+"."+k)
					}
				}
			}
			if f.kind == kStrings && len(list) < f.minItems {
				add(fmt.Sprintf("Too small: expected array to have >=%d items", f.minItems), f.name)
			}
		}
	}
	return issues
}

// undefined stands for a missing argument.
type undefined struct{}

func expected(want string, got any) string {
	return "Invalid input: expected " + want + ", received " + typeOf(got)
}

// typeOf names a decoded JSON value's type as zod does.
func typeOf(v any) string {
	switch v.(type) {
	case undefined:
		return "undefined"
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decode checks args against fields and decodes them into a typed input;
// problems come back as the official server's text.
func decode[In any](tool string, args map[string]any, fields []field) (In, error) {
	var in In
	if issues := check(args, fields); len(issues) > 0 {
		return in, fmt.Errorf("MCP error -32602: Input validation error: Invalid arguments for tool %s: %s", tool, strings.Join(issues, "\n"))
	}
	raw, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(raw, &in)
	}
	if err != nil {
		return in, fmt.Errorf("MCP error -32602: Input validation error: Invalid arguments for tool %s: %v", tool, err)
	}
	return in, nil
}
