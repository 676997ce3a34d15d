package profiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// profileDirs are the packages that adapt: every package under profiles/,
// fsmcp's own table (profiles/fsmcp) included.
var profileDirs = []string{"."}

// forbiddenImports reach files or the kernel directly.
var forbiddenImports = []string{"os", "syscall", "io/ioutil", "os/exec", "golang.org/x/sys/", "github.com/fsnotify/"}

// forbiddenCalls are package functions that touch the file system.
var forbiddenCalls = map[string][]string{
	"filepath": {"Walk", "WalkDir", "Glob", "EvalSymlinks", "Abs"},
	"fs":       {"WalkDir", "ReadFile", "ReadDir", "Stat", "Glob", "Sub"},
}

// forbiddenMethods are sandbox.Path's I/O methods: a profile calls the
// core (files, catalog, watch, backend) instead.
var forbiddenMethods = map[string]bool{
	"Open": true, "OpenFile": true, "ReadFile": true, "WriteFile": true, "ReadDir": true,
	"Remove": true, "RemoveAll": true, "Mkdir": true, "MkdirAll": true, "Rename": true, "RenameNoReplace": true,
	"Symlink": true, "Chmod": true, "Chtimes": true, "Stat": true, "Lstat": true, "Statx": true, "StatDir": true,
	"Readlink": true, "Target": true,
}

// TestProfilesDoNotTouchFiles proves that no profile re-implements a file
// operation: outside tests, profile packages import nothing that opens
// files and call no file-system function or sandbox I/O method.
func TestProfilesDoNotTouchFiles(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, root := range profileDirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "__toolsnaps__") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			checked++
			checkFile(t, fset, f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked; is the walk looking in the right place?", checked)
	}
}

func checkFile(t *testing.T, fset *token.FileSet, f *ast.File) {
	pkgs := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		for _, bad := range forbiddenImports {
			if path == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(path, bad) {
				t.Errorf("%s: imports %s; profiles call the core instead", fset.Position(imp.Pos()), path)
			}
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] != "" && id.Obj == nil {
			for _, fn := range forbiddenCalls[id.Name] {
				if sel.Sel.Name == fn && (pkgs[id.Name] == "path/filepath" || pkgs[id.Name] == "io/fs") {
					t.Errorf("%s: calls %s.%s; profiles call the core instead", fset.Position(call.Pos()), id.Name, fn)
				}
			}
			return true
		}
		if forbiddenMethods[sel.Sel.Name] {
			t.Errorf("%s: calls .%s, a file operation; profiles call the core instead", fset.Position(call.Pos()), sel.Sel.Name)
		}
		return true
	})
}

// TestServerKnowsNoProfile: server/ (and resources/, which it serves)
// serve whatever tables they are given.
func TestServerKnowsNoProfile(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("../server/*.go")
	more, _ := filepath.Glob("../resources/*.go")
	names = append(names, more...)
	if err != nil || len(more) == 0 {
		t.Fatalf("no server or resources sources: %v", err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/fsmcp/fsmcp/profiles") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

// pathCalls are the functions that reach the file system by path: outside
// sandbox/ (which opens everything beneath a root's handle) a client's
// path must never reach one, or a symlink swapped in between a check and
// the call leads out of the roots.
var pathCalls = map[string][]string{
	"os": {"Open", "OpenFile", "Create", "ReadFile", "WriteFile", "ReadDir", "Stat", "Lstat", "Mkdir", "MkdirAll",
		"Remove", "RemoveAll", "Rename", "Symlink", "Link", "Readlink", "Chmod", "Chown", "Lchown", "Chtimes",
		"Truncate", "DirFS", "OpenRoot", "OpenInRoot", "MkdirTemp", "CreateTemp"},
	"path/filepath":            {"Walk", "WalkDir", "Glob", "EvalSymlinks"},
	"io/ioutil":                {"ReadFile", "WriteFile", "ReadDir"},
	"golang.org/x/sys/windows": {"CreateFile"},
}

// pathCallAllowed are the by-path calls that never see a client's path
// unresolved, keyed "file function pkg.Func", each with why. A new call
// anywhere else fails TestNoPathAccessOutsideSandbox: route it through
// sandbox (a *sandbox.Path) or, if it opens configuration or the system's
// own files, add it here with the reason.
var pathCallAllowed = map[string]string{
	// Configuration and the server's own files.
	"toolkit/audit.go OpenAudit os.OpenFile":     "opens --audit-log, named by the operator",
	"shell/proc.go procOK os.Stat":               "/proc",
	"shell/proc.go procStat os.ReadFile":         "/proc/PID/stat",
	"shell/proc.go openForWriting os.ReadDir":    "/proc/PID/fd of a process a traced command left running",
	"shell/proc.go openForWriting os.ReadFile":   "/proc/PID/fdinfo/N of a process a traced command left running",
	"shell/proc.go openForWriting os.Readlink":   "/proc/PID/fd/N of a process a traced command left running",
	"shell/proc.go scanSessions os.Open":         "/proc",
	"shell/keeper_linux.go descendants os.Open":  "/proc, by the keeper: the processes below it",
	"shell/keeper_linux.go parentOf os.ReadFile": "/proc/PID/stat, by the keeper",
	// The change journal's own directory, under the user's state
	// directory and refused inside a root; its files go through an os.Root.
	"journal/flush.go flusher.flush os.OpenFile":         "reopens a segment log or pack it wrote (in the journal directory, outside the roots) to sync it",
	"journal/journal.go realish filepath.EvalSymlinks":   "compares the journal directory with the roots",
	"cmd_history.go runJournal filepath.EvalSymlinks":    "the directory the user names to fsmcp history or undo, in a terminal",
	"cmd_run.go parseRun filepath.EvalSymlinks":          "the DIR fsmcp run journals, named by the user or a host's hook (or the working directory's work tree)",
	"cmd_run.go workTree os.Lstat":                       "looks for .git above fsmcp run's working directory, to take its work tree as DIR",
	"cmd_run_unix.go handOn os.OpenFile":                 "/dev/null, the standard streams of the supervisor fsmcp run hands on",
	"cmd_hooks.go hookPlan filepath.EvalSymlinks":        "this fsmcp binary's own path, which the hooks it installs run",
	"cmd_hooks.go journalHostCall filepath.EvalSymlinks": "the DIR a host's hook journals, from its settings or the host's working directory",
	// An agent host's own settings, which fsmcp hooks install edits for
	// the user who runs it (never a tool's call).
	"hooks/hooks.go Status os.Stat":                 "the script a host's settings name, to say whether it is there",
	"hooks/hooks.go Uninstall os.Remove":            "fsmcp's own hook script, in its state directory",
	"hooks/settings.go readDoc os.ReadFile":         "a host's settings file",
	"hooks/dotenv.go readDotenv os.Stat":            "Gemini CLI's ~/.gemini/.env, where a user install sets BASH_ENV",
	"hooks/dotenv.go readDotenv os.ReadFile":        "Gemini CLI's ~/.gemini/.env, where a user install sets BASH_ENV",
	"hooks/dotenv.go dotenv.write os.Remove":        "Gemini CLI's ~/.gemini/.env, left with nothing once fsmcp's line is out",
	"hooks/gemini.go gemini.editMore os.Stat":       "the user's ~/.env, which a ~/.gemini/.env made by the install would hide",
	"cmd_hooks.go geminiShell os.MkdirAll":          "fsmcp's state directory, where the hook before a Gemini CLI command leaves the session's id",
	"cmd_hooks.go geminiShell os.WriteFile":         "fsmcp's state directory, where the hook before a Gemini CLI command leaves the session's id",
	"cmd_hooks.go journalHostCall os.Remove":        "fsmcp's state directory: the session's id the hook before a Gemini CLI command left, once the call is over",
	"cmd_hooks.go sweepSessionFiles os.ReadDir":     "fsmcp's state directory: the session ids left for Gemini CLI commands",
	"cmd_hooks.go sweepSessionFiles os.Remove":      "fsmcp's state directory: a session id left for a Gemini CLI command that never ran",
	"cmd_hooks.go runHostBash os.ReadFile":          "fsmcp's state directory: the session's id the hook before the command left",
	"cmd_hooks.go runHostBash os.Remove":            "fsmcp's state directory: the session's id the hook before the command left, taken",
	"hooks/toml.go readTOML os.Stat":                "a host's TOML settings file (Codex's config.toml)",
	"hooks/toml.go readTOML os.ReadFile":            "a host's TOML settings file (Codex's config.toml)",
	"hooks/settings.go readDoc os.Stat":             "a host's settings file",
	"hooks/settings.go writeFile os.CreateTemp":     "a host's settings file, or fsmcp's hook script, written whole",
	"hooks/settings.go writeFile os.MkdirAll":       "a host's settings directory, or fsmcp's hooks directory",
	"hooks/settings.go writeFile os.Remove":         "the temporary file of a settings write that failed",
	"hooks/settings.go writeFile os.Rename":         "a host's settings file, or fsmcp's hook script, written whole",
	"journal/journal.go Set.KeepLabels os.MkdirAll": "makes the journal directory (0700) for its label key",
	"journal/journal.go Set.KeepLabels os.ReadFile": "the journal's label key, in the journal directory",
	"journal/journal.go Set.KeepLabels os.OpenFile": "makes the journal's label key (0600), in the journal directory",
	"journal/store.go openStore os.MkdirAll":        "makes the journal directory (0700)",
	"journal/store.go openStore os.Chmod":           "narrows the journal directory to 0700",
	"journal/store.go openStore os.OpenRoot":        "opens the journal directory",
	"journal/store.go ReadBound os.ReadFile":        "the bounds a server recorded in its journal directory",
	"journal/journal.go Bases os.ReadDir":           "lists the journal directory",
	"journal/journal.go Bases os.ReadFile":          "reads which DIR each journal is for",
	"journal/undo.go undoer.untrash os.OpenRoot":    "LocalCowork's trash outside every root, as the journal recorded it; only the file the undo brought back is removed there",
	// The shell's confinement is built from the resolved roots and the
	// system's directories; the agent's commands run inside it.
	"shell/landlock_linux.go existing os.Stat":               "Landlock rules for system directories",
	"shell/landlock_linux.go existingDirs os.Stat":           "Landlock rules for system directories",
	"shell/landlock_linux.go existingFiles os.Stat":          "Landlock rules for system files",
	"shell/landlock_linux.go restrict os.Open":               "Landlock rules, opened before the agent's command runs",
	"shell/roots.go resolveRoots filepath.EvalSymlinks":      "the operator's roots, at session start",
	"shell/sandbox.go goDirs filepath.EvalSymlinks":          "the Go toolchain's directories",
	"shell/sandbox.go goDirs os.Stat":                        "the Go toolchain's directories",
	"shell/sandbox.go lookPath os.Stat":                      "PATH lookup of system programs",
	"shell/sandbox.go policy.onPath os.ReadDir":              "PATH directories",
	"shell/sandbox.go policy.readable filepath.EvalSymlinks": "system directories named in the policy",
	"shell/session.go NewSession filepath.EvalSymlinks":      "the session's private temp directory",
	"shell/session.go NewSession os.MkdirTemp":               "the session's private temp directory",
	"shell/session.go NewSession os.RemoveAll":               "the session's private temp directory",
	"shell/session.go Session.Close os.RemoveAll":            "the session's private temp directory",
	"shell/session.go Session.RunTraced os.Stat":             "the shell's working directory, itself confined",
	"shell/trace_linux.go procLink os.Readlink":              "/proc/PID/fd/N or /proc/PID/cwd a traced command's call names",
	"shell/trace_linux.go ownPid os.ReadFile":                "/proc/PID/status of a traced command's process (its pid namespaces)",
	"shell/trace_linux.go realPath os.Lstat":                 "the directories of a path a traced command's call names, its links followed as the kernel will; the result goes through the sandbox",
	"shell/trace_linux.go realPath os.Readlink":              "the links among the directories of a path a traced command's call names",
	"shell/trace_linux.go realDirs.child os.Lstat":           "a directory new to the tracer's cache, named by a traced command's call: its parent's resolved path and its own name, an lstat only, a link there left to realPath; the result goes through the sandbox",
	"shell/trace_linux.go followLink os.Lstat":               "the last name of a path a traced command's call follows, to learn whether it is a link; only its lstat goes to the journal, which reads content through the sandbox",
	"shell/trace_linux.go followLink os.Readlink":            "the last link of a path a traced command's call follows, when it leads through /proc",
	"shell/session.go adoptCwd filepath.EvalSymlinks":        "the confined shell's reported working directory",
	"shell/session.go adoptCwd os.Stat":                      "the confined shell's reported working directory",
	// Search: the backends get real paths the sandbox resolved
	// (Call.SearchPaths); rg and find run under Landlock (confine).
	"backend/driver/confine/confine.go Start os.Open":          "hands rg its resolved roots as descriptors",
	"backend/driver/confine/confine.go Start os.OpenFile":      "hands rg its resolved roots as descriptors",
	"backend/driver/confine/confine_linux.go existing os.Stat": "Landlock rules for system directories",
	// rg as PATH names it (driver.FindRG): links, a script's first line,
	// the binary's loader, followed once at start; nothing in a root runs.
	"backend/driver/rgfind.go linkChain filepath.EvalSymlinks":       "rg's chain of links on PATH, checked against the roots",
	"backend/driver/rgfind.go linkChain os.Readlink":                 "rg's chain of links on PATH, checked against the roots",
	"backend/driver/rgfind.go linkChain os.Lstat":                    "rg's chain of links on PATH, checked against the roots",
	"backend/driver/rgfind.go shebang os.Open":                       "the first line of the script PATH names rg",
	"backend/driver/rgfind.go elfLibs filepath.EvalSymlinks":         "the loader and library directories rg's binary names",
	"main.go resolvedRoots filepath.EvalSymlinks":                    "the DIRs, for --version to check rg against",
	"backend/driver/confine/confine_linux.go allBut os.ReadDir":      "Landlock rules for everything but the roots (rg's probe)",
	"backend/driver/confine/trace.go Trace os.Open":                  "/dev/null for the traced program's stdin",
	"backend/driver/confine/trace_linux.go traceOn os.Readlink":      "/proc/PID/exe of a traced process",
	"backend/ignore/ignorefile_other.go openRegular os.Lstat":        "ignore files below a resolved root (no openat here)",
	"backend/ignore/ignorefile_other.go openRegular os.Open":         "ignore files below a resolved root (no openat here)",
	"backend/ignore/ignorefile_other.go readRegular os.Lstat":        "ignore files below a resolved root (no openat here)",
	"backend/ignore/ignorefile_other.go readRegular os.Open":         "ignore files below a resolved root (no openat here)",
	"backend/glob.go GlobBase os.Lstat":                              "a resolved search path",
	"backend/glob.go GlobBase os.Stat":                               "a resolved search path",
	"backend/driver/rg.go newSearchTarget os.Stat":                   "a resolved search path",
	"backend/ignore/rules.go AncestorIgnoreFiles os.Lstat":           "ignore files above a resolved root",
	"backend/ignore/rules.go entryExists os.Lstat":                   "ignore files below a resolved root",
	"backend/regular_windows.go RegularAt os.Lstat":                  "Windows has no openat",
	"backend/native/shared_windows.go openShared windows.CreateFile": "Windows has no openat: the native walker's files and directories (listDir, readFile), each checked by lstatPlain first, opened sharing deletion as ripgrep opens them",
	"backend/native/open_windows.go lstatPlain os.Lstat":             "Windows has no openat",
	"backend/native/open_windows.go openBeneath os.Stat":             "Windows has no openat",
	"backend/native/walk.go walk os.Lstat":                           "a resolved search root",
	"watch/shared.go sameDirByName filepath.EvalSymlinks":            "the name check behind the inode check, where /proc is missing",
	"watch/shared.go sameDirByName os.Stat":                          "the name check behind the inode check, where /proc is missing",
	"backend/driver/rg.go fdPath os.Stat":                            "/proc/self/fd/N of a root's open handle",
	"backend/queue/pagecache.go pageEntry.unchanged os.Stat":         "mtimes of resolved search paths, only to drop a kept result; nothing read is returned",
	"backend/queue/pagecache.go pageEntry.unchanged os.Lstat":        "times of the files of a kept result, only to drop it; nothing read is returned",
	"files/trash.go OpenTrash os.MkdirAll":                           "the host's trash outside every root (one inside a root is opened beneath its handle)",
	"files/trash.go OpenTrash os.OpenRoot":                           "the host's trash outside every root (one inside a root is opened beneath its handle)",
	// The index's cache directory: outside every root (one inside is refused).
	"backend/index/build.go builder.update os.OpenRoot":            "a DIR given at start; files are read beneath its handle",
	"backend/index/build.go builder.spill os.CreateTemp":           "the index cache directory",
	"backend/index/build.go builder.write os.CreateTemp":           "the index cache directory",
	"backend/index/build.go builder.openRuns os.Open":              "the index cache directory (the build's spilled runs)",
	"backend/index/build.go seal os.Rename":                        "the index cache directory",
	"backend/index/file.go checkSum os.OpenFile":                   "the index cache directory",
	"backend/index/file.go remove os.Remove":                       "the index cache directory",
	"backend/index/index.go Searcher.prepare os.Rename":            "the index cache directory: a damaged index set aside",
	"backend/index/index.go Searcher.refresh os.Chmod":             "the index cache directory",
	"backend/index/index.go Searcher.refresh os.MkdirAll":          "the index cache directory",
	"backend/index/prune.go linkOf os.Lstat":                       "a stat only, not followed: a changed name's inode and link count",
	"backend/index/prune.go parentPrint os.Lstat":                  "a stat only: the ignore files above a DIR, which package ignore reads",
	"backend/index/index.go cleanTemps filepath.Glob":              "the index cache directory",
	"backend/index/index.go resolveExisting filepath.EvalSymlinks": "the cache directory, to refuse one inside a root",
	"backend/index/sys_unix.go mapFile os.Open":                    "the index cache directory",
	"backend/index/sweep_linux.go sweepWith os.Open":               "a DIR given at start; its files are stat'ed beneath its handle, each directory opened from its parent without following a link",
	"backend/index/watch_linux.go watchBudget.limit os.ReadFile":   "a kernel setting in /proc/sys, not a file of the roots",
	"backend/index/sys_windows.go mapFile os.Open":                 "the index cache directory",
	"backend/index/sys_windows.go statAt os.Lstat":                 "Windows has no openat; a stat only, to decide freshness",
	// The shell's private root: built in its own mount namespace from the
	// system's directories and the server's own temp files, never from a
	// client's path (the roots are mounted from their open handles).
	"shell/gonamespace_linux.go newRoot.bind os.MkdirAll":             "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.bind os.OpenFile":             "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.bind os.Stat":                 "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.roots os.Readlink":            "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system filepath.EvalSymlinks": "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system os.Chmod":              "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system os.Lstat":              "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system os.MkdirAll":           "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system os.Readlink":           "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go newRoot.system os.Symlink":            "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go probeGo filepath.EvalSymlinks":        "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go probeGo os.Mkdir":                     "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go probeGo os.MkdirTemp":                 "the shell's private root (system directories, its own tmpfs)",
	"shell/gonamespace_linux.go probeGo os.RemoveAll":                 "the shell's private root (system directories, its own tmpfs)",
	"shell/helper_linux.go closeOnExecFrom os.ReadDir":                "/proc/self/fd",
	"shell/helper_linux.go sealCopy os.Open":                          "/proc/self/exe, sealed into memory at start",
	"shell/namespace_linux.go systemMounts filepath.EvalSymlinks":     "the system's program and library directories",
	"shell/namespace_linux.go systemMounts os.Lstat":                  "the system's program and library directories",
	"shell/namespace_linux.go systemMounts os.Readlink":               "the system's program and library directories",
	"shell/namespace_linux.go lockDevices os.ReadDir":                 "the shell's own /dev, in its namespace, before the command runs",
	"shell/session.go Session.Close os.Remove":                        "the session's own temp directory, made by the server",
	// Known debts, each an open issue: remove the entry with the fix.
}

// pathCallSkipped are the trees the guard does not read: the sandbox
// itself, tests' helpers (internal/test) and tools that are not the
// server.
var pathCallSkipped = map[string]bool{
	"sandbox": true, "integration": true, "bench": true, "internal/test": true,
	"testdata": true, "node_modules": true, "__toolsnaps__": true, "packaging": true,
}

// TestNoPathAccessOutsideSandbox guards the whole tree: outside sandbox/
// no code reaches the file system by path (os.Open, os.Stat,
// filepath.Walk, ...) except the calls pathCallAllowed names with a
// reason. It is keyed by function, so a new call in a new place fails.
func TestNoPathAccessOutsideSandbox(t *testing.T) {
	const root = ".."
	fset := token.NewFileSet()
	seen := map[string]bool{}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (pathCallSkipped[rel] || pathCallSkipped[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, key := range pathCallsIn(f, rel) {
			seen[key.key] = true
			if _, ok := pathCallAllowed[key.key]; !ok {
				t.Errorf("%s: %s reaches the file system by path outside sandbox/; use a *sandbox.Path (or, for configuration or system files, add %q to pathCallAllowed with the reason)", fset.Position(key.pos), key.call, key.key)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked; is the walk looking in the right place?", checked)
	}
	for key := range pathCallAllowed {
		if !seen[key] {
			t.Logf("pathCallAllowed names %q, which no longer exists: drop it", key)
		}
	}
}

type pathCall struct {
	key, call string
	pos       token.Pos
}

// pathCallsIn lists f's by-path calls as "file function pkg.Func".
func pathCallsIn(f *ast.File, rel string) []pathCall {
	pkgs := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = path
	}
	var out []pathCall
	for _, decl := range f.Decls {
		fn := "(top)"
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				typ := fd.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					fn = id.Name + "." + fn
				}
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || id.Obj != nil {
				return true
			}
			name := id.Name + "." + sel.Sel.Name
			for _, c := range pathCalls[pkgs[id.Name]] {
				if c == sel.Sel.Name {
					out = append(out, pathCall{key: rel + " " + fn + " " + name, call: name, pos: call.Pos()})
				}
			}
			return true
		})
	}
	return out
}

// TestNoProductionImportOfTestSupport: the test harnesses live under
// internal/test/, and only tests import them: no package of the binary
// (nor any tool built from this module) does.
func TestNoProductionImportOfTestSupport(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const support = "github.com/fsmcp/fsmcp/internal/test/"
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkgs++
		if strings.HasPrefix(fields[0], support) {
			continue // a harness may build on another
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, support) {
				t.Errorf("%s imports the test harness %s outside its tests", fields[0], imp)
			}
		}
	}
	if pkgs < 20 {
		t.Fatalf("only %d packages listed; is go list reading the module?", pkgs)
	}
}
