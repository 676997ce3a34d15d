package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The path policy and the result cap are decided once, in toolkit: a
// profile hands a client's path to its Call (Resolve, SearchPaths,
// ResolveReal: the table's PathRule) and a count to the core (files'
// Max, backend.Run's limit, Limits.ResultLimit, Call.ResultCap). These
// are the calls that would decide either again.
const (
	sandboxPkg = "github.com/fsmcp/fsmcp/sandbox"
	toolkitPkg = "github.com/fsmcp/fsmcp/toolkit"
)

// sandboxDecisions are *sandbox.Sandbox's path decisions.
var sandboxDecisions = map[string]bool{"Resolve": true, "RealPath": true, "Contains": true}

// policyAllowed are the calls the policy guard lets through, keyed
// "file function call", each with why.
var policyAllowed = map[string]string{
	"../resources/resources.go Service.list sandbox.Sandbox.Resolve": "a root the sandbox itself names (Roots), not a client's path",
}

// beyondProfiles are the other packages that take a path from a client
// or a host and are held to the same rule: the resources (a URI goes
// through toolkit.ResolveURI) and package main (the hooks' files).
var beyondProfiles = []string{"../resources", ".."}

// TestProfilesLeavePathsAndCapsToTheCore fails when a profile (or the
// resources, or package main: beyondProfiles) decides a
// path rule or a result cap itself: it calls *sandbox.Sandbox's Resolve,
// RealPath or Contains (instead of its Call's, which apply the table's
// PathRule), or compares a count with toolkit.Limits.MaxResults (or
// takes its min or max) instead of handing the cap to the core.
func TestProfilesLeavePathsAndCapsToTheCore(t *testing.T) {
	imp := exportImporter(t)
	dirs, err := profilePackageDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, beyondProfiles...)
	seen := map[string]bool{}
	checked := 0
	for _, dir := range dirs {
		fset, files, info := typeCheckDir(t, imp, dir)
		for _, f := range files {
			checked++
			name := filepath.ToSlash(fset.Position(f.Pos()).Filename)
			for _, v := range policyViolations(fset, f, info, name) {
				seen[v.key] = true
				if _, ok := policyAllowed[v.key]; !ok {
					t.Errorf("%s: %s; %s", v.pos, v.what, v.fix)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked; is the walk looking in the right place?", checked)
	}
	for key := range policyAllowed {
		if !seen[key] {
			t.Errorf("policyAllowed names %q, which no longer exists: drop it", key)
		}
	}
}

// TestPolicyGuardCatchesPlantedCalls plants each forbidden call in a
// profile-shaped file and checks the guard names it.
func TestPolicyGuardCatchesPlantedCalls(t *testing.T) {
	imp := exportImporter(t)
	const src = `package planted

import (
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

func decide(c *toolkit.Call, sb *sandbox.Sandbox, path string, found []string) int {
	if _, err := c.Sandbox.Resolve(path); err != nil {
		return 0
	}
	if _, err := sb.RealPath(path); err != nil {
		return 0
	}
	if c.Sandbox.Contains(path) {
		return 1
	}
	if len(found) >= c.Limits.MaxResults {
		return 2
	}
	n := min(len(found), c.Limits.MaxResults)
	p, _ := c.Resolve(path)                  // the table's rule: allowed
	q := c.Limits.ResultLimit(len(found))    // handed to the core: allowed
	_, _ = p, q
	return n
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := newInfo()
	if _, err := (&types.Config{Importer: imp}).Check("planted", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range policyViolations(fset, f, info, "planted.go") {
		got = append(got, v.what)
	}
	want := []string{
		"calls sandbox.Sandbox.Resolve", "calls sandbox.Sandbox.RealPath", "calls sandbox.Sandbox.Contains",
		"compares with toolkit.Limits.MaxResults", "takes min of toolkit.Limits.MaxResults",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the guard found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type violation struct {
	key, what, fix string
	pos            token.Position
}

// policyViolations lists f's own path decisions and result counts.
func policyViolations(fset *token.FileSet, f *ast.File, info *types.Info, name string) []violation {
	var out []violation
	for _, decl := range f.Decls {
		fn := funcName(decl)
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "min" || id.Name == "max") && isBuiltin(info, id) {
					for _, a := range n.Args {
						if mentionsMaxResults(info, a) {
							out = append(out, violation{
								key: name + " " + fn + " " + id.Name, what: "takes " + id.Name + " of toolkit.Limits.MaxResults",
								fix: "lower the cap with Limits.ResultLimit", pos: fset.Position(n.Pos()),
							})
						}
					}
				}
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || !sandboxDecisions[sel.Sel.Name] {
					return true
				}
				m, ok := info.Uses[sel.Sel].(*types.Func)
				if !ok || !isMethodOf(m, sandboxPkg, "Sandbox") {
					return true
				}
				call := "sandbox.Sandbox." + sel.Sel.Name
				out = append(out, violation{
					key: name + " " + fn + " " + call, what: "calls " + call,
					fix: "resolve through the Call (Resolve, SearchPaths, ResolveReal, ResolveFound, Reaches), which applies the table's PathRule, or where there is no call through PathRule.Resolve or toolkit.ResolveURI",
					pos: fset.Position(n.Pos()),
				})
			case *ast.BinaryExpr:
				switch n.Op {
				case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				default:
					return true
				}
				if mentionsMaxResults(info, n.X) || mentionsMaxResults(info, n.Y) {
					out = append(out, violation{
						key: name + " " + fn + " compare", what: "compares with toolkit.Limits.MaxResults",
						fix: "hand the cap to the core (files' Max, backend.Run's limit, Limits.ResultLimit) or count with Call.ResultCap",
						pos: fset.Position(n.Pos()),
					})
				}
			}
			return true
		})
	}
	return out
}

func funcName(decl ast.Decl) string {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		return "(top)"
	}
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		typ := fd.Recv.List[0].Type
		if s, ok := typ.(*ast.StarExpr); ok {
			typ = s.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			return id.Name + "." + fd.Name.Name
		}
	}
	return fd.Name.Name
}

func isBuiltin(info *types.Info, id *ast.Ident) bool {
	_, ok := info.Uses[id].(*types.Builtin)
	return ok
}

// isMethodOf reports whether m is a method of pkg's named type typ.
func isMethodOf(m *types.Func, pkg, typ string) bool {
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == pkg && named.Obj().Name() == typ
}

// mentionsMaxResults reports whether e reads toolkit.Limits.MaxResults.
func mentionsMaxResults(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "MaxResults" {
			return true
		}
		if s := info.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
			if named, ok := derefNamed(s.Recv()); ok && named.Obj().Pkg() != nil &&
				named.Obj().Pkg().Path() == toolkitPkg && named.Obj().Name() == "Limits" {
				found = true
			}
		}
		return !found
	})
	return found
}

func derefNamed(t types.Type) (*types.Named, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return n, ok
}

func newInfo() *types.Info {
	return &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
}

// profilePackageDirs are the directories below root holding a profile's
// non-test Go files.
func profilePackageDirs(root string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "__toolsnaps__") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			set[filepath.Dir(path)] = true
		}
		return nil
	})
	var dirs []string
	for d := range set {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, err
}

// typeCheckDir type-checks the package in dir (its files for this
// system, tests left out).
func typeCheckDir(t *testing.T, imp types.Importer, dir string) (*token.FileSet, []*ast.File, *types.Info) {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./"+filepath.ToSlash(dir)).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", dir, err)
	}
	var pkg struct {
		Dir, ImportPath string
		GoFiles         []string
	}
	if err := json.Unmarshal(out, &pkg); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := newInfo()
	if _, err := (&types.Config{Importer: imp}).Check(pkg.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", pkg.ImportPath, err)
	}
	return fset, files, info
}

// exportImporter imports packages from the compiler's export data, as
// `go list -export` builds it for the profiles and everything they use.
func exportImporter(t *testing.T) types.Importer {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("SKIPPED: the policy guard type-checks the profiles with the go command, which is not on PATH: %v", err)
	}
	out, err := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=ImportPath,Export", "./..."}, beyondProfiles...)...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}
