package hooks

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Claude Code (2.1.332) runs each command of its Bash tool as
// CLAUDE_CODE_SHELL_PREFIX '<its whole script>' after its permission
// checks on the command the model wrote, so deny and ask rules, and its
// own refusals, decide on that command as without the hook: the prefix
// (a script of fsmcp's, since Claude Code takes it as one program's
// path) runs the script journaled. Its Edit, Write, MultiEdit and
// NotebookEdit are seen by a hook before the call (the file kept) and
// one after it, whether it succeeded or failed (the step ended). Hooks
// and MCP servers run through the prefix too: they go on as they are.
type claudeCode struct{}

// prefixVar is the setting Claude Code runs its shell commands through.
const prefixVar = "CLAUDE_CODE_SHELL_PREFIX"

// editTools are Claude Code's tools that write files themselves.
const editTools = "Edit|Write|MultiEdit|NotebookEdit"

// claudeEvents are the hook events fsmcp's edit hook serves.
var claudeEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"}

func (claudeCode) settings(p Plan) string {
	if p.Project != "" {
		return filepath.Join(p.Project, ".claude", "settings.local.json")
	}
	if d := p.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	return filepath.Join(p.Home, ".claude", "settings.json")
}

// shellScript is the prefix's path.
func (claudeCode) shellScript(p Plan) string { return scriptName(p, "claude-code-shell") }

func (c claudeCode) files(p Plan) map[string]string {
	bin := quote(p.Binary)
	dir := ""
	if p.Project != "" {
		dir = " --dir " + quote(p.Project)
	}
	return map[string]string{c.shellScript(p): fmt.Sprintf(`#!/bin/sh
# Written by fsmcp hooks install claude-code: Claude Code runs each
# command of its Bash tool through this script (%s),
# after its own permission checks; fsmcp journals it, so fsmcp undo can
# take it back. fsmcp hooks uninstall claude-code removes it.
if [ -x %s ]; then
	exec %s hook claude-code%s --shell "$@"
fi
printf 'fsmcp: not journaled: %%s is missing (fsmcp hooks uninstall claude-code, or install again)\n' %s >&2
exec "${SHELL:-/bin/sh}" -c "$1"
`, prefixVar, bin, bin, dir, bin)}
}

// ours reports whether a hook command is fsmcp's for Claude Code.
func (claudeCode) ours(cmd string) bool { return strings.Contains(cmd, " hook claude-code") }

func (c claudeCode) install(p Plan, d *doc) error {
	env, ok := object(d.v, "env")
	if !ok {
		return fmt.Errorf("its \"env\" is not an object")
	}
	script := c.shellScript(p)
	if old, _ := env[prefixVar].(string); old != "" && old != script && !c.oursScript(p, old) {
		return fmt.Errorf("%s is set already (to %s), and Claude Code runs commands through one prefix only: remove it, or run fsmcp run from your own prefix", prefixVar, old)
	}
	env[prefixVar] = script
	if _, _, err := stripGroups(d, claudeEvents, c.ours); err != nil {
		return err
	}
	addGroups(d, claudeEvents, editTools, hookCommand(p), nil)
	return nil
}

// oursScript reports whether a prefix is one of fsmcp's scripts.
func (claudeCode) oursScript(p Plan, prefix string) bool {
	return strings.HasPrefix(filepath.Base(prefix), "claude-code-shell") && filepath.Dir(prefix) == filepath.Join(p.State, "hooks")
}

func (c claudeCode) uninstall(p Plan, d *doc) bool {
	found, _, _ := stripGroups(d, claudeEvents, c.ours)
	if env, ok := d.v["env"].(map[string]any); ok {
		if old, _ := env[prefixVar].(string); old != "" && c.oursScript(p, old) {
			delete(env, prefixVar)
			found = true
			if len(env) == 0 {
				delete(d.v, "env")
			}
		}
	}
	return found
}

func (c claudeCode) installed(p Plan, d *doc) (bool, string) {
	env, _ := d.v["env"].(map[string]any)
	prefix, _ := env[prefixVar].(string)
	if prefix == "" || !c.oursScript(p, prefix) {
		return false, ""
	}
	return true, prefix
}
