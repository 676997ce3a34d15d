package files

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

// TestGrowthRefusedBeforeItIsBuilt: a replacement that would make 200 KB
// of "x" into gigabytes is refused with one sentence (the result's size
// is computed first), by every writer, and the file is unchanged.
func TestGrowthRefusedBeforeItIsBuilt(t *testing.T) {
	sb, root, _ := opsRoot(t)
	name := filepath.Join(root, "big.txt")
	orig := bytes.Repeat([]byte("x"), 200_000)
	if err := os.WriteFile(name, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	p := resolve(t, sb, name)
	huge := strings.Repeat("Y", 20_000)
	const limit = 10 << 20
	want := "cannot change " + name + ": the result would be 4000000000 bytes, over the 10485760-byte limit (--max-file-size); nothing was changed"
	cases := map[string]func() error{
		"EditFile": func() error {
			_, _, _, err := EditFile(t.Context(), p, []Edit{{Old: "x", New: huge, ReplaceAll: true}}, limit, false)
			return err
		},
		"ReplaceFile": func() error {
			_, _, err := ReplaceFile(t.Context(), p, []Replacement{{Pattern: regexp.MustCompile(`x`), With: func(w *Builder, _ string, _ []int) { w.WriteString(huge) }}}, limit)
			return err
		},
		// $' (the text after the match) for every match: quadratic.
		"ReplaceFile-suffix": func() error {
			_, _, err := ReplaceFile(t.Context(), p, []Replacement{{Pattern: regexp.MustCompile(`x`), With: func(w *Builder, c string, m []int) { w.WriteString(c[m[1]:]) }}}, limit)
			if err != nil && !strings.Contains(err.Error(), "over the 10485760-byte limit") {
				t.Errorf("suffix: %v", err)
			}
			return err
		},
		"Append": func() error { return Append(t.Context(), p, []byte(huge+strings.Repeat(huge, 600)), limit) },
	}
	for name, run := range cases {
		err := run()
		var rt *ResultTooLargeError
		if !errors.As(err, &rt) || fault.KindOf(err) != fault.TooLarge {
			t.Errorf("%s: %v, want a ResultTooLargeError", name, err)
		}
		if name == "EditFile" || name == "ReplaceFile" {
			if err.Error() != want {
				t.Errorf("%s:\n got %s\nwant %s", name, err, want)
			}
		}
		if data, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(data, orig) {
			t.Errorf("%s changed the file", name)
		}
	}
	// The indentation of the white-space-flexible match is counted too.
	indented := strings.Repeat(" ", 1<<20) + "a\n" + strings.Repeat(" b\n", 20)
	os.WriteFile(name, []byte(indented), 0o644)
	_, _, err := FlexEditFile(t.Context(), p, []FlexEdit{{Old: "a\n" + strings.Repeat("  b\n", 20), New: "a\n" + strings.Repeat("   c\n", 20)}}, limit, false)
	if fault.KindOf(err) != fault.TooLarge {
		t.Errorf("FlexEditFile: %v, want TooLarge", err)
	}
}
