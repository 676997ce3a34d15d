package fsmcp

import "github.com/fsmcp/fsmcp/toolkit"

// hints name, per tool, the parameter that does what an argument it does
// not have usually means: the names other file tools (Claude Code's, the
// official server's, Gemini CLI's) give them. An agent that sends one is
// answered all the same, with a last line saying it was ignored and what
// to use (toolkit.ReportExtra).
var hints = map[string]map[string]string{
	"fs_read": {"path": "file_path", "start_line": "offset", "end_line": "limit", "line": "offset",
		"head": "limit", "tail": "offset", "max_lines": "limit"},
	"fs_write": {"path": "file_path", "contents": "content", "text": "content"},
	"fs_edit": {"path": "file_path", "old_text": "old_string", "oldText": "old_string", "new_text": "new_string",
		"newText": "new_string", "replaceAll": "replace_all"},
	"fs_glob": {"include": "pattern", "glob": "pattern", "dir_path": "path", "directory": "path",
		"limit": "head_limit", "max_results": "head_limit"},
	"fs_grep": {"include": "glob", "file_pattern": "glob", "exclude": "glob with a leading !", "query": "pattern",
		"regex": "pattern", "dir_path": "path", "directory": "path", "case_insensitive": "-i", "ignore_case": "-i",
		"ignoreCase": "-i", "limit": "head_limit", "max_results": "head_limit", "context_lines": "context"},
	"fs_list": {"recursive": "depth", "max_depth": "depth", "maxDepth": "depth", "pattern": "filter",
		"glob": "filter", "dir_path": "path", "directory": "path"},
	"fs_stat":   {"file_path": "path"},
	"fs_mkdir":  {"dir_path": "path"},
	"fs_delete": {"file_path": "path"},
	"fs_move":   {"src": "source", "from": "source", "dst": "destination", "dest": "destination", "to": "destination", "force": "overwrite"},
	"fs_copy":   {"src": "source", "from": "source", "dst": "destination", "dest": "destination", "to": "destination", "force": "overwrite"},
	"fs_bash":   {"cmd": "command", "cwd": "cd in command", "timeout_ms": "timeout"},
}

// withHints sets each tool's hints.
func withHints(tools []toolkit.Tool) []toolkit.Tool {
	for i := range tools {
		tools[i].Hints = hints[tools[i].Def.Name]
	}
	return tools
}
