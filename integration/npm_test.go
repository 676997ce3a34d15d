package integration

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// npmPlatforms maps npm's platform package names to Go's GOOS/GOARCH: the
// six packages fsmcp's optionalDependencies name.
var npmPlatforms = map[string][2]string{
	"linux-x64":    {"linux", "amd64"},
	"linux-arm64":  {"linux", "arm64"},
	"darwin-x64":   {"darwin", "amd64"},
	"darwin-arm64": {"darwin", "arm64"},
	"win32-x64":    {"windows", "amd64"},
	"win32-arm64":  {"windows", "arm64"},
}

// npmHost is the host's platform package name, "" where fsmcp ships none.
func npmHost() string {
	for name, p := range npmPlatforms {
		if p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			return name
		}
	}
	return ""
}

// npmTarballs returns the directory of npm tarballs to install and their
// version. With FSMCP_NPM_DIR (make npm-test) it is what `make npm` built,
// all seven; otherwise the host's package and fsmcp's are packed here by
// npm/pack.sh from a version-stamped build, so `make test` stays fast.
func npmTarballs(t *testing.T) (dir, version string) {
	t.Helper()
	if dir = os.Getenv("FSMCP_NPM_DIR"); dir != "" {
		m, _ := filepath.Glob(filepath.Join(dir, "fsmcp-[0-9]*.tgz"))
		if len(m) != 1 {
			t.Fatalf("FSMCP_NPM_DIR=%s holds %d fsmcp-VERSION.tgz, want one (make npm VERSION=...)", dir, len(m))
		}
		return dir, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), "fsmcp-"), ".tgz")
	}
	version = "0.0.0-npmtest"
	dist := t.TempDir()
	ext := ""
	if runtime.GOOS == "windows" {
		ext = ".exe"
	}
	bin := filepath.Join(dist, "fsmcp_"+version+"_"+runtime.GOOS+"_"+runtime.GOARCH+ext)
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fsmcp %s: %v\n%s", version, err, out)
	}
	dir = t.TempDir()
	pack := exec.Command("bash", "../npm/pack.sh", version, dist, dir, runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("npm/pack.sh: %v\n%s", err, out)
	}
	return dir, version
}

// TestNPMPackageInstallsOfflineAndServes installs the npm packages from
// their tarballs into an empty directory with npm offline (every platform
// package present is offered through overrides, so npm itself must pick
// the host's by os and cpu), then runs `npx fsmcp --version` and connects
// the official TypeScript client through `npx fsmcp DIR` over stdio. It
// also pins that the launcher passes on the binary's exit status and a
// SIGTERM (the binary ends, and the launcher with the binary's status).
func TestNPMPackageInstallsOfflineAndServes(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("SKIPPED: npm is not installed; the npm package (npm/) is not checked")
	}
	host := npmHost()
	if host == "" {
		t.Skipf("SKIPPED: fsmcp ships no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	tarballs, version := npmTarballs(t)
	checkNPMTarballs(t, tarballs, version)

	// An empty project that depends on fsmcp alone; overrides point each
	// platform package at its tarball, so nothing is looked up anywhere.
	proj := t.TempDir()
	overrides := map[string]string{}
	for name := range npmPlatforms {
		tgz := filepath.Join(tarballs, "fsmcp-"+name+"-"+version+".tgz")
		if _, err := os.Stat(tgz); err == nil {
			overrides["@fsmcp/"+name] = "file:" + tgz
		}
	}
	if overrides["@fsmcp/"+host] == "" {
		t.Fatalf("%s has no tarball for the host's package @fsmcp/%s", tarballs, host)
	}
	pj, _ := json.Marshal(map[string]any{
		"private":      true,
		"dependencies": map[string]string{"fsmcp": "file:" + filepath.Join(tarballs, "fsmcp-"+version+".tgz")},
		"overrides":    overrides,
	})
	if err := os.WriteFile(filepath.Join(proj, "package.json"), pj, 0o644); err != nil {
		t.Fatal(err)
	}
	// Offline, with a cache of its own: the install must need no registry.
	env := append(os.Environ(), "npm_config_offline=true", "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"),
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
	install := exec.Command(npm, "install", "--offline", "--no-audit", "--no-fund")
	install.Dir, install.Env = proj, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline: %v\n%s", err, out)
	}
	installed, _ := os.ReadDir(filepath.Join(proj, "node_modules", "@fsmcp"))
	var names []string
	for _, e := range installed {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{host}) {
		t.Errorf("npm installed @fsmcp/%v, want only the host's @fsmcp/%s", names, host)
	}

	npx := func(args ...string) *exec.Cmd {
		cmd := exec.Command("npx", append([]string{"--offline", "--no-install"}, args...)...)
		cmd.Dir, cmd.Env = proj, env
		return cmd
	}
	out, err := npx("fsmcp", "--version").Output()
	if first, _, _ := strings.Cut(string(out), "\n"); err != nil || first != "fsmcp "+version {
		t.Errorf("npx fsmcp --version = %q, %v; want a first line %q", out, err, "fsmcp "+version)
	}

	t.Run("exit status passes through", func(t *testing.T) {
		direct := exec.Command(filepath.Join(proj, "node_modules", "@fsmcp", host, "bin", "fsmcp"), "--no-such-flag")
		wantErr := direct.Run()
		var want *exec.ExitError
		if !errors.As(wantErr, &want) {
			t.Fatalf("the binary with a bad flag: %v, want a non-zero exit", wantErr)
		}
		err := npx("fsmcp", "--no-such-flag").Run()
		var got *exec.ExitError
		if !errors.As(err, &got) || got.ExitCode() != want.ExitCode() {
			t.Errorf("npx fsmcp --no-such-flag: %v, want exit status %d as the binary gives", err, want.ExitCode())
		}
	})

	if runtime.GOOS != "windows" {
		t.Run("SIGTERM passes through", func(t *testing.T) { npmSIGTERM(t, proj, env) })
	}

	t.Run("TypeScript client via npx", func(t *testing.T) {
		node := tsNode(t)
		dir := t.TempDir()
		file := filepath.Join(dir, "via-npx.txt")
		calls := []tsCall{
			{Name: "fs_write", Arguments: map[string]any{"file_path": file, "content": "through npx\n"}, want: "Wrote 12 bytes"},
			{Name: "fs_read", Arguments: map[string]any{"file_path": file}, want: "1\tthrough npx"},
			{Name: "fs_glob", Arguments: map[string]any{"pattern": "*.txt"}, want: file},
		}
		rep := runTS(t, node, map[string]any{
			"transport": "stdio", "command": "npx", "args": []string{"--offline", "--no-install", "fsmcp", dir},
			"cwd": proj, "env": map[string]string{"PATH": os.Getenv("PATH"), "npm_config_offline": "true", "npm_config_cache": filepath.Join(t.TempDir(), "npm-cache")},
			"calls": calls,
		})
		if rep.ServerInfo.Name != "fsmcp" {
			t.Errorf("serverInfo.name = %q, want fsmcp", rep.ServerInfo.Name)
		}
		checkTS(t, calls, rep)
	})
}

// npmSIGTERM starts the launcher serving over stdio, waits for its answer
// to initialize (the binary is running) and sends SIGTERM to the launcher
// alone. The launcher must pass it on and wait: it ends with the binary's
// exit status, not by the signal, and then stdout (which the binary
// shares) is at its end, so the binary has gone too.
func npmSIGTERM(t *testing.T, proj string, env []string) {
	cmd := exec.Command("node", filepath.Join(proj, "node_modules", "fsmcp", "bin", "fsmcp.js"), t.TempDir())
	cmd.Dir, cmd.Env = proj, env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Closing stdin ends a binary left behind by a failed pass-on (EOF).
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sigterm","version":"1"}}}`+"\n")
	r := bufio.NewReader(stdout)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"serverInfo"`) {
		cmd.Process.Kill()
		t.Fatalf("no initialize response through the launcher: %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	st, err := cmd.Process.Wait() // the launcher alone; cmd.Wait would close stdout under us
	if err != nil {
		t.Fatal(err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("the launcher died of %v instead of passing it on and exiting with the binary's status", ws.Signal())
	}
	io.Copy(io.Discard, r) // EOF: the binary has closed stdout, i.e. ended
}

// checkNPMTarballs checks every tarball in dir: fsmcp's package.json (a bin,
// no install scripts, all six platform packages as optionalDependencies at
// version), and each platform package's name, os, cpu and binary (its
// format and architecture).
func checkNPMTarballs(t *testing.T, dir, version string) {
	t.Helper()
	main := npmTarball(t, filepath.Join(dir, "fsmcp-"+version+".tgz"))
	var pkg struct {
		Name                 string
		Version              string
		MCPName              string
		Bin                  map[string]string
		Scripts              map[string]string
		OptionalDependencies map[string]string
	}
	if err := json.Unmarshal(main["package/package.json"], &pkg); err != nil {
		t.Fatalf("fsmcp's package.json: %v", err)
	}
	if pkg.Name != "fsmcp" || pkg.Version != version || pkg.Bin["fsmcp"] != "bin/fsmcp.js" || main["package/bin/fsmcp.js"] == nil {
		t.Errorf("fsmcp's package.json: %+v; want fsmcp %s with bin fsmcp -> bin/fsmcp.js", pkg, version)
	}
	// The MCP Registry takes the package as server.json's only if it says so.
	var entry struct{ Name string }
	if data, err := os.ReadFile("../server.json"); err != nil || json.Unmarshal(data, &entry) != nil || pkg.MCPName != entry.Name {
		t.Errorf("fsmcp's package.json: mcpName %q, want server.json's name %q", pkg.MCPName, entry.Name)
	}
	for s := range pkg.Scripts {
		if strings.Contains(s, "install") {
			t.Errorf("fsmcp has a %s script; it must install with none", s)
		}
	}
	for name := range npmPlatforms {
		if v := pkg.OptionalDependencies["@fsmcp/"+name]; v != version {
			t.Errorf("optionalDependencies[@fsmcp/%s] = %q, want %s", name, v, version)
		}
	}
	if len(pkg.OptionalDependencies) != len(npmPlatforms) {
		t.Errorf("optionalDependencies = %v, want the six platform packages", pkg.OptionalDependencies)
	}

	for name, goos := range npmPlatforms {
		path := filepath.Join(dir, "fsmcp-"+name+"-"+version+".tgz")
		if _, err := os.Stat(path); err != nil {
			continue // make test packs the host's only
		}
		files := npmTarball(t, path)
		var p struct {
			Name    string
			Version string
			OS      []string
			CPU     []string
			Scripts map[string]string
		}
		if err := json.Unmarshal(files["package/package.json"], &p); err != nil {
			t.Fatalf("%s: package.json: %v", path, err)
		}
		os, cpu, _ := strings.Cut(name, "-")
		if p.Name != "@fsmcp/"+name || p.Version != version || !slices.Equal(p.OS, []string{os}) || !slices.Equal(p.CPU, []string{cpu}) || len(p.Scripts) != 0 {
			t.Errorf("%s: package.json %+v; want @fsmcp/%s %s, os [%s], cpu [%s], no scripts", path, p, name, version, os, cpu)
		}
		exe := "package/bin/fsmcp"
		if goos[0] == "windows" {
			exe += ".exe"
		}
		if got := binaryPlatform(files[exe]); got != goos {
			t.Errorf("%s: %s is a binary for %v, want %v", path, exe, got, goos)
		}
	}
}

// npmTarball reads a package tarball's files.
func npmTarball(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			if strings.HasPrefix(h.Name, "package/bin/fsmcp") && !strings.HasSuffix(h.Name, ".js") && !strings.HasSuffix(h.Name, ".exe") && h.Mode&0o111 == 0 {
				t.Errorf("%s: %s is not executable (mode %o)", path, h.Name, h.Mode)
			}
			b, err := io.ReadAll(io.LimitReader(tr, 256<<20))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			files[h.Name] = b
		}
	}
}

// binaryPlatform tells a binary's GOOS and GOARCH from its headers.
func binaryPlatform(b []byte) [2]string {
	r := bytes.NewReader(b)
	if f, err := elf.NewFile(r); err == nil {
		switch f.Machine {
		case elf.EM_X86_64:
			return [2]string{"linux", "amd64"}
		case elf.EM_AARCH64:
			return [2]string{"linux", "arm64"}
		}
	}
	if f, err := macho.NewFile(r); err == nil {
		switch f.Cpu {
		case macho.CpuAmd64:
			return [2]string{"darwin", "amd64"}
		case macho.CpuArm64:
			return [2]string{"darwin", "arm64"}
		}
	}
	if f, err := pe.NewFile(r); err == nil {
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return [2]string{"windows", "amd64"}
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return [2]string{"windows", "arm64"}
		}
	}
	return [2]string{"unknown", "unknown"}
}
