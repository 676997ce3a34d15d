package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// expandHome turns a leading ~ or ~/ (~\ on Windows) in each path into the
// home directory: agent hosts' JSON configs pass "~/project" as is, with
// no shell to expand it. ~user is left alone.
func expandHome(paths []string, home func() (string, error)) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		rest, ok := strings.CutPrefix(p, "~")
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, string(filepath.Separator))) {
			out[i] = p
			continue
		}
		h, err := home()
		if err != nil || h == "" {
			return nil, fmt.Errorf("cannot expand %q: the home directory is unknown (give the full path)", p)
		}
		out[i] = h + rest
	}
	return out, nil
}

// listenMeansHTTP makes --listen without --transport mean http: nobody
// gives an address to a stdio server. --transport stdio with --listen is
// a contradiction. set holds the flags given.
func listenMeansHTTP(set map[string]bool, o *options) error {
	if !set["listen"] {
		return nil
	}
	if !set["transport"] {
		o.transport = "http"
		return nil
	}
	if o.transport != "http" {
		return errors.New("--listen is for --transport http; drop one of them")
	}
	return nil
}

// userHome is os.UserHomeDir; a seam for tests.
var userHome = os.UserHomeDir
