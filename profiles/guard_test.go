package profiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// profileDirs are the packages that adapt: the fsmcp table (tools/) and
// every package under profiles/.
var profileDirs = []string{"../tools", "."}

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

// TestServerKnowsNoProfile: server/ serves whatever tables it is given.
func TestServerKnowsNoProfile(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("../server/*.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no server sources: %v", err)
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
			if path == "github.com/fsmcp/fsmcp/tools" || strings.HasPrefix(path, "github.com/fsmcp/fsmcp/profiles") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
