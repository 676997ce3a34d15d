// Command handover is a mise-style shim for the tests: installed as
// bin/mise with shims/NAME linking to it, it runs as NAME the binary
// installs/NAME beside its own directory, as mise's shims hand over to
// the tool version they pick.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "handover:", err)
		os.Exit(126)
	}
	name := filepath.Base(os.Args[0])
	target := filepath.Join(filepath.Dir(filepath.Dir(self)), "installs", name)
	err = syscall.Exec(target, append([]string{name}, os.Args[1:]...), os.Environ())
	fmt.Fprintf(os.Stderr, "handover: %s: %v\n", target, err)
	os.Exit(126)
}
