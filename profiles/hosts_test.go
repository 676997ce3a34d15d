package profiles_test

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
)

// found is how a host that defers tools finds each tool of each profile:
// whether it is loaded up front (_meta["anthropic/alwaysLoad"]: Claude
// Code 2.1.328 and later defer every other MCP tool behind ToolSearch)
// and the words its description opens with, which that search matches.
// A new tool fails TestEveryToolSaysHowHostsFindIt until it has a row
// here and a line in docs/profiles.md's "Loaded up front".
//
// fsmcp's own descriptions open with the words a model searches for
// ("read a file", "search file contents", "find files by name", "run a
// shell command", "undo changes"). The drop-ins keep their originals'
// words, which tools/list pins (each name already says what it does:
// read_text_file, search_files, write_content).
var found = map[string]map[string]way{
	fsmcp.Name: {
		"fs_read":    {upfront, "Read a file."},
		"fs_grep":    {upfront, "Search file contents"},
		"fs_glob":    {upfront, "Find files by name"},
		"fs_edit":    {upfront, "Edit a file"},
		"fs_write":   {upfront, "Write a file"},
		"fs_bash":    {upfront, "Run a shell command"},
		"fs_list":    {deferred, "List a directory"},
		"fs_stat":    {deferred, "Show a file's or directory's metadata"},
		"fs_mkdir":   {deferred, "Create a directory"},
		"fs_move":    {deferred, "Move or rename a file"},
		"fs_copy":    {deferred, "Copy a file"},
		"fs_delete":  {deferred, "Delete a file"},
		"fs_catalog": {deferred, "Catalog a directory tree"},
		"fs_watch":   {deferred, "Watch a directory tree for changes"},
		"fs_history": {deferred, "Show the history of file changes"},
		"fs_undo":    {deferred, "Undo changes"},
	},
	"journal-tools": { // --journal-tools beside another profile
		"fs_history": {deferred, "Show the history of file changes"},
		"fs_undo":    {deferred, "Undo changes"},
	},
	"reference": {
		"read_text_file":            {upfront, "Read the complete contents of a file"},
		"write_file":                {upfront, "Create a new file or completely overwrite an existing file"},
		"edit_file":                 {upfront, "Make line-based edits to a text file"},
		"search_files":              {upfront, "Recursively search for files and directories matching a pattern"},
		"list_directory":            {upfront, "Get a detailed listing of all files and directories"},
		"read_file":                 {deferred, "Read the complete contents of a file as text. DEPRECATED"},
		"read_media_file":           {deferred, "Read a file and return it as a base64-encoded content block"},
		"read_multiple_files":       {deferred, "Read the contents of multiple files"},
		"create_directory":          {deferred, "Create a new directory"},
		"list_directory_with_sizes": {deferred, "Get a detailed listing of all files and directories in a specified path, including sizes"},
		"directory_tree":            {deferred, "Get a recursive tree view of files and directories"},
		"move_file":                 {deferred, "Move or rename files and directories"},
		"get_file_info":             {deferred, "Retrieve detailed metadata about a file or directory"},
		"list_allowed_directories":  {deferred, "Returns the list of directories that this server is allowed to access"},
	},
	"filesystem-mcp": {
		"list_files":         {upfront, "List files/directories"},
		"read_content":       {upfront, "Read content from multiple specified files"},
		"write_content":      {upfront, "Write or append content to multiple specified files"},
		"search_files":       {upfront, "Search for a regex pattern within files"},
		"replace_content":    {upfront, "Replace content within files"},
		"stat_items":         {deferred, "Get detailed status information"},
		"delete_items":       {deferred, "Delete multiple specified files or directories"},
		"create_directories": {deferred, "Create multiple specified directories"},
		"chmod_items":        {deferred, "Change permissions mode"},
		"chown_items":        {deferred, "Change owner (UID) and group (GID)"},
		"move_items":         {deferred, "Move or rename multiple specified files/directories"},
		"copy_items":         {deferred, "Copy multiple specified files/directories"},
	},
	"peekaboo": {
		"search_path":    {upfront, "Search for files and directories by name pattern"},
		"search_content": {upfront, "Search for content within files"},
	},
	"localcowork": {
		"filesystem.list_dir":     {deferred, "List contents of a directory"},
		"filesystem.read_file":    {deferred, "Read contents of a file"},
		"filesystem.write_file":   {deferred, "Write content to a file"},
		"filesystem.move_file":    {deferred, "Move a file"},
		"filesystem.copy_file":    {deferred, "Copy a file"},
		"filesystem.delete_file":  {deferred, "Delete a file"},
		"filesystem.search_files": {deferred, "Search for files matching a pattern"},
		"filesystem.get_metadata": {deferred, "Get detailed metadata for a file"},
		"filesystem.watch_folder": {deferred, "Register a filesystem watcher on a directory"},
	},
	"catalog": {
		"catalog/create": {deferred, "Creates a catalog of all files in a directory"},
	},
}

// way is one tool's row: loaded up front or deferred, and the opening of
// its description.
type way struct {
	upfront bool
	opens   string
}

const (
	upfront  = true
	deferred = false
)

// sizeDeclared are the profiles whose tools also declare their result
// size (toolkit.Table.DeclareResultSize).
var sizeDeclared = map[string]bool{fsmcp.Name: true}

// maxDescription is the longest description a host passes whole: Claude
// Code cuts one at 2,048 characters (anthropics/claude-code#41593).
const maxDescription = 2048

// TestEveryToolSaysHowHostsFindIt serves each profile alone (the shell
// on, not read-only, so every tool is listed), lists its tools as a
// client does and holds each to its row in found: its _meta keys are
// exactly anthropic/alwaysLoad (true) when it loads up front, plus
// anthropic/maxResultSizeChars where the profile declares sizes; its
// description opens with the row's words and is shorter than 2 KB. Then
// docs/profiles.md's "Loaded up front" must name each tool under its
// decision.
func TestEveryToolSaysHowHostsFindIt(t *testing.T) {
	tables := map[string]*toolkit.Table{"journal-tools": fsmcp.JournalTable()}
	for _, name := range profiles.Names() {
		tabs, err := profiles.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		tables[name] = tabs[0]
	}
	for name := range found {
		if tables[name] == nil {
			t.Errorf("found has a row for %s, which is no profile", name)
		}
	}
	docs := loadedUpFront(t)
	for name, tab := range tables {
		t.Run(name, func(t *testing.T) {
			rows, ok := found[name]
			if !ok {
				t.Fatalf("profile %s has no rows in found: decide which of its tools load up front and how their descriptions open", name)
			}
			e := testenv.New(t, testenv.WithServer(func(c *server.Config) {
				c.Profiles = []*toolkit.Table{tab}
				c.Shell = string(shell.ModeOn)
			}))
			res, err := e.CS.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, tool := range res.Tools {
				listed[tool.Name] = true
				row, ok := rows[tool.Name]
				if !ok {
					t.Errorf("%s has no row in found: decide whether it loads up front and how its description opens (the words a model searches for), and say why in docs/profiles.md", tool.Name)
					continue
				}
				var want []string
				if row.upfront {
					want = append(want, toolkit.MetaAlwaysLoad)
				}
				if sizeDeclared[name] {
					want = append(want, toolkit.MetaMaxResultSize)
				}
				switch hint := tab.SearchHints[tool.Name]; {
				case !row.upfront && hint != "":
					want = append(want, toolkit.MetaSearchHint)
				case !row.upfront && tab.SearchHints != nil:
					t.Errorf("%s is deferred without a search hint: give it the words a user or model would find it by (SearchHints)", tool.Name)
				}
				var got []string
				for k := range tool.Meta {
					got = append(got, k)
				}
				sort.Strings(got)
				sort.Strings(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s: _meta keys %v, want %v", tool.Name, got, want)
				}
				if v, ok := tool.Meta[toolkit.MetaAlwaysLoad]; ok && v != true {
					t.Errorf("%s: %s is %v; a deferred tool carries no key (false would keep it deferred under a user's per-server alwaysLoad)", tool.Name, toolkit.MetaAlwaysLoad, v)
				}
				if !strings.HasPrefix(tool.Description, row.opens) {
					t.Errorf("%s: description opens %.60q, want %q", tool.Name, tool.Description, row.opens)
				}
				if len(tool.Description) >= maxDescription {
					t.Errorf("%s: description is %d bytes; a host cuts it at %d", tool.Name, len(tool.Description), maxDescription)
				}
				if !docs[name+" "+tool.Name+" "+loading(row.upfront)] {
					t.Errorf("docs/profiles.md's \"Loaded up front\" does not list %s under %s's %s tools", tool.Name, name, loading(row.upfront))
				}
			}
			for tool := range rows {
				if !listed[tool] {
					t.Errorf("found has a row for %s, which %s does not list", tool, name)
				}
			}
		})
	}
}

func loading(upfront bool) string {
	if upfront {
		return "up front"
	}
	return "deferred"
}

// loadedUpFront reads docs/profiles.md's "Loaded up front" table: a row
// per profile, `| profile | up front | deferred | why |`, tools in
// backquotes. It returns "profile tool up front" and "profile tool
// deferred" for each tool named.
func loadedUpFront(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "## Loaded up front")
	if i < 0 {
		t.Fatal(`docs/profiles.md has no "## Loaded up front" section`)
	}
	doc = doc[i:]
	if j := strings.Index(doc[3:], "\n## "); j >= 0 {
		doc = doc[:j+3]
	}
	out := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		profile := strings.Trim(strings.TrimSpace(cells[1]), "`")
		for col, way := range map[int]string{2: "up front", 3: "deferred"} {
			for k, f := range strings.Split(cells[col], "`") {
				if k%2 == 1 { // inside backquotes
					out[profile+" "+f+" "+way] = true
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal(`docs/profiles.md's "Loaded up front" has no table rows`)
	}
	return out
}
