package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

// The TestWinPath tests do no I/O but asking Windows to normalise a
// name, so make test-windows runs them under Wine too (t.TempDir's
// cleanup fails there for Wine's own reasons).

// TestWinPathAsWindowsOpensIt pins sysPath, the form every guard
// compares: the \\?\ and \\.\ prefixes dropped before a drive or UNC,
// trailing dots and spaces stripped as Win32 strips them (so ws\. ,
// ws\.. and ws\... are ws itself, prefix or not), and streams, device
// names and device paths refused, each with its own sentence.
func TestWinPathAsWindowsOpensIt(t *testing.T) {
	for _, c := range []struct{ in, want, refusal string }{
		{in: `C:\ws\a.txt`, want: `C:\ws\a.txt`},
		{in: `C:/ws/a.txt`, want: `C:\ws\a.txt`},
		{in: `C:\ws/sub\..\a.txt`, want: `C:\ws\a.txt`},
		{in: `\\?\C:\ws\a.txt`, want: `C:\ws\a.txt`},
		{in: `//?/C:/ws/a.txt`, want: `C:\ws\a.txt`},
		{in: `\\.\C:\ws\a.txt`, want: `C:\ws\a.txt`},
		{in: `\??\C:\ws\a.txt`, want: `C:\ws\a.txt`},
		{in: `\\?\UNC\srv\share\a.txt`, want: `\\srv\share\a.txt`},
		{in: `\\srv\share\ws\..\..\x`, want: `\\srv\share\x`},
		{in: `C:\ws\. `, want: `C:\ws`},
		{in: `C:\ws\.. `, want: `C:\ws`},
		{in: `C:\ws\...`, want: `C:\ws`},
		{in: `C:\ws\. . .`, want: `C:\ws`},
		{in: `C:\ws\a.txt. . `, want: `C:\ws\a.txt`},
		{in: `\\?\C:\ws\. `, want: `C:\ws`},
		{in: `\\?\C:\ws\.. `, want: `C:\ws`},
		{in: `\\?\C:\ws\...`, want: `C:\ws`},
		{in: `C:\ws\..`, want: `C:\`},
		{in: `\\?\C:\ws\..\x`, want: `C:\x`},
		{in: `C:\ws\sub\...\x`, refusal: "shortens to .. in the middle"},
		{in: `C:\ws\.. \x`, want: `C:\ws\.. \x`},
		{in: `C:\ws\a.txt:x`, refusal: "alternate data stream"},
		{in: `C:\ws\a.txt::$DATA`, refusal: "alternate data stream"},
		{in: `C:\ws:x\a.txt`, refusal: "alternate data stream"},
		{in: `\\?\C:\ws\a.txt:x`, refusal: "alternate data stream"},
		{in: `C:\ws\CON`, refusal: "Windows device CON"},
		{in: `C:\ws\nul`, refusal: "Windows device nul"},
		{in: `C:\ws\COM1`, refusal: "Windows device COM1"},
		{in: `C:\ws\LPT9\a.txt`, refusal: "Windows device LPT9"},
		{in: `C:\ws\CON `, refusal: "Windows device CON "},
		{in: `\\.\C:\ws\AUX`, refusal: "Windows device AUX"},
		{in: `\\.\PhysicalDrive0`, refusal: "device or volume path"},
		{in: `\\?\GLOBALROOT\Device\HarddiskVolume1\x`, refusal: "device or volume path"},
		{in: `\\.\pipe\x`, refusal: "device or volume path"},
		{in: `\\?\Volume{00000000-0000-0000-0000-000000000000}\x`, refusal: "device or volume path"},
		{in: `\\.\CON`, refusal: "device or volume path"},
		{in: `ws\a.txt`, refusal: "must be absolute"},
		{in: `\ws\a.txt`, refusal: "must be absolute"},
		{in: `C:ws\a.txt`, refusal: "must be absolute"},
	} {
		got, err := sysPath(c.in)
		switch {
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)):
			t.Errorf("sysPath(%q) = %q, %v; want a refusal holding %q", c.in, got, err, c.refusal)
		case c.refusal != "" && c.refusal != "must be absolute" && fault.KindOf(err) != fault.Invalid:
			t.Errorf("sysPath(%q): %v is of kind %v, want invalid (not outside)", c.in, err, fault.KindOf(err))
		case c.refusal == "" && (err != nil || got != c.want):
			t.Errorf("sysPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// A name with an extension is a device where this Windows says so
	// (Windows 11 no longer reserves aux.txt); the refusal follows it.
	if _, err := sysPath(`C:\ws\aux.txt`); filepath.IsLocal("aux.txt") == (err != nil) {
		t.Errorf("sysPath(aux.txt) = %v, but filepath.IsLocal(aux.txt) = %v", err, filepath.IsLocal("aux.txt"))
	}
}

// TestWinPathOfficialCases runs the official filesystem server's own
// Windows-only isPathWithinAllowedDirectories cases (16 of them, kept as
// data in profiles/reference/testdata/path-validation-cases.json) against
// the comparison Resolve makes: the allowed directory as New takes it
// (made absolute, then sysPath), the path through sysPath, then within.
// UNC shares and drives that do not exist need no I/O here; the
// Windows suite (integration/windows) runs the drive cases again
// through fsmcp.exe on real directories.
func TestWinPathOfficialCases(t *testing.T) {
	raw, err := os.ReadFile("../profiles/reference/testdata/path-validation-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Test    string
		Path    string
		Allowed []string
		Want    bool
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	windows := regexp.MustCompile(`^([A-Za-z]:|\\\\)`)
	ran := 0
	for _, c := range cases {
		if !windows.MatchString(c.Path) && !strings.Contains(strings.Join(c.Allowed, ""), `\`) {
			continue
		}
		ran++
		got := false
		for _, d := range c.Allowed {
			abs, err := filepath.Abs(d)
			if err == nil {
				abs, err = sysPath(abs)
			}
			if err != nil {
				t.Fatalf("%s: allowed %q: %v", c.Test, d, err)
			}
			if p, err := sysPath(c.Path); err == nil {
				if _, in := Within(abs, p); in {
					got = true
				}
			}
		}
		if got != c.Want {
			t.Errorf("%s: %q in %q = %v, the official server says %v", c.Test, c.Path, c.Allowed, got, c.Want)
		}
	}
	if ran != 16 {
		t.Errorf("ran %d Windows-only cases, want the official server's 16", ran)
	}
	t.Logf("official Windows-only path-validation cases: %d run", ran)
}
