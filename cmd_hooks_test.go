package main

import (
	"reflect"
	"testing"
)

// A Codex patch names its files in its own headers; each is kept.
func TestPatchFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new dir/a.txt\n+x\n*** Update File: b.go\r\n*** Move to: c.go\n@@\n-a\n+b\n*** Delete File: /abs/d\n+*** Add File: not a header\n*** End Patch\n"
	want := []string{"new dir/a.txt", "b.go", "c.go", "/abs/d"}
	if got := patchFiles(patch); !reflect.DeepEqual(got, want) {
		t.Errorf("patchFiles: %q, want %q", got, want)
	}
}

// History shows the command the model wrote, not the script Codex wraps
// it in when it has a shell snapshot; a script that is not that one is
// shown as it is.
func TestCodexCommandText(t *testing.T) {
	for _, c := range []struct{ cmd, quoted string }{
		{`echo hi`, `'echo hi'`},
		{`echo 'it''s' "$HOME" $(x)`, `'echo '"'"'it'"'"''"'"'s'"'"' "$HOME" $(x)'`},
		{"cat > f <<'EOF'\nline\nEOF", "'cat > f <<'\\''EOF'\\''\nline\nEOF'"},
	} {
		script := "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${BASH_ENV+x}\"\nif . '/h/shell_snapshots/s.sh' >/dev/null 2>&1; then :; fi\n\nexec '/bin/bash' -c " + c.quoted
		m := codexSnapshotExec.FindStringSubmatch(script)
		if m == nil {
			t.Fatalf("%q: the snapshot's exec line is not found", c.cmd)
		}
		if w := shellWords(m[2]); len(w) != 1 || w[0] != c.cmd {
			t.Errorf("%q read as %q", c.quoted, w)
		}
	}
	for _, s := range []string{`'open`, `a; b`, `"$x"`} {
		if w := shellWords(s); w != nil {
			t.Errorf("shellWords(%q) = %q, want no single word", s, w)
		}
	}
}
