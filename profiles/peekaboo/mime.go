package peekaboo

import (
	"path"
	"strings"
)

// mimeTypes is peekaboo's MIME table, by lower-case extension; anything
// else is text/plain.
var mimeTypes = map[string]string{
	".txt": "text/plain", ".md": "text/markdown", ".html": "text/html", ".htm": "text/html",
	".css": "text/css", ".csv": "text/csv",

	".js": "application/javascript", ".mjs": "application/javascript",
	".ts": "application/typescript", ".tsx": "application/typescript", ".jsx": "text/jsx",
	".json": "application/json", ".py": "text/x-python", ".java": "text/x-java",
	".c": "text/x-c", ".cpp": "text/x-c++", ".h": "text/x-c", ".hpp": "text/x-c++",
	".rs": "text/x-rust", ".go": "text/x-go", ".rb": "text/x-ruby", ".php": "text/x-php",
	".sh": "text/x-sh", ".bash": "text/x-sh", ".zsh": "text/x-sh", ".fish": "text/x-sh",
	".ps1": "text/x-powershell", ".yaml": "text/yaml", ".yml": "text/yaml",
	".toml": "text/toml", ".xml": "text/xml", ".sql": "text/x-sql",

	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
	".bmp": "image/bmp", ".svg": "image/svg+xml", ".webp": "image/webp", ".ico": "image/x-icon",

	".pdf": "application/pdf", ".doc": "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",

	".zip": "application/zip", ".tar": "application/x-tar", ".gz": "application/gzip",
	".rar": "application/x-rar-compressed", ".7z": "application/x-7z-compressed",

	".log": "text/plain", ".conf": "text/plain", ".config": "text/plain", ".ini": "text/plain",
	".env": "text/plain",
}

// mimeOf is a resource's MIME type as peekaboo names it: directories
// inode/directory, files by the extension of their name (".env" is its
// own extension, as in peekaboo), text/plain when the table has none.
func mimeOf(name string, isDir bool) string {
	if isDir {
		return "inode/directory"
	}
	base := strings.ToLower(path.Base(name))
	if i := strings.LastIndexByte(base, '.'); i >= 0 && i < len(base)-1 {
		if m, ok := mimeTypes[base[i:]]; ok {
			return m
		}
	}
	return "text/plain"
}
