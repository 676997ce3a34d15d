package driver

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"

	"github.com/fsmcp/fsmcp/backend"
)

// ErrNoRG is returned by Select("rg", …) when rg is not on PATH.
var ErrNoRG = errors.New("rg (ripgrep) not found on PATH")

// Select returns the backend of the given kind: "auto" (rg when it is on
// PATH now, else native), "rg", "find" (find(1) for globs, native for
// grep) or "native". native is the pure-Go scanner (native.New()).
// The paths it reports are in the system's own form (systemPaths).
// rg is looked for now, with no directory denied (FindRG(nil)); SelectFound
// takes what FindRG found.
func Select(kind string, native backend.Searcher) (backend.Searcher, error) {
	var found RGFound
	if kind == "" || kind == "auto" || kind == "rg" {
		found = FindRG(nil)
	}
	return SelectFound(kind, native, found, nil)
}

// SelectFound is Select with rg as FindRG found it. Under auto a search
// that rg cannot run is served by native (see rgWithNativeGlob), said
// once on log; an rg that cannot be used at all leaves auto with native
// (the caller says why: found.Err), and is an error for "rg".
func SelectFound(kind string, native backend.Searcher, found RGFound, log *slog.Logger) (backend.Searcher, error) {
	s, err := selectKind(kind, native, found, log)
	if err != nil {
		return nil, err
	}
	return systemPaths(s), nil
}

func selectKind(kind string, native backend.Searcher, found RGFound, log *slog.Logger) (backend.Searcher, error) {
	switch kind {
	case "", "auto":
		if rg, err := NewRGFound(found); err == nil {
			if native == nil {
				return rg, nil
			}
			return rgWithNativeGlob{rg, native, &fallbackState{log: log}}, nil
		}
		if native == nil {
			return nil, errors.New("no native searcher given and rg not on PATH")
		}
		return native, nil
	case "rg":
		return NewRGFound(found)
	case "find":
		if native == nil {
			return nil, errors.New("the find backend needs the native searcher for grep")
		}
		return NewFind(native)
	case "native":
		if native == nil {
			return nil, errors.New("no native searcher given")
		}
		return native, nil
	}
	return nil, fmt.Errorf("unknown search backend %q (want auto, rg, find or native)", kind)
}

// lookPath is exec.LookPath, replaceable in tests.
var lookPath = exec.LookPath
