// Package shellrec journals a traced command's changes: each event the
// shell's supervisor reports becomes the journal call that keeps what
// the path held, in the command's step while it runs and in steps of
// their own for what it left running. fs_bash and fsmcp run use it.
package shellrec

import (
	"context"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/shell"
)

// Recorder is a command's shell.Recorder: what the command changes goes
// into its journal step while it runs; what the processes it left
// running change afterwards goes into a step of its own (the tool's name
// and " (background)"), ended after a quiet second.
type Recorder struct {
	set     *journal.Set
	command string
	label   journal.Actor

	mu   sync.Mutex
	ctx  context.Context  // the call's, carrying its step, until done
	sb   *sandbox.Sandbox // the call's sandbox, until done
	base *sandbox.Sandbox // the session's (the call's roots'), after
	// own is base's clone, which the background's journaling owns from
	// the command's return until its last process ends (Finished): the
	// call's roots (a 2026-07-28 client's) are closed when it returns.
	own      *sandbox.Sandbox
	done     bool
	finished bool
	bg       *journal.Step
	bgCx     context.Context
	idle     *time.Timer
	// wrote lists, by process, the files opened for writing in the
	// call's step (stillOpen).
	wrote map[int][]string
}

// unreadable is the note of a command that changed a path too long to
// read: it may lie in the roots, and is not kept.
const unreadable = "a change at a path longer than the system's PATH_MAX (4096 bytes) could not be read, so it was not kept: an undo leaves what it made or changed there"

// bgQuiet is how long background changes may pause before their step
// ends (each new change after that starts another).
const bgQuiet = time.Second

// New returns the recorder of a command run in a call whose context
// carries its journal step (nil when there is no journal). sb is the
// call's sandbox, base what its background is journaled through (the
// session's). actor.Tool names the background's steps.
func New(ctx context.Context, sb, base *sandbox.Sandbox, command string, actor journal.Actor) *Recorder {
	step := journal.From(ctx)
	if step.Set() == nil {
		return nil
	}
	step.Command(command)
	return &Recorder{set: step.Set(), command: command, label: actor, ctx: ctx, sb: sb, base: base}
}

// Returned says the command returned: later changes are background ones
// (shell.Recorder).
func (b *Recorder) Returned() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if b.finished {
		return
	}
	if own, err := b.base.Clone(); err == nil {
		b.own = own
	}
}

// Finished says no change follows (shell.Finisher): the last process
// the command left has ended, or it was never traced. The background's
// step ends now, and the sandbox it journaled through is let go.
func (b *Recorder) Finished() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.bg != nil {
		b.idle.Stop()
		b.bg.End(b.bgCx)
		b.bg = nil
	}
	if b.own != nil {
		b.own.Close()
		b.own = nil
	}
}

// StillOpen marks, in the call's step, the files the command's processes
// still running may write after it ends: those they hold open for
// writing (writing), and every file a process still running (running)
// opened for writing in the call, which it may hold still though the
// look at its descriptors came a moment too early to see it (an open
// let go on just before, not yet done).
func (b *Recorder) StillOpen(writing []string, running []int) {
	b.mu.Lock()
	for _, pid := range running {
		writing = append(writing, b.wrote[pid]...)
	}
	b.wrote = nil
	b.mu.Unlock()
	for _, path := range writing {
		if p, err := b.sb.Resolve(path); err == nil {
			journal.StillOpen(b.ctx, p)
		}
	}
}

// Before records what ev is about to change (shell.Recorder). A path
// outside the roots (the private temp directory, /dev/null) is not the
// journal's.
func (b *Recorder) Before(ev shell.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, sb := b.ctx, b.sb
	if b.done {
		if b.own == nil {
			return // no sandbox to journal through (its clone failed, or all ended)
		}
		ctx, sb = b.background()
	}
	if ev.Change == shell.Unreadable {
		journal.From(ctx).Note(unreadable)
		return
	}
	if ev.Change == shell.Meta && !ev.Follow && journal.KeptWhole(ctx, ev.Path) {
		return
	}
	p, err := sb.Resolve(ev.Path)
	to, terr := sb.Resolve(ev.To)
	if err != nil {
		if ev.Change == shell.Rename && terr == nil {
			journal.Gone(ctx, to)     // something moved in from outside replaces it,
			journal.MadeTree(ctx, to) // a whole tree the undo takes out again
		}
		return
	}
	if ev.Change == shell.Write && !b.done {
		if b.wrote == nil {
			b.wrote = map[int][]string{}
		}
		b.wrote[ev.Pid] = append(b.wrote[ev.Pid], ev.Path)
	}
	switch ev.Change {
	case shell.Write, shell.Create:
		if ev.Change == shell.Create && terr == nil {
			journal.Linked(ctx, to, p) // a hard link: a later write through either changes both
		}
		switch {
		case ev.Seen != nil:
			journal.KeepSeen(ctx, p, ev.Seen.Info, ev.Seen.Err)
		case ev.Follow:
			journal.KeepTarget(ctx, p)
		default:
			journal.Keep(ctx, p)
		}
	case shell.Remove:
		if ev.RemoveDir {
			journal.GoneDir(ctx, p)
			return
		}
		journal.Gone(ctx, p)
	case shell.Rename:
		if terr != nil {
			if ev.CrossMount {
				return // it fails by itself; mv then copies and removes
			}
			// Moved out of the roots: a copy, since what leaves lives on
			// (and may change) outside, a directory's tree with it.
			if journal.Leaving(ctx, p) != nil {
				journal.Gone(ctx, p)
			}
			return
		}
		if ev.NoReplace {
			journal.MovedNoReplace(ctx, p, to)
			return
		}
		journal.Moved(ctx, p, to)
	case shell.Exchange:
		if terr != nil {
			journal.Gone(ctx, p) // swapped with something outside the roots
			return
		}
		journal.Exchanged(ctx, p, to)
	case shell.Flags:
		journal.Flags(ctx, p, ev.Follow)
	case shell.Meta:
		switch {
		case ev.Seen != nil:
			journal.MetaSeen(ctx, p, ev.Seen.Info, ev.Seen.Err)
		case ev.Follow:
			journal.MetaTarget(ctx, p)
		default:
			journal.Meta(ctx, p)
		}
	}
}

// background returns the step of changes made after the call returned,
// starting one when none is open (b.mu held).
func (b *Recorder) background() (context.Context, *sandbox.Sandbox) {
	if b.bg == nil {
		a := b.label
		a.Tool, a.Command = b.label.Tool+" (background)", b.command
		b.bg = b.set.Begin(a, b.own.Roots())
		b.bg.Command(b.command)
		b.bgCx = journal.With(context.Background(), b.bg)
		b.idle = time.AfterFunc(bgQuiet, b.endBackground)
	} else {
		b.idle.Reset(bgQuiet)
	}
	return b.bgCx, b.own
}

// endBackground ends the background step after a quiet spell.
func (b *Recorder) endBackground() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bg != nil {
		b.bg.End(b.bgCx)
		b.bg = nil
	}
}
