package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandHome(t *testing.T) {
	home := func() (string, error) { return "/home/me", nil }
	sep := string(filepath.Separator)
	got, err := expandHome([]string{"~", "~/src", "~" + sep + "x", "~bob/x", "/a/~", "rel"}, home)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/home/me", "/home/me/src", "/home/me" + sep + "x", "~bob/x", "/a/~", "rel"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := expandHome([]string{"~/x"}, func() (string, error) { return "", errors.New("no HOME") }); err == nil || !strings.Contains(err.Error(), `"~/x"`) {
		t.Errorf("unknown home: %v", err)
	}
}

func TestParseArgsHomeAndListen(t *testing.T) {
	defer func(h func() (string, error)) { userHome = h }(userHome)
	userHome = func() (string, error) { return "/home/me", nil }
	none := func(string) string { return "" }
	o, err := parseArgs([]string{"~/a", "--allowed-dir", "~", "--listen", "127.0.0.1:0"}, none)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.roots, ",") != "/home/me/a,/home/me" {
		t.Errorf("roots %q", o.roots)
	}
	if o.transport != "http" {
		t.Errorf("--listen alone: transport %q, want http", o.transport)
	}
	if o, _ := parseArgs([]string{"/a", "--transport", "http", "--listen", ":0"}, none); o == nil || o.transport != "http" {
		t.Errorf("--transport http --listen: %+v", o)
	}
	if _, err := parseArgs([]string{"/a", "--transport", "stdio", "--listen", ":0"}, none); err == nil {
		t.Error("--transport stdio --listen accepted")
	}
	if o, _ := parseArgs([]string{"/a"}, none); o == nil || o.transport != "stdio" {
		t.Errorf("default transport: %+v", o)
	}
}
