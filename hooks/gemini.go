package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI (0.61) runs its shell commands itself, as bash -c, with no
// setting for the shell, and it runs its BeforeTool hooks before its
// checks: its policy rules, its heuristics, its refusal of $(...) and its
// confirmation all decide on the command a hook returns, never on the
// one the model wrote. No rewrite leaves every one of those decisions as
// it was (a deny rule by prefix, an allow rule of a whole command, the
// split into sub-commands each see something else), so fsmcp rewrites
// none. What its shell gets is Gemini CLI's own environment, which it
// takes from ~/.gemini/.env (where no .env of the project's comes
// first): a user install puts BASH_ENV there, set to fsmcp's script,
// which bash reads before the command and which runs it again journaled.
// A BeforeTool hook sees the environment the command will (both are
// sanitized alike): where BASH_ENV is not fsmcp's (a project's own .env,
// an untrusted folder, CI), it says the command is not journaled; where
// it is, it leaves the session's id for the command's journal. Its
// write_file and replace are journaled by a BeforeTool hook (the file
// kept) and an AfterTool hook (the step ended; both fire, even for a
// call it then refuses).
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

// bashMark is what the -c script of Gemini CLI's shell tool holds: the
// file it collects background process ids in.
const bashMark = "_bgpids_file="

func (gemini) bashScript(p Plan) string { return filepath.Join(p.State, "hooks", "gemini-bash-env") }

func (g gemini) files(p Plan) map[string]string {
	if p.Project != "" {
		return nil
	}
	return map[string]string{g.bashScript(p): bashEnvScript(p, "gemini", bashMark)}
}

func (gemini) dotenvPath(p Plan) string { return filepath.Join(p.Home, ".gemini", ".env") }

// editMore sets BASH_ENV in ~/.gemini/.env (a user install only: a
// project's .gemini/.env would hide every .env above it, the user's
// ~/.gemini/.env with the API key in it too).
func (g gemini) editMore(p Plan, _, _ *doc, install bool) ([]writer, []string, error) {
	if p.Project != "" {
		if install {
			return nil, []string{"Gemini CLI's shell commands are journaled only through a user install (fsmcp hooks install gemini --user), which sets BASH_ENV in ~/.gemini/.env; this one journals its write_file and replace"}, nil
		}
		return nil, nil, nil
	}
	path := g.dotenvPath(p)
	e, err := readDotenv(path)
	if err != nil {
		return nil, nil, err
	}
	_, old := e.find(bashEnv)
	ours := old == g.bashScript(p)
	if !install {
		if ours && e.del(bashEnv) {
			return []writer{e}, nil, nil
		}
		return nil, nil, nil
	}
	if old != "" && !ours {
		return nil, nil, fmt.Errorf("%s sets %s already (to %s), and a shell reads one BASH_ENV only: take it out, or run fsmcp run from your own; nothing was written", path, bashEnv, old)
	}
	if !e.exists {
		if _, err := os.Stat(filepath.Join(p.Home, ".env")); err == nil {
			return nil, []string{fmt.Sprintf("Gemini CLI reads %s only where it finds no other .env, and making it would hide your %s: its shell commands are not journaled (add %s='%s' to %s to journal them)", path, filepath.Join(p.Home, ".env"), bashEnv, g.bashScript(p), filepath.Join(p.Home, ".env"))}, nil
		}
	}
	e.set(bashEnv, g.bashScript(p))
	return []writer{e}, []string{"Gemini CLI's shell commands are journaled where it reads " + path + " (in a trusted folder, with no .env of the project's before it); where it does not, each says so"}, nil
}

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
