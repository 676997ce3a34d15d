package main

import "github.com/fsmcp/fsmcp/profile"

// openAudit opens --audit-log; no path, no audit log.
func openAudit(path string) (*profile.Audit, error) {
	if path == "" {
		return nil, nil
	}
	return profile.OpenAudit(path)
}
