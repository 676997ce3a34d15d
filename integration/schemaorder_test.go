package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestReferenceSchemasInTheOriginalsOrder replays testdata/
// reference_tools_order.txtar: the official server's tools/list answer,
// recorded verbatim (key order kept), and fsmcp --profile reference on the
// same lines must list every tool's inputSchema and outputSchema with the
// same keys in the same order, byte for byte. A model reads a schema in
// order: edit_file's edits items name oldText, then newText.
//
// REFERENCE_ORIGINAL=/path/to/server-filesystem/dist/index.js with
// UPDATE_GOLDEN=true records the original section again (node runs it).
func TestReferenceSchemasInTheOriginalsOrder(t *testing.T) {
	const file = "testdata/reference_tools_order.txtar"
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	client := section(ar, "client")
	if client == nil {
		t.Fatalf("%s: no client section", file)
	}
	root := t.TempDir()
	if orig := os.Getenv("REFERENCE_ORIGINAL"); orig != "" {
		line := listOver(t, exec.Command("node", orig, root), client.Data)
		if os.Getenv("UPDATE_GOLDEN") == "true" {
			if f := section(ar, "original"); f != nil {
				f.Data = append(line, '\n')
			} else {
				ar.Files = append(ar.Files, txtar.File{Name: "original", Data: append(line, '\n')})
			}
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	orig := section(ar, "original")
	if orig == nil {
		t.Fatalf("%s: no original section; record it (REFERENCE_ORIGINAL)", file)
	}
	want := schemasOf(t, bytes.TrimSpace(orig.Data))
	cmd := exec.Command(binary, "--profile", "reference", root)
	cmd.Env = append(os.Environ(), "PATH="+modes(t)[0].path)
	got := schemasOf(t, listOver(t, cmd, client.Data))
	if len(got) != len(want) {
		t.Errorf("fsmcp lists %d tools, the original %d", len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: not listed", name)
			continue
		}
		for i, kind := range []string{"inputSchema", "outputSchema"} {
			if g[i] != w[i] {
				t.Errorf("%s: %s\n got: %s\nwant: %s", name, kind, g[i], w[i])
			}
		}
	}
}

// listOver runs cmd as a stdio server, sends the client lines and
// returns the last answer line, raw.
func listOver(t *testing.T, cmd *exec.Cmd, lines []byte) []byte {
	t.Helper()
	cmd.Stderr = &testLog{t: t, prefix: filepath.Base(cmd.Path) + ": "}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	var last []byte
	for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		io.WriteString(stdin, string(line)+"\n")
		var m struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue // a notification: nothing comes back
		}
		answer, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v", line, err)
		}
		last = bytes.TrimSpace(answer)
	}
	return last
}

// schemasOf maps each tool of a raw tools/list answer to its input and
// output schemas, compacted with their keys in the order sent.
func schemasOf(t *testing.T, answer []byte) map[string][2]string {
	t.Helper()
	var res struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &res); err != nil {
		t.Fatalf("%v: %s", err, answer)
	}
	out := map[string][2]string{}
	for _, tool := range res.Result.Tools {
		var s [2]string
		for i, raw := range []json.RawMessage{tool.InputSchema, tool.OutputSchema} {
			var b bytes.Buffer
			if len(raw) > 0 {
				if err := json.Compact(&b, raw); err != nil {
					t.Fatal(err)
				}
			}
			s[i] = b.String()
		}
		out[tool.Name] = s
	}
	return out
}
