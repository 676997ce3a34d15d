package toolkit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestOneType(t *testing.T) {
	type item struct {
		N *int `json:"n,omitempty"`
	}
	type in struct {
		S     *string `json:"s,omitempty"`
		Items []item  `json:"items,omitempty"`
		Plain string  `json:"plain"`
	}
	s, err := jsonschema.For[in](nil)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(s)
	b, _ := json.Marshal(oneType(s))
	if strings.Contains(string(b), "null") || !strings.Contains(string(before), "null") {
		t.Errorf("before %s\nafter %s", before, b)
	}
	if after, _ := json.Marshal(s); string(after) != string(before) {
		t.Error("oneType changed the schema it was given")
	}
	for _, want := range []string{`"s":{"type":"string"}`, `"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("lacks %s: %s", want, b)
		}
	}
}
