package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func testPlan(t *testing.T, host string, project bool) Plan {
	t.Helper()
	home := t.TempDir()
	p := Plan{Host: host, Home: home, Binary: "/opt/fsmcp/bin/fsmcp", State: filepath.Join(home, ".local", "state", "fsmcp"),
		Getenv: func(k string) string {
			if k == "SHELL" {
				return "/bin/bash"
			}
			return ""
		}}
	if project {
		p.Project = filepath.Join(home, "proj")
	}
	return p
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func put(t *testing.T, path, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	return v
}

// Codex trusts a hook by a hash of it, computed as Codex 0.171.0 computed
// it for these (hooks/list of its app server).
func TestCodexTrustHashIsCodexs(t *testing.T) {
	for cmd, want := range map[[2]string]string{
		{"PreToolUse", "/tmp/hosts/c1/hooklog.sh pre"}:   "sha256:f57abe6ac8dcdef3eb178ba7c8bda635adf56683a25308ce7a34405c9ddf9676",
		{"PostToolUse", "/tmp/hosts/c1/hooklog.sh post"}: "sha256:d7e0d1d6e0fc00254a214314a9ed7362680f019e3b79316548d214acdf3663c4",
	} {
		if got := trustHash(cmd[0], "", cmd[1]); got != want {
			t.Errorf("%v: %s, want %s", cmd, got, want)
		}
	}
}

const userConfig = `# my settings
model = "gpt-5.5"

[features]
web_search = true # mine

[hooks.state."elsewhere:pre_tool_use:0:0"]
trusted_hash = "sha256:theirs"
`

const userHooks = `{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-check"}]}]
  },
  "other": 1
}`

// Installing into Codex's settings twice is installing once; the user's
// config.toml keeps its comments and layout, their hooks keep their
// places and trust; uninstalling gives the files back.
func TestCodexInstallMergesAndUninstalls(t *testing.T) {
	p := testPlan(t, "codex", false)
	cfg := filepath.Join(p.Home, ".codex", "config.toml")
	hj := filepath.Join(p.Home, ".codex", "hooks.json")
	put(t, cfg, userConfig)
	put(t, hj, userHooks)
	if _, _, err := Install(p); err != nil {
		t.Fatal(err)
	}
	once, onceHooks := read(t, cfg), read(t, hj)
	if _, _, err := Install(p); err != nil {
		t.Fatal(err)
	}
	if read(t, cfg) != once || read(t, hj) != onceHooks {
		t.Errorf("installing twice changed the settings:\n%s\n%s", read(t, cfg), read(t, hj))
	}
	if !strings.HasPrefix(once, userConfig) {
		t.Errorf("config.toml lost what the user wrote:\n%s", once)
	}
	cmd := "/opt/fsmcp/bin/fsmcp hook codex --state-home " + filepath.Join(p.Home, ".local", "state")
	for _, want := range []string{
		`[hooks.state."` + hj + `:pre_tool_use:1:0"]` + "\ntrusted_hash = \"" + trustHash("PreToolUse", "apply_patch", cmd) + "\"",
		`[hooks.state."` + hj + `:post_tool_use:0:0"]`,
		"[shell_environment_policy.set]\nBASH_ENV = \"" + filepath.Join(p.State, "hooks", "codex-bash-env") + "\"",
	} {
		if !strings.Contains(once, want) {
			t.Errorf("config.toml lacks\n%s\nin\n%s", want, once)
		}
	}
	v := jsonOf(t, onceHooks).(map[string]any)
	pre := v["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(pre) != 2 || pre[0].(map[string]any)["matcher"] != "Bash" || v["other"] != 1.0 {
		t.Errorf("hooks.json: the user's hook is not first, or a setting went:\n%s", onceHooks)
	}
	if s, _ := Status(p); !strings.Contains(s, "installed in") || strings.Contains(s, "but") && runtime.GOOS != "windows" {
		t.Errorf("status: %s", s)
	}
	if _, found, err := Uninstall(p); err != nil || !found {
		t.Fatalf("uninstall: %v %v", found, err)
	}
	if got := read(t, cfg); got != userConfig {
		t.Errorf("config.toml after uninstall:\n%s\nwant\n%s", got, userConfig)
	}
	if !reflect.DeepEqual(jsonOf(t, read(t, hj)), jsonOf(t, userHooks)) {
		t.Errorf("hooks.json after uninstall:\n%s", read(t, hj))
	}
	if _, err := os.Stat(filepath.Join(p.State, "hooks", "codex-bash-env")); err == nil {
		t.Error("the BASH_ENV script is still there")
	}
}

// A group the user added after fsmcp's keeps Codex's trust when fsmcp's
// goes and it moves up.
func TestCodexUninstallCarriesTheUsersTrust(t *testing.T) {
	p := testPlan(t, "codex", false)
	cfg := filepath.Join(p.Home, ".codex", "config.toml")
	hj := filepath.Join(p.Home, ".codex", "hooks.json")
	if _, _, err := Install(p); err != nil {
		t.Fatal(err)
	}
	d, _ := readDoc(hj)
	pre := d.v["hooks"].(map[string]any)["PreToolUse"].([]any)
	d.v["hooks"].(map[string]any)["PreToolUse"] = append(pre, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "later"}}})
	d.write()
	put(t, cfg, read(t, cfg)+"\n[hooks.state.\""+hj+":pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:later\"\n")
	if _, _, err := Uninstall(p); err != nil {
		t.Fatal(err)
	}
	after, _ := readTOML(cfg)
	if got := after.get(stateTable(hj+":pre_tool_use:0:0"), "trusted_hash"); got != "sha256:later" {
		t.Errorf("the user's hook, now first, is trusted by %v:\n%s", got, after.text)
	}
	if got := after.get(stateTable(hj+":pre_tool_use:1:0"), "trusted_hash"); got != nil {
		t.Errorf("a trust is left at the place the user's hook left:\n%s", after.text)
	}
}

// A settings file that cannot be read is refused, and nothing written.
func TestCodexRefusesWhatItCannotRead(t *testing.T) {
	for name, files := range map[string][2]string{
		"hooks.json not JSON":  {"{not json", ""},
		"config.toml not TOML": {"", "model = [unclosed\n"},
		"BASH_ENV set already": {"", "[shell_environment_policy.set]\nBASH_ENV = \"/home/me/.bashenv\"\n"},
		"set as inline table":  {"", "[shell_environment_policy]\nset = { PATH = \"/bin\" }\n"},
	} {
		t.Run(name, func(t *testing.T) {
			p := testPlan(t, "codex", false)
			cfg := filepath.Join(p.Home, ".codex", "config.toml")
			hj := filepath.Join(p.Home, ".codex", "hooks.json")
			if files[0] != "" {
				put(t, hj, files[0])
			}
			if files[1] != "" {
				put(t, cfg, files[1])
			}
			_, _, err := Install(p)
			if err == nil || !strings.Contains(err.Error(), "nothing was written") {
				t.Fatalf("install: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one sentence: %q", err)
			}
			if files[0] == "" {
				if _, err := os.Stat(hj); err == nil {
					t.Error("hooks.json was written")
				}
			} else if read(t, hj) != files[0] {
				t.Error("hooks.json changed")
			}
			if files[1] == "" {
				if _, err := os.Stat(cfg); err == nil {
					t.Error("config.toml was written")
				}
			} else if read(t, cfg) != files[1] {
				t.Error("config.toml changed")
			}
		})
	}
}

// A project install and a user install live side by side: the project's
// in its .codex (and says the project must be trusted), the trust of both
// in the user's config.toml; uninstalling one leaves the other.
func TestCodexProjectAndUserAtOnce(t *testing.T) {
	u := testPlan(t, "codex", false)
	p := u
	p.Project = filepath.Join(u.Home, "proj")
	if _, _, err := Install(u); err != nil {
		t.Fatal(err)
	}
	_, notes, err := Install(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "not trusted") {
		t.Errorf("the project install says %q", notes)
	}
	cfg := filepath.Join(u.Home, ".codex", "config.toml")
	for _, f := range []string{filepath.Join(p.Project, ".codex", "hooks.json"), filepath.Join(u.Home, ".codex", "hooks.json")} {
		if !strings.Contains(read(t, cfg), f+":pre_tool_use:0:0") {
			t.Errorf("%s's hook is not trusted:\n%s", f, read(t, cfg))
		}
	}
	if !strings.Contains(read(t, filepath.Join(p.Project, ".codex", "config.toml")), "codex-bash-env-") {
		t.Error("the project's config.toml sets no BASH_ENV of its own")
	}
	if s, _ := Status(p); !strings.Contains(s, "not trusted") {
		t.Errorf("status: %s", s)
	}
	if _, _, err := Uninstall(p); err != nil {
		t.Fatal(err)
	}
	if s, _ := Status(u); strings.Contains(s, "not installed") || strings.Contains(s, "but") && runtime.GOOS != "windows" {
		t.Errorf("the user's install after the project's went: %s", s)
	}
	if strings.Contains(read(t, cfg), p.Project) {
		t.Errorf("the project's trust is left:\n%s", read(t, cfg))
	}
}

// Gemini CLI's settings: installing twice is once, the user's settings
// and hooks kept, uninstall gives them back, a file that is not JSON is
// refused, a project and a user install are apart.
func TestGeminiInstallMerges(t *testing.T) {
	u := testPlan(t, "gemini", false)
	p := u
	p.Project = filepath.Join(u.Home, "proj")
	us := filepath.Join(u.Home, ".gemini", "settings.json")
	const mine = `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "my-check"}]}]}}`
	put(t, us, mine)
	for range 2 {
		if _, _, err := Install(u); err != nil {
			t.Fatal(err)
		}
	}
	v := jsonOf(t, read(t, us)).(map[string]any)
	before := v["hooks"].(map[string]any)["BeforeTool"].([]any)
	if len(before) != 2 || before[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"] != "my-check" || v["security"] == nil {
		t.Errorf("settings after two installs:\n%s", read(t, us))
	}
	if _, _, err := Install(p); err != nil {
		t.Fatal(err)
	}
	ps := filepath.Join(p.Project, ".gemini", "settings.json")
	if !strings.Contains(read(t, ps), "--dir "+p.Project) {
		t.Errorf("the project's hook names no DIR:\n%s", read(t, ps))
	}
	if _, _, err := Uninstall(u); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jsonOf(t, read(t, us)), jsonOf(t, mine)) {
		t.Errorf("settings after uninstall:\n%s", read(t, us))
	}
	if s, _ := Status(p); !strings.Contains(s, "installed in "+ps) {
		t.Errorf("the project's install after the user's went: %s", s)
	}
	put(t, us, "// comment\n{")
	if _, _, err := Install(u); err == nil || !strings.Contains(err.Error(), "nothing was written") || read(t, us) != "// comment\n{" {
		t.Errorf("a file that is not JSON: %v", err)
	}
}

// A user install gives Gemini CLI's shell BASH_ENV through
// ~/.gemini/.env: merged into the one there (the API key kept), taken
// out again on uninstall (a file it made goes); one that sets BASH_ENV
// already is refused; where making the file would hide the user's ~/.env
// it is not made, and the install says so.
func TestGeminiDotenv(t *testing.T) {
	p := testPlan(t, "gemini", false)
	env := filepath.Join(p.Home, ".gemini", ".env")
	script := filepath.Join(p.State, "hooks", "gemini-bash-env")
	put(t, env, "GEMINI_API_KEY=secret")
	_, notes, err := Install(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, env); got != "GEMINI_API_KEY=secret\nBASH_ENV='"+script+"'\n" {
		t.Errorf(".env after install: %q", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "journaled where it reads") {
		t.Errorf("install says %q", notes)
	}
	if b := read(t, script); !strings.Contains(b, "_bgpids_file=") || !strings.Contains(b, "hook gemini --state-home") {
		t.Errorf("the BASH_ENV script:\n%s", b)
	}
	Install(p)
	if strings.Count(read(t, env), "BASH_ENV") != 1 {
		t.Errorf(".env after two installs: %q", read(t, env))
	}
	if _, _, err := Uninstall(p); err != nil {
		t.Fatal(err)
	}
	if got := read(t, env); got != "GEMINI_API_KEY=secret\n" {
		t.Errorf(".env after uninstall: %q", got)
	}
	os.Remove(env)
	if _, _, err := Install(p); err != nil {
		t.Fatal(err)
	}
	Uninstall(p)
	if _, err := os.Stat(env); err == nil {
		t.Error("the .env the install made is left")
	}

	put(t, env, "BASH_ENV=/home/me/mine\n")
	if _, _, err := Install(p); err == nil || !strings.Contains(err.Error(), "nothing was written") || read(t, env) != "BASH_ENV=/home/me/mine\n" {
		t.Errorf("a BASH_ENV of the user's: %v", err)
	}
	os.Remove(env)
	put(t, filepath.Join(p.Home, ".env"), "MINE=1\n")
	_, notes, err = Install(p)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "would hide your") {
		t.Errorf("with a ~/.env: %v %q", err, notes)
	}
	if _, err := os.Stat(env); err == nil {
		t.Error("~/.gemini/.env made over a ~/.env")
	}
}

// Where Codex runs commands with a shell that reads no BASH_ENV (a user
// whose shell is zsh), the install and the status say its shell commands
// are not journaled.
func TestCodexSaysWhenItsShellReadsNoBashEnv(t *testing.T) {
	p := testPlan(t, "codex", false)
	p.Getenv = func(k string) string {
		if k == "SHELL" {
			return "/usr/bin/zsh"
		}
		return ""
	}
	_, notes, err := Install(p)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "with zsh, which reads no BASH_ENV") {
		t.Errorf("install: %v %q", err, notes)
	}
	if s, _ := Status(p); !strings.Contains(s, "not journaled") {
		t.Errorf("status: %s", s)
	}
}
