package hooks

import (
	"path/filepath"
	"strings"
)

// Gemini CLI (0.61) runs its shell commands itself, as bash -c, with no
// setting for the shell or its environment, and it runs its BeforeTool
// hooks before its checks: its policy rules, its heuristics, its refusal
// of $(...) and its confirmation all decide on the command a hook
// returns, never on the one the model wrote. No rewrite leaves every one
// of those decisions as it was (a deny rule by prefix, an allow rule of
// a whole command, the split into sub-commands each see something else),
// so fsmcp does not rewrite Gemini CLI's commands: its write_file and
// replace are journaled (a BeforeTool hook keeps the file, an AfterTool
// hook ends the step; both fire, even for a call it then refuses), and
// each run_shell_command shows one line saying it is not journaled.
type gemini struct{}

var geminiEvents = []string{"BeforeTool", "AfterTool"}

// geminiTools are the tools fsmcp's hook sees: the file tools, and the
// shell tool, to say whether its command is journaled.
const geminiTools = "write_file|replace|run_shell_command"

func (gemini) settings(p Plan) string {
	if p.Project != "" {
		return filepath.Join(p.Project, ".gemini", "settings.json")
	}
	return filepath.Join(p.Home, ".gemini", "settings.json")
}

func (gemini) files(Plan) map[string]string { return nil }

// ours reports whether a hook command is fsmcp's for Gemini CLI.
func (gemini) ours(cmd string) bool { return strings.Contains(cmd, " hook gemini") }

func (g gemini) install(p Plan, d *doc) error {
	if _, _, err := stripGroups(d, geminiEvents, g.ours); err != nil {
		return err
	}
	addGroups(d, geminiEvents, geminiTools, hookCommand(p), map[string]any{"name": "fsmcp"})
	return nil
}

func (g gemini) uninstall(p Plan, d *doc) bool {
	found, _, _ := stripGroups(d, geminiEvents, g.ours)
	return found
}

func (g gemini) installed(p Plan, d *doc) (bool, string) {
	if ourCommand(d, geminiEvents[0], g.ours) == "" {
		return false, ""
	}
	return true, p.Binary
}
