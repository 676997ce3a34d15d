package toolkit

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// journalStep makes the call one entry of the change journal, and adds
// what the entry says (a change it could not keep) to the answer.
func journalStep(ctx context.Context, k *call, next func(context.Context)) {
	if k.env.Journal == nil {
		next(ctx)
		return
	}
	session := ""
	if k.req.Session != nil {
		session = k.req.Session.ID()
	}
	ctx, end := k.env.Journal.BeginCall(ctx, k.req.Params.Name, session, clientName(k.req), k.sb.Roots())
	next(ctx)
	// Its own content item: a drop-in's answer (JSON text) stays whole.
	if notes := end(); len(notes) > 0 && k.res != nil {
		k.res.Content = append(k.res.Content, &mcp.TextContent{Text: strings.Join(notes, "\n")})
	}
}

// clientName is the name the client gave at initialize ("" if none).
func clientName(req *mcp.CallToolRequest) string {
	if req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}
