package toolkit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// word gives an error the table's words (Table.Errors): an isError
// result with its text, or a protocol error; and says which arguments
// were ignored (ReportExtra).
func word(ctx context.Context, k *call, next func(context.Context)) {
	next(ctx)
	if k.err != nil {
		k.cause = k.err
		err := k.err
		if k.tab.Errors != nil {
			err = k.tab.Errors(err)
		}
		if ae, ok := err.(*ArgError); ok {
			err = ae.rpc()
		}
		if _, ok := err.(*jsonrpc.Error); ok {
			k.res, k.err = nil, keepMessage(err)
			return
		}
		k.res, k.err = ErrorText(err), nil
	}
	if len(k.ignored) > 0 && k.res != nil {
		appendLine(k.res, k.tool.ignoredLine(k.ignored))
	}
}

// explain adds to a handler's error what the call tells about it
// (Table.Explain), and names the call's roots in an outside refusal
// (Table.NameRoots).
func explain(ctx context.Context, k *call, next func(context.Context)) {
	next(ctx)
	if k.err != nil && k.tab.Explain != nil {
		k.err = k.tab.Explain(k.c, k.err)
	}
	k.err = k.tab.refusal(k.err, k.sb)
}
