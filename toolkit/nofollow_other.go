//go:build !unix

package toolkit

// oNoFollow: no such open flag here; OpenAudit's regular-file check stands.
const oNoFollow = 0
