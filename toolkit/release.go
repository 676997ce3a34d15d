package toolkit

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// releaseOver is how much a call may allocate before the memory is
// handed back to the system when it ends. Go keeps freed memory for
// minutes (issue 25: ~875 MB stayed resident after a 200 MB fs_edit);
// returning it costs a full collection, worth it only after a large call.
const releaseOver = 64 << 20

// allocsMetric is the runtime's running total of bytes allocated.
const allocsMetric = "/gc/heap/allocs:bytes"

// releaser hands freed memory back to the system after large calls; one
// per Env (its zero value is ready), so two servers built side by side
// (in tests) keep their own pace.
type releaser struct {
	// releasing is set while a release runs, so calls ending together
	// release once rather than queue behind each other.
	releasing atomic.Bool
	// released is allocated() when the last release began: under load,
	// where every call overlaps large ones, releases stay one per
	// releaseOver bytes allocated, as cheap as the collector's own pace.
	released atomic.Uint64
}

// allocated is the bytes allocated since the process started.
func allocated() uint64 {
	s := []metrics.Sample{{Name: allocsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// releaseIfLarge returns freed memory to the system when more than
// releaseOver bytes were allocated since since (a call's start, from
// allocated) and since the last release. Other calls' allocations count
// too: a release is harmless.
func (r *releaser) releaseIfLarge(since uint64) {
	now := allocated()
	if now-max(since, r.released.Load()) <= releaseOver || !r.releasing.CompareAndSwap(false, true) {
		return
	}
	defer r.releasing.Store(false)
	r.released.Store(now)
	debug.FreeOSMemory()
}

// release hands the memory a large call freed back to the system when
// it ends.
func release(ctx context.Context, k *call, next func(context.Context)) {
	since := allocated()
	next(ctx)
	k.env.memory.releaseIfLarge(since)
}
