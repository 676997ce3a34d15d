// Package fsmcp is the fsmcp profile: fsmcp's own tools, as SPEC §3
// names them, adapted onto the core (files/, catalog/, watch/,
// backend/). One file per tool or tool family, each with a constructor
// returning a toolkit.Tool; Table lists them all — start reading there.
//
// The profile is a drop-in for fsMCP (seed 002): its tool names and
// parameters, its wording, tools/list with each tool's category, unknown
// tools and invalid arguments as isError results, unknown arguments
// ignored, and _meta.allowed_dirs; docs/profiles.md lists where it
// deliberately differs.
//
// Error contract: a handler's error becomes an isError result whose text is
// one sentence the user can act on (not found, outside the roots, not
// unique), argument errors (-32602) included (SEP-1303: the model reads
// them and retries). JSON-RPC errors are left for the protocol itself.
package fsmcp

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's name for --profile.
const Name = "fsmcp"

// Table is the fsmcp profile.
func Table() *toolkit.Table {
	return &toolkit.Table{
		Name:  Name,
		Tools: withHints(All()),
		Arguments: toolkit.Arguments{
			Paths: toolkit.Absolute,
			// fsMCP ignores unknown arguments; fsmcp too, and says so.
			ExtraArgs: toolkit.ReportExtra,
		},
		Handshake: toolkit.Handshake{
			Instructions: instructions,
			Initialize:   advertiseContextSchema,
			Answers:      map[string]func(mcp.Result) mcp.Result{"tools/list": withCategory},
		},
		Wording: toolkit.Wording{
			NameRoots:     true,
			Errors:        argumentErrorsAsText,
			Explain:       explain,
			UnknownTool:   func(name string) error { return fmt.Errorf("unknown tool: %s", name) },
			UnknownMethod: func(method string) string { return "method not found: " + method },
		},
		Listing: toolkit.Listing{
			// Every answer fits --max-output; Claude Code is told so and
			// keeps it whole (docs: "Raise the limit for a specific tool").
			DeclareResultSize: true,
			// What an agent reaches for on every task: read, search contents,
			// find files, edit, write, and the confined shell (deferred, a
			// model runs the host's own). The rest stay deferred and are
			// found by name (docs/profiles.md, "Loaded up front").
			Upfront: []string{"fs_read", "fs_grep", "fs_glob", "fs_edit", "fs_write", "fs_bash"},
			// And the words they are searched for by.
			SearchHints: map[string]string{
				"fs_history": "history of file changes: what changed, recent edits, diff of a change, who changed a file",
				"fs_undo":    "undo that: revert the last change, roll back, restore or take back edited, deleted or overwritten files",
				"fs_list":    "list a directory: ls, tree, what files are here",
				"fs_stat":    "file metadata: size, mode, owner, times, whether a path exists",
				"fs_mkdir":   "make a directory: mkdir -p",
				"fs_move":    "move or rename a file or directory: mv",
				"fs_copy":    "copy a file or directory: cp -r",
				"fs_delete":  "delete or remove a file or directory: rm -r",
				"fs_catalog": "catalog a directory tree: every file with size and time, as TSV",
				"fs_watch":   "watch files or a directory for changes: notifications",
			},
		},
		Transport: toolkit.Transport{
			// fsMCP answers tools/call without initialize (its own tests and
			// simple hosts never send it): the plain front lets them.
			Wire: toolkit.Plain,
		},
	}
}

// argumentErrorsAsText turns a -32602 argument error into an isError
// result the model can read (MCP 2025-11-25, SEP-1303), as fsMCP does.
func argumentErrorsAsText(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams {
		return errors.New(rpc.Message)
	}
	return err
}

// All returns every fsmcp tool, in the order tools/list shows them.
func All() []toolkit.Tool {
	return []toolkit.Tool{
		Read(),    // fs_read, read.go
		Write(),   // fs_write, write.go
		Edit(),    // fs_edit, edit.go
		Glob(),    // fs_glob, glob.go
		Grep(),    // fs_grep, grep.go
		List(),    // fs_list, list.go
		Stat(),    // fs_stat, stat.go
		Mkdir(),   // fs_mkdir, manage.go
		Move(),    // fs_move, manage.go
		Copy(),    // fs_copy, manage.go
		Delete(),  // fs_delete, manage.go
		Catalog(), // fs_catalog, catalog.go
		Watch(),   // fs_watch, watch.go
		Bash(),    // fs_bash, bash.go
		History(), // fs_history, journal.go
		Undo(),    // fs_undo, journal.go
	}
}
