//go:build unix

package shell

import "time"

const (
	// drainGrace is how long, once bash has exited, the call waits for
	// EOF on its pipes. Output that bash and its foreground children
	// wrote is in the pipe by then (and is read in any case); only a
	// process bash does not wait for, which keeps a pipe open, makes the
	// call wait this long, and what it writes meanwhile is included.
	drainGrace = 100 * time.Millisecond
	// maxLateBytes bounds what is read without waiting once drainGrace
	// is over: more than a pipe holds, so nothing written before bash
	// exited is lost.
	maxLateBytes = 4 << 20
	// markerLimit bounds what is kept from the marker descriptor.
	markerLimit = 64 << 10
)

func (r *Result) addNotice(s string) {
	if r.Notice != "" {
		r.Notice += "\n"
	}
	r.Notice += s
}
