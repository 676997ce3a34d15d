// Package stack builds the search stack, the one way it is put together:
// main calls New once with the search flags, and the server serves from
// what it returns. A search goes through the stages in this order, each
// the next one's caller:
//
//  0. the door (pattern.Compiling): a grep's pattern is compiled once,
//     and a bad one refused at once; the query carries the compiled
//     value (GrepQuery.Compiled) to every stage below, which reads it
//     (pattern.Of) instead of compiling the text again: the index's
//     trigram plan, rg's argv, the native scanner;
//  1. the queue (backend/queue): a later page of a kept result comes from
//     the page cache; any other search waits for a slot in the admission
//     (--max-searches, --search-wait), and the call's clock stops while
//     it waits;
//  2. the index (backend/index, --index): a pattern its trigrams narrow
//     runs on the native scanner over the candidate files; any other
//     goes on to the drivers;
//  3. the drivers (backend/driver, --search-backend): rg, found through
//     PATH's links and shims and run under Landlock
//     (backend/driver/confine), or find for globs, or the native scanner
//     (backend/native); under auto a search rg cannot run is served by
//     the native scanner, and globs always are.
//
// It is a room of its own so that the order is written once, here, and
// neither main nor the server nor a test assembles a stack of its own.
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/backend/index"
	"github.com/fsmcp/fsmcp/backend/native"
	"github.com/fsmcp/fsmcp/backend/pattern"
	"github.com/fsmcp/fsmcp/backend/queue"
)

// Options are the search flags, settled. The zero value is the defaults
// with no index: rg if it is on PATH, else the native scanner.
type Options struct {
	// Backend is --search-backend: auto (""), rg, find or native.
	Backend string
	// Roots are the DIRs (real paths): nothing rg runs from may lie in
	// one, and the index covers them.
	Roots []string
	// Index is --index: off (""), auto or on. With on, an index that
	// cannot be kept is an error; auto goes on unindexed.
	Index string
	// IndexWatches bounds the index's inotify watches (0: its share),
	// IndexCensus how long a write through a link made from outside may
	// go unseen (0: index.DefaultCensusBound).
	IndexWatches int64
	IndexCensus  time.Duration
	// MaxSearches and SearchWait bound the queue (0: queue's defaults).
	MaxSearches int
	SearchWait  time.Duration
	// Log hears why rg is not used and what the index does (nil: nothing).
	Log *slog.Logger
}

// Stack is the search stack, built once.
type Stack struct {
	// Stack is what the server serves from: the searcher at the
	// stack's door, the admission every search waits in, and Changed.
	queue.Stack
	// Backend is the driver chosen: "rg", "find" or "native".
	Backend string
	// RG is rg as PATH has it (when it was looked for): its binary,
	// version and how PATH reached it, or why it cannot be used.
	RG driver.RGFound
	// stop ends the index's builds and unmaps its files.
	stop func()
}

// New builds the stack o asks for, in the order the package documents,
// and starts the index's background builds. Its errors name the flag:
// an unknown or unusable --search-backend, or --index on that cannot be
// kept. Close ends what it started.
func New(o Options) (*Stack, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kind := o.Backend
	if kind == "" {
		kind = "auto"
	}
	st := &Stack{stop: func() {}}
	scanner := native.New()
	if kind == "auto" || kind == "rg" {
		st.RG = driver.FindRG(o.Roots)
	}
	drivers, err := driver.SelectFound(kind, scanner, st.RG, log)
	if err != nil {
		return nil, fmt.Errorf("--search-backend %s: %w", kind, err)
	}
	if kind == "auto" && st.RG.Err != nil && !errors.Is(st.RG.Err, driver.ErrNoRG) {
		log.Warn("rg cannot run; searches use the native scanner", "reason", st.RG.Err.Error())
	}
	st.Backend = drivers.Name()
	searcher := drivers
	if o.Index != "" && o.Index != "off" && len(o.Roots) > 0 {
		ix, err := index.New(drivers, scanner, index.Options{Mode: o.Index, Roots: o.Roots, MaxWatches: o.IndexWatches, CensusBound: o.IndexCensus, Log: log})
		switch {
		case err != nil && o.Index == "on":
			return nil, fmt.Errorf("--index on: %w", err)
		case err != nil:
			log.Warn("index: off", "error", err)
		default:
			ix.Start(context.Background())
			searcher, st.stop = ix, func() { ix.Close() }
		}
	}
	st.Stack = queue.New(searcher, o.MaxSearches, o.SearchWait)
	st.Stack.Searcher = pattern.Compiling(st.Stack.Searcher)
	return st, nil
}

// Close ends the index's builds and unmaps its files; the stack serves
// no search after it.
func (s *Stack) Close() { s.stop() }
