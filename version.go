package main

import "runtime/debug"

// version is set at build time with -ldflags "-X main.version=...". When it
// is not (go build, go install), the module version or VCS revision from the
// build info stands in, so --version and serverInfo still say which build
// this is.
var version = ""

// buildVersion is the version --version and serverInfo give.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev + dirty
}
