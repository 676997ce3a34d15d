package toolkit

import "context"

// clock bounds the call by --timeout, but for a tool that bounds its
// own run time (fs_bash).
func clock(ctx context.Context, k *call, next func(context.Context)) {
	if k.tool.OwnTimeout || k.env.Limits.Timeout <= 0 {
		next(ctx)
		return
	}
	with := k.env.CallClock
	if with == nil {
		with = context.WithTimeout
	}
	ctx, cancel := with(ctx, k.env.Limits.Timeout)
	defer cancel()
	next(ctx)
}
