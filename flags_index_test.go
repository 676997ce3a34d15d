package main

import (
	"strings"
	"testing"
)

// TestParseIndex: --index is auto by default, takes on and off, and
// anything else is a usage error naming the choices.
func TestParseIndex(t *testing.T) {
	none := func(string) string { return "" }
	if o, err := parseArgs(nil, none); err != nil || o.index != "auto" {
		t.Fatalf("default --index: %v %v", o, err)
	}
	for _, m := range []string{"auto", "on", "off"} {
		if o, err := parseArgs([]string{"--index", m}, none); err != nil || o.index != m {
			t.Errorf("--index %s: %v %v", m, o, err)
		}
	}
	if _, err := parseArgs([]string{"--index", "yes"}, none); err == nil || !strings.Contains(err.Error(), "auto, on or off") {
		t.Errorf("--index yes: %v", err)
	}
}
