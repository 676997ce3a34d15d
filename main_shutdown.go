package main

import (
	"context"
	"net"
	"net/http"
)

// endStreamsOnShutdown gives every request of hs a context that the
// returned func cancels: an open SSE stream (a client's GET /mcp) never
// ends by itself, so a graceful Shutdown would wait for it until its
// deadline and report a normal stop as an error.
func endStreamsOnShutdown(hs *http.Server) (endStreams func()) {
	ctx, cancel := context.WithCancel(context.Background())
	hs.BaseContext = func(net.Listener) context.Context { return ctx }
	return cancel
}
