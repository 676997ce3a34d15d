package toolkit

import "context"

// admit makes a tool that walks the tree itself (Tool.Search) wait for
// a search slot, under the one --max-searches bound and its fair queue,
// as a grep does.
func admit(ctx context.Context, k *call, next func(context.Context)) {
	if !k.tool.Search || k.env.Admission == nil {
		next(ctx)
		return
	}
	actx, release, err := k.env.Admission.Enter(ctx)
	if err != nil {
		k.err = err
		return
	}
	defer release()
	next(actx)
}
