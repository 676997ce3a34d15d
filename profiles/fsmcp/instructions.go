package fsmcp

import (
	"path/filepath"
	"strings"
)

// instructions is the initialize answer's instructions (SPEC §2: the agent
// is told its roots): where the file tools reach, that fs_bash reaches
// further where it is served (shell), and that paths are absolute (with a
// drive letter on Windows). Without a DIR the roots are not known yet
// when initialize is answered (the client's roots come after), so it
// says where they come from and where they are named, true before and
// after they arrive. Short: Claude Code keeps 2 KB of it.
func instructions(roots []string, shell bool) string {
	end := " Pass absolute paths."
	if filepath.Separator == '\\' {
		end = ` Pass absolute paths, with their drive letter (C:\...).`
	}
	if shell {
		end = " fs_bash, where offered, can also read system directories (toolchains, /usr); the file tools cannot." + end
	}
	if len(roots) == 0 {
		return "fsmcp serves a developer's files. Its file tools reach only the allowed directories, which your client gives " +
			"(its MCP roots, or _meta.allowed_dirs on a call); a refusal of a path outside them or of a relative path names them." + end
	}
	return "fsmcp serves a developer's files. Its file tools reach only the allowed directories: " + strings.Join(roots, ", ") + "." + end
}
