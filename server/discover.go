package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statefulVersions are the protocol versions the stateful Streamable HTTP
// endpoint serves: those with the initialize handshake, before 2026-07-28.
func statefulVersions() []string {
	var vs []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}

// answerDiscover answers a sessionless server/discover probe that reached
// the stateful handler (byEra sends those with a 2026-07-28 header to the
// stateless one) with the SEP-2575 error -32022 listing the versions
// served. Left to the SDK, the stateful endpoint answers the probe with a
// result that omits the version the client asked for; a client then stays
// on that version and every later request fails. The error makes it fall
// back to the initialize handshake.
func answerDiscover(next http.Handler) http.Handler {
	versions := statefulVersions()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		// What the body holds is decided once, as the SDK reads it (readOnce).
		msgs := messagesOf(r)
		if len(msgs) != 1 {
			next.ServeHTTP(w, r)
			return
		}
		req, ok := msgs[0].(*jsonrpc.Request)
		if !ok || req.Method != "server/discover" || !req.IsCall() {
			next.ServeHTTP(w, r)
			return
		}
		var params map[string]json.RawMessage // keys as they are, as the SDK reads them
		var meta map[string]any
		if json.Unmarshal(req.Params, &params) == nil {
			json.Unmarshal(params["_meta"], &meta)
		}
		id, _ := json.Marshal(req.ID.Raw())
		requested, _ := meta["io.modelcontextprotocol/protocolVersion"].(string)
		if requested == "" {
			requested = r.Header.Get("Mcp-Protocol-Version")
		}
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: versions, Requested: requested})
		resp, _ := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *jsonrpc.Error  `json:"error"`
		}{"2.0", id, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version " + requested + "; this endpoint serves " + strings.Join(versions, ", ") + " with initialize", Data: data}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest) // as the SDK answers -32022 over HTTP
		w.Write(resp)
	})
}
