package main

import (
	"fmt"
	"net"
)

// clientURL is the /mcp address to print for a listener on addr. A
// listener on every interface (0.0.0.0, [::], as in the image) has no
// address a client can use as is: the loopback one is printed, with a
// note saying what to use from elsewhere (in a container, the host port
// mapped to this one).
func clientURL(addr string) (url, note string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/mcp", ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", port) + "/mcp",
			fmt.Sprintf("listening on every interface (%s): from another machine use this one's address; in a container, the host's address and the port mapped to %s", addr, port)
	}
	return "http://" + addr + "/mcp", ""
}
