package tools

import "strings"

// instructions is the initialize answer's instructions (SPEC §2: the agent
// is told its roots): what fsmcp is, the allowed directories, and that
// paths are absolute. With no DIR it says how the roots are given.
func instructions(roots []string) string {
	const what = "fsmcp serves a developer's files: its tools read, search and change files only inside the allowed directories"
	const abs = "Every path you pass must be absolute."
	if len(roots) == 0 {
		return what + ", and none is set yet: they are the client's MCP roots, or the directories a tool call names in _meta.allowed_dirs. " + abs
	}
	return what + ": " + strings.Join(roots, ", ") + ". " + abs
}
