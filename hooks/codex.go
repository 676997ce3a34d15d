package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Codex (0.171) has no setting that runs its shell commands through a
// program of the user's; it runs each one as its shell's -c script
// (bash -c, after sourcing its shell snapshot), once its own checks (the
// approval policy, the rules of its .rules files, its refusal of rm -f
// style commands, its sandbox) have passed the command the model wrote.
// Its shell_environment_policy.set gives that shell BASH_ENV, which bash
// reads before the script: fsmcp's script there runs the same script
// again, journaled (fsmcp hook codex --bash, then fsmcp run). Nothing
// the model wrote is rewritten, so every check decides on it as without
// fsmcp. Its apply_patch is seen by a PreToolUse hook (the patch's files
// kept) and a PostToolUse hook (the step ended), in hooks.json; Codex
// runs a hook only when the user's config.toml trusts it (a hash of the
// hook, kept per place), which the install writes, and a project's
// .codex only in a project the user trusts, which it only says.
type codex struct{}

// codexEvents are the hook events fsmcp's apply_patch hook serves, and
// the names Codex's trust keys give them.
var codexEvents = []string{"PreToolUse", "PostToolUse"}

var codexEventKeys = map[string]string{"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}

const codexMatcher = "apply_patch"

// bashEnv is the variable bash reads its first script from.
const bashEnv = "BASH_ENV"

var envTable = []string{"shell_environment_policy", "set"}

func codexHome(p Plan) string {
	if d := p.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(p.Home, ".codex")
}

// codexDir is the folder of the settings an install writes: the
// project's .codex, or CODEX_HOME.
func codexDir(p Plan) string {
	if p.Project != "" {
		return filepath.Join(p.Project, ".codex")
	}
	return codexHome(p)
}

func (codex) settings(p Plan) string { return filepath.Join(codexDir(p), "hooks.json") }

func (codex) bashScript(p Plan) string { return scriptName(p, "codex-bash-env") }

func (c codex) files(p Plan) map[string]string {
	return map[string]string{c.bashScript(p): bashEnvScript(p, "codex", "")}
}

// bashEnvScript is the script a host's shell reads through BASH_ENV:
// the shell's -c script runs again under fsmcp hook HOST --bash, which
// journals it. Its own shells, and scripts a command runs, see neither
// BASH_ENV nor this. mark, where set, is what a -c script of the host's
// shell tool holds (other shells the host starts, its hooks', run as
// they are).
func bashEnvScript(p Plan, host, mark string) string {
	bin := quote(p.Binary)
	cond := `[ -z "${FSMCP_TRACED-}" ] && [ -n "${BASH_EXECUTION_STRING-}" ]`
	if mark != "" {
		cond += ` && case "$BASH_EXECUTION_STRING" in *` + quote(mark) + `*) true;; *) false;; esac`
	}
	return fmt.Sprintf(`# Written by fsmcp hooks install %[1]s: %[1]s runs each shell command with
# BASH_ENV set to this file, after its own checks, and bash reads it
# first: fsmcp runs the command journaled, so fsmcp undo can take it
# back. fsmcp hooks uninstall %[1]s removes it.
if `+cond+`; then
	unset BASH_ENV
	if [ -x %[2]s ]; then
		__fsmcp_login=
		shopt -q login_shell 2>/dev/null && __fsmcp_login=--login
		exec %[2]s %[3]s $__fsmcp_login --bash "$BASH_EXECUTION_STRING" -- "$BASH" "$0" "$@"
	fi
	printf 'fsmcp: not journaled: %%s is missing (fsmcp hooks uninstall %[1]s, or install again)\n' %[2]s >&2
fi
`, host, bin, strings.TrimPrefix(hookCommand(p), bin+" "))
}

// ours reports whether a hook command is fsmcp's for Codex.
func (codex) ours(cmd string) bool { return strings.Contains(cmd, " hook codex") }

func (c codex) install(p Plan, d *doc) error {
	if _, _, err := stripGroups(d, codexEvents, c.ours); err != nil {
		return err
	}
	addGroups(d, codexEvents, codexMatcher, hookCommand(p), nil)
	return nil
}

func (c codex) uninstall(p Plan, d *doc) bool {
	found, _, _ := stripGroups(d, codexEvents, c.ours)
	return found
}

func (c codex) installed(p Plan, d *doc) (bool, string) {
	if ourCommand(d, codexEvents[0], c.ours) == "" {
		return false, ""
	}
	return true, c.bashScript(p)
}

// trustKey is Codex's key of a hook's state: its file, event, group and
// place in the group.
func trustKey(hooksFile, ev string, group int) string {
	return hooksFile + ":" + codexEventKeys[ev] + ":" + strconv.Itoa(group) + ":0"
}

// trustHash is the hash Codex trusts a command hook by: of the hook as
// its config reads it (defaults filled in, unset fields left out), its
// keys sorted, compact.
func trustHash(ev, matcher, command string) string {
	id := map[string]any{
		"event_name": codexEventKeys[ev],
		"hooks":      []any{map[string]any{"type": "command", "command": command, "timeout": 600, "async": false}},
	}
	if matcher != "" {
		id["matcher"] = matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func stateTable(key string) []string { return []string{"hooks", "state", key} }

// editMore writes what Codex's config.toml files need beside hooks.json:
// the trust of fsmcp's hooks (the user's config.toml), and BASH_ENV
// (the config.toml of the same folder as hooks.json).
func (c codex) editMore(p Plan, before, after *doc, install bool) ([]writer, []string, error) {
	userPath := filepath.Join(codexHome(p), "config.toml")
	user, err := readTOML(userPath)
	if err != nil {
		return nil, nil, err
	}
	env := user
	if p.Project != "" {
		if env, err = readTOML(filepath.Join(codexDir(p), "config.toml")); err != nil {
			return nil, nil, err
		}
	}
	hooksFile := c.settings(p)
	script := c.bashScript(p)
	old, _ := env.get(envTable, bashEnv).(string)
	if install && old != "" && old != script && !c.oursScript(p, old) {
		return nil, nil, fmt.Errorf("%s: its shell_environment_policy.set.%s is set already (to %s), and a shell reads one BASH_ENV only: take it out, or run fsmcp run from your own; nothing was written", env.path, bashEnv, old)
	}
	// Codex trusts a hook by its place: fsmcp's trust goes with fsmcp's
	// groups, and the user's groups that moved up take their trust along.
	for _, ev := range codexEvents {
		if i := groupIndex(before, ev, c.ours); i >= 0 && (!install || i != groupIndex(after, ev, c.ours)) {
			if _, err := user.del(stateTable(trustKey(hooksFile, ev, i)), "trusted_hash"); err != nil {
				return nil, nil, err
			}
		}
	}
	_, moved, _ := stripGroups(copyDoc(before), codexEvents, c.ours)
	for _, ev := range codexEvents {
		hooks, _ := after.v["hooks"].(map[string]any)
		groups, _ := hooks[ev].([]any)
		for _, m := range moved[ev] {
			gm, _ := groups[m[1]].(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for h := range hs {
				from := strings.TrimSuffix(trustKey(hooksFile, ev, m[0]), ":0") + ":" + strconv.Itoa(h)
				to := strings.TrimSuffix(trustKey(hooksFile, ev, m[1]), ":0") + ":" + strconv.Itoa(h)
				if err := user.rename(stateTable(from), stateTable(to)); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	var notes []string
	if install {
		for _, ev := range codexEvents {
			i := groupIndex(after, ev, c.ours)
			if err := user.set(stateTable(trustKey(hooksFile, ev, i)), "trusted_hash", tomlString(trustHash(ev, codexMatcher, hookCommand(p)))); err != nil {
				return nil, nil, err
			}
		}
		if err := env.set(envTable, bashEnv, tomlString(script)); err != nil {
			return nil, nil, err
		}
		notes = c.check(p, user)
	} else if old != "" && c.oursScript(p, old) {
		if _, err := env.del(envTable, bashEnv); err != nil {
			return nil, nil, err
		}
	}
	if env == user {
		return []writer{user}, notes, nil
	}
	return []writer{user, env}, notes, nil
}

// codexShell is the shell Codex runs commands with: the user's own
// where Codex knows it (zsh, sh, PowerShell), else bash (zsh on macOS);
// PowerShell on Windows.
func codexShell(p Plan) string {
	if runtime.GOOS == "windows" {
		return "PowerShell"
	}
	switch sh := filepath.Base(p.Getenv("SHELL")); sh {
	case "zsh", "sh", "bash":
		return sh
	case "pwsh", "powershell":
		return "PowerShell"
	}
	if runtime.GOOS == "darwin" {
		return "zsh"
	}
	return "bash"
}

// oursScript reports whether a BASH_ENV is one of fsmcp's scripts.
func (codex) oursScript(p Plan, path string) bool {
	return strings.HasPrefix(filepath.Base(path), "codex-bash-env") && filepath.Dir(path) == filepath.Join(p.State, "hooks")
}

// check says what keeps Codex from running fsmcp's hooks as installed.
func (c codex) check(p Plan, user *tomlDoc) []string {
	var out []string
	if sh := codexShell(p); sh != "bash" {
		out = append(out, fmt.Sprintf("Codex runs your commands with %s, which reads no BASH_ENV: its shell commands are not journaled (its apply_patch is)", sh))
	}
	if p.Project != "" {
		if lvl, _ := user.get([]string{"projects", p.Project}, "trust_level").(string); lvl != "trusted" {
			out = append(out, fmt.Sprintf("Codex reads %s only in a trusted project, and %s is not trusted yet: trust it when Codex asks, or add [projects.%s] trust_level = \"trusted\" to %s; until then nothing Codex does there is journaled", codexDir(p), p.Project, tomlString(p.Project), user.path))
		}
	}
	return out
}

// status says whether Codex will run fsmcp's hooks as they are.
func (c codex) status(p Plan, d *doc) []string {
	user, err := readTOML(filepath.Join(codexHome(p), "config.toml"))
	if err != nil {
		return []string{err.Error()}
	}
	out := c.check(p, user)
	for _, ev := range codexEvents {
		i := groupIndex(d, ev, c.ours)
		cmd := ourCommand(d, ev, c.ours)
		got, _ := user.get(stateTable(trustKey(c.settings(p), ev, i)), "trusted_hash").(string)
		if got != trustHash(ev, codexMatcher, cmd) {
			out = append(out, fmt.Sprintf("Codex does not trust fsmcp's %s hook (it changed, or fsmcp moved): its apply_patch is not journaled; install again", ev))
		}
	}
	env := user
	if p.Project != "" {
		if env, err = readTOML(filepath.Join(codexDir(p), "config.toml")); err != nil {
			return append(out, err.Error())
		}
	}
	if got, _ := env.get(envTable, bashEnv).(string); got != c.bashScript(p) {
		out = append(out, fmt.Sprintf("%s sets no shell_environment_policy.set.%s of fsmcp's: Codex's shell commands are not journaled; install again", env.path, bashEnv))
	}
	return out
}

// copyDoc is a deep copy of d's values.
func copyDoc(d *doc) *doc {
	b, _ := json.Marshal(d.v)
	c := &doc{path: d.path, v: map[string]any{}}
	json.Unmarshal(b, &c.v)
	return c
}
