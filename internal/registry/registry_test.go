package registry

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// schema is the registry's published server.json schema (testdata/README.md).
func schema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("testdata/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func serverJSON(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// entry is the part of server.json the checks below read.
type entry struct {
	Schema     string `json:"$schema"`
	Name       string
	Version    string
	Repository struct{ URL, Source string }
	Packages   []struct {
		RegistryType, RegistryBaseURL, Identifier, Version, RuntimeHint string
		Transport                                                       struct {
			Type, URL string
			Headers   []struct{ Name, Value string }
		}
		RuntimeArguments, PackageArguments []struct {
			Type, Name, ValueHint, Value, Default string
		}
		EnvironmentVariables []struct {
			Name     string
			IsSecret bool
		}
	}
}

func decode(t *testing.T, data []byte) (any, entry) {
	t.Helper()
	var v any
	var e entry
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("server.json: %v", err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("server.json: %v", err)
	}
	return v, e
}

// TestServerJSONIsValid: the repository's server.json, and what Stamp makes
// of it for a release, validate against the registry's published schema
// and pass the rules the registry applies when an entry is published that
// can be checked offline (internal/validators: versions, arguments,
// transports, each package's registry; the ownership marks the registry
// looks for in the npm package and the image).
func TestServerJSONIsValid(t *testing.T) {
	rs := schema(t)
	data := serverJSON(t)
	for _, version := range []string{"", "1.2.3", "v2.0.0-rc.1"} {
		name := "the repository's"
		doc := data
		if version != "" {
			name = "stamped " + version
			var err error
			if doc, err = Stamp(data, version); err != nil {
				t.Fatalf("Stamp(%s): %v", version, err)
			}
		}
		t.Run(name, func(t *testing.T) {
			v, e := decode(t, doc)
			if err := rs.Validate(v); err != nil {
				t.Fatalf("server.json is not valid against the registry's schema: %v", err)
			}
			for _, err := range publishRules(e, rs.Schema().ID) {
				t.Error(err)
			}
			want := strings.TrimPrefix(version, "v")
			if want == "" {
				want = Placeholder
			}
			if e.Version != want {
				t.Errorf("version %q, want %q", e.Version, want)
			}
			for _, p := range e.Packages {
				got := p.Version
				if p.RegistryType == "oci" {
					got = p.Identifier[strings.LastIndexByte(p.Identifier, ':')+1:]
				}
				if got != want {
					t.Errorf("%s package %s: version %q, want %s", p.RegistryType, p.Identifier, got, want)
				}
			}
		})
	}
}

// publishRules are the registry's checks at publish time (its
// internal/validators) that need no network, and its ownership marks.
func publishRules(e entry, schemaID string) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if e.Schema != schemaID {
		fail("$schema %q, want the registry's current %q", e.Schema, schemaID)
	}
	specific := func(where, v string) {
		if v == "latest" || strings.ContainsAny(v, "^~<>=*| ") || strings.Contains(v, ".x") {
			fail("%s: version %q is not one specific version", where, v)
		}
	}
	specific("server", e.Version)
	// io.github.<owner>/<name> is the namespace a GitHub login may publish:
	// the repository's owner.
	u, err := url.Parse(e.Repository.URL)
	if err != nil || u.Host != "github.com" || e.Repository.Source != "github" {
		fail("repository %+v: want a github.com URL and source github", e.Repository)
	} else if owner := strings.Split(strings.Trim(u.Path, "/"), "/")[0]; !strings.HasPrefix(e.Name, "io.github."+owner+"/") {
		fail("name %q is not in the namespace io.github.%s/ of the repository's owner", e.Name, owner)
	}
	for _, p := range e.Packages {
		where := p.RegistryType + " " + p.Identifier
		if strings.ContainsAny(p.Identifier, " \t") {
			fail("%s: identifier has spaces", where)
		}
		var vars []string
		for _, env := range p.EnvironmentVariables {
			vars = append(vars, env.Name)
		}
		for _, a := range append(append([]struct{ Type, Name, ValueHint, Value, Default string }{}, p.RuntimeArguments...), p.PackageArguments...) {
			switch a.Type {
			case "named":
				if a.Name == "" || strings.ContainsAny(a.Name, "<> $") {
					fail("%s: named argument %q", where, a.Name)
				}
				if a.Value != "" && strings.HasPrefix(a.Value, a.Name) || a.Default != "" && strings.HasPrefix(a.Default, a.Name) {
					fail("%s: argument %s: its value starts with its name", where, a.Name)
				}
			case "positional":
				if a.Value == "" && a.ValueHint == "" {
					fail("%s: a positional argument needs a value or a valueHint", where)
				}
			default:
				fail("%s: argument type %q", where, a.Type)
			}
			vars = append(vars, a.Name, a.ValueHint)
		}
		switch p.Transport.Type {
		case "stdio":
			if p.Transport.URL != "" {
				fail("%s: a stdio transport has no url", where)
			}
		case "streamable-http", "sse":
			for _, m := range regexp.MustCompile(`\{([^}]*)\}`).FindAllStringSubmatch(p.Transport.URL, -1) {
				if !contains(vars, m[1]) {
					fail("%s: transport url %s names {%s}, which no argument or variable defines", where, p.Transport.URL, m[1])
				}
			}
			for _, h := range p.Transport.Headers {
				for _, m := range regexp.MustCompile(`\{([^}]*)\}`).FindAllStringSubmatch(h.Value, -1) {
					if !contains(vars, m[1]) {
						fail("%s: header %s names {%s}, which no argument or variable defines", where, h.Name, m[1])
					}
				}
			}
		default:
			fail("%s: transport %q", where, p.Transport.Type)
		}
		switch p.RegistryType {
		case "npm":
			specific(where, p.Version)
			if p.RegistryBaseURL != "" && p.RegistryBaseURL != "https://registry.npmjs.org" {
				fail("%s: registryBaseUrl %s: the registry takes npm's public registry only", where, p.RegistryBaseURL)
			}
			name, version := npmTemplate(p.Identifier)
			if name != e.Name {
				fail("%s: npm/%s/package.json's mcpName %q, want %q (the registry's proof of ownership)", where, p.Identifier, name, e.Name)
			}
			if version != Placeholder {
				fail("%s: npm/%s/package.json's version %q, want the placeholder %s that npm/pack.sh stamps, as Stamp does server.json's", where, p.Identifier, version, Placeholder)
			}
		case "oci":
			if p.Version != "" || p.RegistryBaseURL != "" {
				fail("%s: an OCI package names its version in the identifier's tag, and no registryBaseUrl", where)
			}
			host := strings.Split(p.Identifier, "/")[0]
			if !contains([]string{"docker.io", "ghcr.io", "quay.io", "mcr.microsoft.com"}, host) {
				fail("%s: %s is not a registry the MCP Registry takes", where, host)
			}
			specific(where, p.Identifier[strings.LastIndexByte(p.Identifier, ':')+1:])
			if got := imageLabel(); got != e.Name {
				fail("%s: the Dockerfile's LABEL io.modelcontextprotocol.server.name is %q, want %q (the registry's proof of ownership)", where, got, e.Name)
			}
		default:
			fail("%s: registryType %q", where, p.RegistryType)
		}
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s && s != "" {
			return true
		}
	}
	return false
}

// npmTemplate is npm/<pkg>/package.json's mcpName, which npm/pack.sh
// carries into the published package, and its version.
func npmTemplate(pkg string) (mcpName, version string) {
	data, err := os.ReadFile("../../npm/" + pkg + "/package.json")
	if err != nil {
		return "", ""
	}
	var p struct{ MCPName, Version string }
	json.Unmarshal(data, &p)
	return p.MCPName, p.Version
}

// imageLabel is the Dockerfile's io.modelcontextprotocol.server.name label.
func imageLabel() string {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`io\.modelcontextprotocol\.server\.name="([^"]*)"`).FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// TestSchemaRefusesWhatTheRegistryRefuses: the validator really checks
// (an entry a step from server.json, broken one way each, is refused),
// so its passing server.json means something.
func TestSchemaRefusesWhatTheRegistryRefuses(t *testing.T) {
	rs := schema(t)
	for name, edit := range map[string]func(m map[string]any){
		"a name without a namespace": func(m map[string]any) { m["name"] = "fsmcp" },
		"a description over 100":     func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"no version":                 func(m map[string]any) { delete(m, "version") },
		"version latest":             func(m map[string]any) { pkg(m, 0)["version"] = "latest" },
		"a package without transport": func(m map[string]any) {
			delete(pkg(m, 1), "transport")
		},
		"an http transport without url": func(m map[string]any) {
			delete(pkg(m, 1)["transport"].(map[string]any), "url")
		},
		"an argument of no type": func(m map[string]any) {
			pkg(m, 0)["packageArguments"].([]any)[1].(map[string]any)["type"] = "flag"
		},
		"a positional argument with neither value nor hint": func(m map[string]any) {
			delete(pkg(m, 0)["packageArguments"].([]any)[1].(map[string]any), "valueHint")
		},
	} {
		var m map[string]any
		if err := json.Unmarshal(serverJSON(t), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if err := rs.Validate(m); err == nil {
			t.Errorf("%s: valid, want refused", name)
		}
	}
}

func pkg(m map[string]any, i int) map[string]any { return m["packages"].([]any)[i].(map[string]any) }

// TestStampKeepsTheRest: Stamp changes the versions only, keeps the keys'
// order, drops a leading v, and refuses what is not one version.
func TestStampKeepsTheRest(t *testing.T) {
	data := serverJSON(t)
	out, err := Stamp(data, "v1.4.0")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(data), `"version": "0.0.0"`, `"version": "1.4.0"`)
	want = strings.ReplaceAll(want, `fsmcp:0.0.0"`, `fsmcp:1.4.0"`)
	if norm(t, out) != norm(t, []byte(want)) {
		t.Errorf("stamped:\n%s\nwant:\n%s", out, want)
	}
	if again, _ := Stamp(out, "1.4.0"); string(again) != string(out) {
		t.Errorf("stamping twice changed it:\n%s", again)
	}
	// The repository's file is written as Stamp writes one.
	if same, _ := Stamp(data, Placeholder); string(same) != string(data) {
		t.Errorf("server.json is not laid out as Stamp writes it (go run ./packaging/serverjson %s server.json server.json):\n%s", Placeholder, same)
	}
	for _, bad := range []string{"", "latest", "^1.2.3", "1.x", "58cd7b1", "1.2.3-dirty junk"} {
		if _, err := Stamp(data, bad); err == nil {
			t.Errorf("Stamp(%q): no error", bad)
		}
	}
}

// norm is data re-indented as Stamp writes it (keys in their order).
func norm(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(raw, "", "  ")
	b.Write(out)
	return b.String()
}
