//go:build linux

package index

import "sync"

// overlayCap bounds the changes an overlay holds; past it the root is
// searched as without pruning until it is indexed again.
const overlayCap = 200000

// overlay is what changed below a root since its index was checked.
type overlay struct {
	mu       sync.Mutex
	broken   string              // why pruning is off ("" while exact)
	files    map[string]struct{} // paths (relative) of entries changed
	subtrees map[string]struct{} // directories whose whole subtree is unknown
	// inodes are the inodes (inodeGroups' numbers) whose own watch
	// reported a change: written, linked or unlinked, by whatever name.
	inodes map[int]struct{}
}

func newOverlay() *overlay {
	return &overlay{files: map[string]struct{}{}, subtrees: map[string]struct{}{}, inodes: map[int]struct{}{}}
}

// changedInode records that the file inode numbered g (inodeGroups)
// changed: every name of it is read from now on.
func (o *overlay) changedInode(g int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.broken != "" {
		return
	}
	o.inodes[g] = struct{}{}
	if len(o.files)+len(o.subtrees)+len(o.inodes) > overlayCap {
		o.breakOff("more changes than the overlay holds")
	}
}

// changed records that rel (a file or directory) changed; a directory
// created, moved in or whose ignore rules changed counts as a subtree.
func (o *overlay) changed(rel string, subtree bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.broken != "" {
		return
	}
	if subtree {
		o.subtrees[rel] = struct{}{}
	} else {
		o.files[rel] = struct{}{}
	}
	if len(o.files)+len(o.subtrees)+len(o.inodes) > overlayCap {
		o.breakOff("more changes than the overlay holds")
	}
}

// breakOff turns pruning off: events were lost or cannot be trusted.
// o.mu is held.
func (o *overlay) breakOff(why string) {
	if o.broken == "" {
		o.broken = why
	}
	o.files, o.subtrees, o.inodes = nil, nil, nil
}

func (o *overlay) fail(why string) {
	o.mu.Lock()
	o.breakOff(why)
	o.mu.Unlock()
}

// snapshot copies the changes for one search.
func (o *overlay) snapshot() (files, subtrees map[string]struct{}, inodes []int, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.broken != "" {
		return nil, nil, nil, false
	}
	for g := range o.inodes {
		inodes = append(inodes, g)
	}
	files = make(map[string]struct{}, len(o.files))
	for k := range o.files {
		files[k] = struct{}{}
	}
	subtrees = make(map[string]struct{}, len(o.subtrees))
	for k := range o.subtrees {
		subtrees[k] = struct{}{}
	}
	return files, subtrees, inodes, true
}

// size is how many changes o holds, and whether it lost track of them.
func (o *overlay) size() (n int, lost bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.files) + len(o.subtrees) + len(o.inodes), o.broken != ""
}
