//go:build !unix

package main

import (
	"errors"
	"os/exec"
)

var journalUser *struct{}

func parseUser(string) error { return errors.New("-journal-user needs a Unix system") }

func asUser(*exec.Cmd, string, string) error { return nil }
