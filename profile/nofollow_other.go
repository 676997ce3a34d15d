//go:build !unix

package profile

// oNoFollow: no such open flag here; OpenAudit's regular-file check stands.
const oNoFollow = 0
