package catalog

import "errors"

// The seed's JSON-RPC error codes (SPEC §6) for the two errors its
// clients tell apart; every profile serving a catalog sends them.
const (
	CodeOutputExists   = 1001
	CodeTargetNotFound = 1002
)

// SeedCode returns the seed's code and message for err when it is one of
// those two errors.
func SeedCode(err error) (code int64, message string, ok bool) {
	var oe *OutputExistsError
	var te *TargetNotFoundError
	switch {
	case errors.As(err, &oe):
		return CodeOutputExists, oe.Error(), true
	case errors.As(err, &te):
		return CodeTargetNotFound, te.Error(), true
	}
	return 0, "", false
}
