// Package profiles names the profiles fsmcp can serve. A profile is one
// package, profiles/<name>/, holding a toolkit.Table (fsmcp's own is
// profiles/fsmcp); adding one is that package plus one line in registry
// below.
package profiles

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fsmcp/fsmcp/profiles/catalog"
	"github.com/fsmcp/fsmcp/profiles/filesystemmcp"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/profiles/localcowork"
	"github.com/fsmcp/fsmcp/profiles/peekaboo"
	"github.com/fsmcp/fsmcp/profiles/reference"
	"github.com/fsmcp/fsmcp/toolkit"
)

// Default is the profile served when none is named.
const Default = fsmcp.Name

// registry maps a --profile name to its table.
var registry = map[string]func() *toolkit.Table{
	fsmcp.Name:         fsmcp.Table,
	peekaboo.Name:      peekaboo.Table,
	filesystemmcp.Name: filesystemmcp.Table,
	reference.Name:     reference.Table,
	catalog.Name:       catalog.Table,
	localcowork.Name:   localcowork.Table,
}

// Names lists the known profiles, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the tables of a comma-separated list of profile names
// ("" is Default). Whether they can be served together is checked once,
// when the server registers them (toolkit.Register).
func Lookup(list string) ([]*toolkit.Table, error) {
	if strings.TrimSpace(list) == "" {
		list = Default
	}
	var tables []*toolkit.Table
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("profile list %q has an empty name", list)
		}
		table, ok := registry[name]
		if !ok {
			return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		tables = append(tables, table())
	}
	return tables, nil
}
