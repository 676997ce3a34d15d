package toolkit

import "context"

// stale tells the server, after a tool that may write, that search
// results it kept may be out of date.
func stale(ctx context.Context, k *call, next func(context.Context)) {
	next(ctx)
	if !k.tool.ReadOnly() && k.env.Changed != nil {
		k.env.Changed()
	}
}
