package confine

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"
)

// ErrNoTrace is returned by Trace where a program's processes cannot be
// followed (no ptrace here, or the kernel refuses it).
var ErrNoTrace = errors.New("cannot follow a program's processes here (ptrace)")

// Run is one program for Trace to run.
type Run struct {
	Path string   // absolute
	Args []string // Args[0] is the name the program is called by
	Env  []string
	Dir  string
	// Timeout bounds the whole run; then every process of it is killed.
	Timeout time.Duration
	// Vet, if set, is asked about each program a process executes before
	// that program runs its first instruction; false kills every process
	// of the run, and Trace returns ErrVetoed.
	Vet func(image string) bool
}

// Traced is what Trace saw.
type Traced struct {
	// Images are the programs executed, in order, as the kernel names
	// them (/proc/PID/exe): for a script, its interpreter.
	Images []string
	// Exit is the first process's exit status; -1 if a signal ended it.
	Exit   int
	Stdout []byte // up to traceOutMax bytes of each
	Stderr []byte
}

// ErrVetoed is returned by Trace when Vet refused a program.
var ErrVetoed = errors.New("a program it executes was refused")

// ErrTimedOut is returned by Trace when the run outlasted its Timeout
// (every process of it was killed).
var ErrTimedOut = errors.New("the run did not end in time; every process it started was killed")

// traceOutMax bounds what Trace keeps of each output stream.
const traceOutMax = 64 << 10

// outputGrace is how long Trace reads a run's output once its processes
// have ended.
const outputGrace = time.Second

// Trace runs r confined by p, as Start would, follows every process it
// forks, records every program each of them executes, and waits for all
// of them. Where Landlock is missing it runs unconfined, and Vet is then
// the only guard.
func Trace(r Run, p Policy) (Traced, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return Traced{}, err
	}
	defer null.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return Traced{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Traced{}, err
	}
	var stdout, stderr bytes.Buffer
	drained := make(chan struct{}, 2)
	for _, s := range []struct {
		r   *os.File
		buf *bytes.Buffer
	}{{outR, &stdout}, {errR, &stderr}} {
		go func() {
			io.Copy(s.buf, io.LimitReader(s.r, traceOutMax))
			io.Copy(io.Discard, s.r)
			s.r.Close()
			drained <- struct{}{}
		}()
	}
	t, err := trace(r, p, []*os.File{null, outW, errW})
	outW.Close()
	errW.Close()
	// Every process of the run has ended, so the output ends at once;
	// should anything else have got hold of it (a descriptor sent over a
	// socket), what it prints later is not waited for.
	for _, r := range []*os.File{outR, errR} {
		r.SetReadDeadline(time.Now().Add(outputGrace))
	}
	<-drained
	<-drained
	t.Stdout, t.Stderr = stdout.Bytes(), stderr.Bytes()
	return t, err
}
