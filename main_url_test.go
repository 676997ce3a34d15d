package main

import (
	"strings"
	"testing"
)

// TestTokenBannerNamesAUsableAddress pins that the address printed for a
// listener on every interface (the image's 0.0.0.0:8080, or [::]:8080) is
// one a client can use, with a note on the mapped port, never
// http://[::]:8080/mcp.
func TestTokenBannerNamesAUsableAddress(t *testing.T) {
	for _, c := range []struct{ addr, url string }{
		{"[::]:8080", "http://127.0.0.1:8080/mcp"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/mcp"},
		{"127.0.0.1:18080", "http://127.0.0.1:18080/mcp"},
		{"[::1]:8080", "http://[::1]:8080/mcp"},
	} {
		url, note := clientURL(c.addr)
		if url != c.url {
			t.Errorf("clientURL(%s) = %s, want %s", c.addr, url, c.url)
		}
		if unspecified := strings.HasPrefix(c.addr, "[::]") || strings.HasPrefix(c.addr, "0.0.0.0"); unspecified != (note != "") || (note != "" && !strings.Contains(note, "port mapped to 8080")) {
			t.Errorf("clientURL(%s) note = %q", c.addr, note)
		}
	}
}
