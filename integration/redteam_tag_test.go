//go:build redteam

package integration

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// With the redteam tag (make redteam) only the attack tests run: the
// Test functions of this package that call attack, found in its sources,
// unless -run names tests itself.
func init() { beforeRun = selectAttacks }

func selectAttacks() error {
	flag.Parse()
	if run := flag.Lookup("test.run"); run == nil || run.Value.String() != "" {
		return nil
	}
	names, err := attackTests(".")
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("no test calls attack: is the redteam selection reading the right directory?")
	}
	fmt.Fprintf(os.Stderr, "redteam: %d attack tests: %s\n", len(names), strings.Join(names, " "))
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return flag.Set("test.run", "^("+strings.Join(quoted, "|")+")$")
}

// attackTests are the Test functions in dir's test files that call attack.
func attackTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Test") {
				continue
			}
			calls := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "attack" {
						calls = true
					}
				}
				return !calls
			})
			if calls {
				names = append(names, fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}
