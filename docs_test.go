package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/toolkit"
)

// The manual's generated parts: made from the code, checked against it.
// UPDATE_DOCS=true go test -run Documented . (make docs) rewrites them.

const (
	flagsDoc = "docs/flags.md"
	toolsDoc = "docs/reference.md"
	readme   = "README.md"
)

// TestFlagsDocumented fails when docs/flags.md does not hold the table
// made from flagRows, when a row's default is not a value its parser
// takes, or when the parser's default is not the row's (what parseArgs
// settles with the flag absent differs from what it settles with the
// default given on the command line, and in the environment).
func TestFlagsDocumented(t *testing.T) {
	fs, _ := newFlagSet()
	known := map[string]bool{"help": true}
	fs.VisitAll(func(f *flag.Flag) { known[f.Name] = true })
	if len(known) != len(flagRows) {
		t.Errorf("the flag set has %d flags, flagRows %d", len(known), len(flagRows))
	}
	none := func(string) string { return "" }
	base, err := parseArgs(nil, none)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range flagRows {
		if !known[r.name] {
			t.Errorf("--%s is not in the flag set", r.name)
		}
		if r.def == "" {
			if r.parse != nil && r.defDoc == "" && !r.boolean {
				t.Errorf("--%s has neither a default nor words for one", r.name)
			}
			continue
		}
		if r.defDoc != "" {
			t.Errorf("--%s has a default (%s) and words for one", r.name, r.def)
		}
		// --listen given means --transport http (listenMeansHTTP).
		with := map[string][]string{"listen": {"--transport", "http"}}[r.name]
		without, err := parseArgs(with, none)
		if err != nil {
			t.Fatal(err)
		}
		o, err := parseArgs(append(with, "--"+r.name, r.def), none)
		if err != nil {
			t.Errorf("--%s's default %q is refused: %v", r.name, r.def, err)
			continue
		}
		if got, want := settled(o), settled(without); got != want {
			t.Errorf("--%s %s settles\n%s\nbut without it\n%s", r.name, r.def, got, want)
		}
		if !r.env {
			continue
		}
		o, err = parseArgs(nil, func(k string) string { return map[string]string{r.envName(): r.def}[k] })
		if err != nil {
			t.Errorf("%s=%s is refused: %v", r.envName(), r.def, err)
			continue
		}
		if got, want := settled(o), settled(base); got != want {
			t.Errorf("%s=%s settles\n%s\nbut without it\n%s", r.envName(), r.def, got, want)
		}
	}
	checkGenerated(t, flagsDoc, "flags", flagTable())
}

// settled is what parseArgs settled, but whether the journal was asked
// for on purpose (journal.Strict) and what cannot be printed.
func settled(o *options) string {
	s := o.server
	var profs []string
	for _, p := range s.Profiles {
		profs = append(profs, p.Name)
	}
	s.Profiles, s.Getenv = nil, nil
	j := o.journal
	j.Strict = false
	return fmt.Sprintf("server %+v profiles %v http %+v roots %q %v transport %s search %s index %s %d %v searches %d %v log %v audit %q version %v journal %+v %v %q tools %v",
		s, profs, o.http, o.roots, o.rootsGiven, o.transport, o.searchBackend, o.index, o.indexWatches, o.indexCensus,
		o.maxSearches, o.searchWait, o.logLevel, o.auditLog, o.version, j, o.journalOff, o.journalUnset, o.journalTools)
}

// TestHelpDocumented fails when --help's text is not testdata/help.txt
// (make docs rewrites it): a change to --help is seen in review.
func TestHelpDocumented(t *testing.T) {
	const file = "testdata/help.txt"
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if string(b) == usage() {
		return
	}
	if os.Getenv("UPDATE_DOCS") == "true" {
		if err := os.WriteFile(file, []byte(usage()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("--help is not %s; run make docs and review the diff", file)
}

// TestToolsDocumented fails when docs/reference.md does not hold the
// reference made from the profiles' tables: a tool added, renamed or
// described anew without its docs.
func TestToolsDocumented(t *testing.T) {
	checkGenerated(t, toolsDoc, "tools", toolsReference(t))
}

// TestReadmeToolsDocumented fails when README.md's tool table is not
// the one made from fsmcp.Overview and the profile's tools, or when a
// tool is in no row, in two, or a row names a tool the profile lacks.
func TestReadmeToolsDocumented(t *testing.T) {
	served := map[string]int{}
	for _, tool := range fsmcp.All() {
		served[tool.Def.Name] = 0
	}
	var b strings.Builder
	b.WriteString("| tool | what it does |\n|---|---|\n")
	for _, row := range fsmcp.Overview {
		names := make([]string, len(row.Tools))
		for i, n := range row.Tools {
			if _, ok := served[n]; !ok {
				t.Errorf("fsmcp.Overview names %s, which the fsmcp profile does not serve", n)
			}
			served[n]++
			names[i] = "`" + n + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(names, ", "), row.Does)
	}
	for n, rows := range served {
		if rows != 1 {
			t.Errorf("%s is in %d rows of fsmcp.Overview, not one", n, rows)
		}
	}
	checkGenerated(t, readme, "tool table", b.String())
}

// checkGenerated compares the block between name's markers in file with
// want (or writes it, under UPDATE_DOCS=true).
func checkGenerated(t *testing.T, file, name, want string) {
	t.Helper()
	begin := fmt.Sprintf("<!-- %s: generated from the code by `make docs`; edit there, not here -->\n", name)
	end := fmt.Sprintf("<!-- end %s -->", name)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", file, strings.TrimSpace(begin), end)
	}
	got := doc[i+len(begin) : j]
	if got == want {
		return
	}
	if os.Getenv("UPDATE_DOCS") == "true" {
		if err := os.WriteFile(file, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's %s block is not what the code says; run make docs and review the diff", file, name)
}

// toolsReference is every profile's tools: name, whether a deferring
// host loads it up front, its hints, its description and its parameters.
func toolsReference(t *testing.T) string {
	var b strings.Builder
	names := profiles.Names()
	sort.SliceStable(names, func(i, j int) bool { return names[i] == profiles.Default })
	for _, name := range names {
		tables, err := profiles.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == profiles.Default {
			tables = append(tables, fsmcp.JournalTable())
		}
		fmt.Fprintf(&b, "## %s\n\n", name)
		for _, tab := range tables {
			if tab.Name == "journal-tools" {
				if name == profiles.Default {
					continue // fs_history and fs_undo are fsmcp's own already
				}
			}
			for _, tool := range tab.Tools {
				writeTool(t, &b, tab, tool)
			}
		}
	}
	return b.String()
}

func writeTool(t *testing.T, b *strings.Builder, tab *toolkit.Table, tool toolkit.Tool) {
	d := tool.Def
	var notes []string
	for _, u := range tab.Upfront {
		if u == d.Name {
			notes = append(notes, "loaded up front")
		}
	}
	if a := d.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint:
			notes = append(notes, "read-only")
		case a.DestructiveHint != nil && *a.DestructiveHint:
			notes = append(notes, "destructive")
		default:
			notes = append(notes, "writes")
		}
	}
	fmt.Fprintf(b, "### `%s`", d.Name)
	if len(notes) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(notes, ", "))
	}
	fmt.Fprintf(b, "\n\n%s\n\n", strings.TrimSpace(d.Description))
	raw, err := json.Marshal(d.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(raw, &schema)
	if len(schema.Properties) == 0 {
		b.WriteString("No parameters.\n\n")
		return
	}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	var params []string
	for p := range schema.Properties {
		params = append(params, p)
	}
	sort.Slice(params, func(i, j int) bool {
		if required[params[i]] != required[params[j]] {
			return required[params[i]]
		}
		return params[i] < params[j]
	})
	b.WriteString("| parameter | type | meaning |\n|---|---|---|\n")
	for _, p := range params {
		prop := schema.Properties[p]
		typ := fmt.Sprint(prop.Type)
		if prop.Type == nil {
			typ = "any"
		}
		name := "`" + p + "`"
		if !required[p] {
			name += " (optional)"
		}
		desc := strings.ReplaceAll(strings.TrimSpace(prop.Description), "|", `\|`)
		desc = strings.ReplaceAll(desc, "\n", " ")
		fmt.Fprintf(b, "| %s | %s | %s |\n", name, typ, desc)
	}
	b.WriteString("\n")
}

// TestToolsTableNamesEveryParameter fails when docs/tools.md's table of
// fsmcp's tools leaves out a parameter a tool's schema has (written
// `name`, `name?` or `name: ...` in the tool's row), or names a tool the
// profile does not serve.
func TestToolsTableNamesEveryParameter(t *testing.T) {
	b, err := os.ReadFile("docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `fs_") {
			continue
		}
		cells := strings.SplitN(line, " | ", 3)
		if len(cells) == 3 {
			rows[strings.Trim(cells[0], "| `")] = cells[1]
		}
	}
	tables, err := profiles.Lookup(profiles.Default)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, tab := range append(tables, fsmcp.JournalTable()) {
		for _, tool := range tab.Tools {
			name := tool.Def.Name
			served[name] = true
			row, ok := rows[name]
			if !ok {
				t.Errorf("docs/tools.md has no row for %s", name)
				continue
			}
			raw, err := json.Marshal(tool.Def.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var schema struct {
				Properties map[string]any `json:"properties"`
			}
			json.Unmarshal(raw, &schema)
			for p := range schema.Properties {
				if !strings.Contains(row, "`"+p+"`") && !strings.Contains(row, "`"+p+"?`") && !strings.Contains(row, "`"+p+":") {
					t.Errorf("docs/tools.md's row for %s does not name its parameter %s", name, p)
				}
			}
		}
	}
	for name := range rows {
		if !served[name] {
			t.Errorf("docs/tools.md has a row for %s, which the profile does not serve", name)
		}
	}
}
