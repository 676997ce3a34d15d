package main

import "github.com/fsmcp/fsmcp/toolkit"

// openAudit opens --audit-log; no path, no audit log.
func openAudit(path string) (*toolkit.Audit, error) {
	if path == "" {
		return nil, nil
	}
	return toolkit.OpenAudit(path)
}
