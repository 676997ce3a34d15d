// Command serverjson writes fsmcp's MCP Registry entry for a release: the
// repository's server.json with the release's version in place of the
// placeholder (the entry's, the npm package's, the image's tag).
//
//	go run ./packaging/serverjson VERSION IN OUT
//
// make server-json (run by make npm) writes dist/server.json so; publish it
// with mcp-publisher publish dist/server.json.
package main

import (
	"fmt"
	"os"

	"github.com/fsmcp/fsmcp/internal/registry"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: serverjson VERSION IN OUT")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[2])
	if err == nil {
		data, err = registry.Stamp(data, os.Args[1])
	}
	if err == nil {
		err = os.WriteFile(os.Args[3], data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serverjson:", err)
		os.Exit(1)
	}
	fmt.Println(os.Args[3])
}
