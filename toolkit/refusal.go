package toolkit

import (
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// namedRoots is an outside refusal that ends with the allowed directories
// of the call it refused (Table.NameRoots), so the agent learns where it
// may go. It wraps the refusal: its kind and path stay readable.
type namedRoots struct {
	err   error
	roots []string
}

func (e *namedRoots) Error() string {
	return e.err.Error() + ": " + strings.Join(e.roots, ", ")
}

func (e *namedRoots) Unwrap() error { return e.err }

// nameRoots makes an outside refusal name roots (the call's, after
// client roots and _meta.allowed_dirs); other errors, and a refusal for
// having no root at all, are returned as they are.
func nameRoots(err error, roots []string) error {
	if err == nil || len(roots) == 0 || fault.KindOf(err) != fault.Outside {
		return err
	}
	return &namedRoots{err: err, roots: roots}
}

// refusal is err as the table words it for a call on sb: with NameRoots,
// an outside refusal names sb's roots.
func (tab *Table) refusal(err error, sb *sandbox.Sandbox) error {
	if err == nil || !tab.NameRoots {
		return err
	}
	return nameRoots(err, sb.Roots())
}

// Instructions is the first served table's instructions for roots ("":
// none has any), told whether a tool that runs commands is served under
// env.
func Instructions(tables []*Table, roots []string, env *Env) string {
	shell := false
	for _, t := range tables {
		for _, tool := range t.Tools {
			shell = shell || tool.NeedsShell && env.Serves(tool)
		}
	}
	for _, t := range tables {
		if t.Instructions != nil {
			return t.Instructions(roots, shell)
		}
	}
	return ""
}
