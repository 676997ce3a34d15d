package fsmcp

import "strings"

// instructions is the initialize answer's instructions (SPEC §2: the agent
// is told its roots): where the file tools reach, that fs_bash reaches
// further, and that paths are absolute. Without a DIR the roots are not
// known yet when initialize is answered (the client's roots come after),
// so it says where they come from and where they are named, true before
// and after they arrive. Short: Claude Code keeps 2 KB of it.
func instructions(roots []string) string {
	const bash = " fs_bash, where offered, can also read system directories (toolchains, /usr); the file tools cannot. Pass absolute paths."
	if len(roots) == 0 {
		return "fsmcp serves a developer's files. Its file tools reach only the allowed directories, which your client gives " +
			"(its MCP roots, or _meta.allowed_dirs on a call); a refusal of a path outside them or of a relative path names them." + bash
	}
	return "fsmcp serves a developer's files. Its file tools reach only the allowed directories: " + strings.Join(roots, ", ") + "." + bash
}
