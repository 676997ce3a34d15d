package fsmcp

// Overview is the README's tool table: each row some of the profile's
// tools and what they do, in a few words. The README's block is made
// from it and the tools (docs_test.go, make docs), and every tool of
// the profile is in exactly one row.
var Overview = []struct {
	Tools []string
	Does  string
}{
	{[]string{"fs_read"}, "read a file (line numbers, offset/limit; images as images)"},
	{[]string{"fs_write"}, "write a whole file, atomically"},
	{[]string{"fs_edit"}, "replace exact text in a file; a batch applies all or nothing"},
	{[]string{"fs_glob"}, "find files by name (glob), newest first"},
	{[]string{"fs_grep"}, "search file contents (ripgrep syntax and semantics)"},
	{[]string{"fs_bash"}, "run a shell command; the working directory persists"},
	{[]string{"fs_list", "fs_stat", "fs_mkdir", "fs_move", "fs_copy", "fs_delete"}, "the rest of a file manager"},
	{[]string{"fs_history", "fs_undo"}, "list and undo the changes made through fsmcp"},
	{[]string{"fs_catalog", "fs_watch"}, "a TSV catalog of a tree; change notifications"},
}
