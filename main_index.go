package main

import (
	"context"
	"log/slog"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/index"
)

// withIndex puts the index of the DIRs in front of searcher, as --index
// asks (native serves the searches it narrows). The returned stop ends
// the builds and unmaps the indexes. With --index on, a cache directory
// the index may not use is a start-up error; auto goes on unindexed.
func withIndex(mode string, searcher, native backend.Searcher, roots []string, log *slog.Logger) (backend.Searcher, func(), error) {
	if mode == "off" || len(roots) == 0 {
		return searcher, func() {}, nil
	}
	s, err := index.New(searcher, native, index.Options{Mode: mode, Roots: roots, Log: log})
	if err != nil {
		if mode == "on" {
			return nil, nil, err
		}
		log.Warn("index: off", "error", err)
		return searcher, func() {}, nil
	}
	s.Start(context.Background())
	return s, func() { s.Close() }, nil
}
