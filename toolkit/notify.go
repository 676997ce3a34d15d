package toolkit

import (
	"context"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk sends notifications/resources/updated only to the sessions
// that subscribed to that exact URI (Server.ResourceUpdated), and has no
// public way to send a notification to one session. fs_watch needs the
// latter: its events go to the session that started the watch. So
// notifySession sends a stand-in notification through the session's public
// NotifyProgress, marked in its context, and SessionNotifier — a sending
// middleware Register installs — swaps it for the real one on its way
// out. Nothing else is affected: an unmarked notification passes through.

// notifyTimeout bounds how long one notification may wait on a slow client.
const notifyTimeout = 5 * time.Second

type redirectKey struct{}

type redirect struct {
	method string
	params mcp.Params
}

// notifySession sends a notification to one session. It must not be called
// with a request's context: the notification then belongs to no request and
// travels on the session's own stream.
func notifySession(ss *mcp.ServerSession, method string, params mcp.Params) error {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	ctx = context.WithValue(ctx, redirectKey{}, &redirect{method, params})
	return ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{})
}

// SessionNotifier is the sending middleware that completes notifySession.
func SessionNotifier(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := ctx.Value(redirectKey{}).(*redirect)
		if !ok || method != "notifications/progress" {
			return next(ctx, method, req)
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		return next(ctx, r.method, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: r.params})
	}
}

// FileURI is the file:// URI of an absolute path.
func FileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// NotifyUpdated tells one session that the resource at abs changed.
func NotifyUpdated(ss *mcp.ServerSession, abs string) error {
	return notifySession(ss, "notifications/resources/updated", &mcp.ResourceUpdatedNotificationParams{URI: FileURI(abs)})
}
