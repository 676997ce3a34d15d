package backend

import "strings"

// DirStack is one worker's open directories along the path of the
// listed file it is at, below Base: a sorted list of names is read with
// each directory opened once, beneath its parent (the index's list of
// names, by the native scanner and by the index's sweep).
type DirStack struct {
	Base int
	// Open opens the directory name beneath parent (sub is its path
	// below Base), or returns -1: not entered (left out, or not a
	// directory now), nor anything below it.
	Open  func(parent int, sub, name string) int
	Close func(fd int)
	open  []stackDir
}

type stackDir struct {
	rel string
	fd  int // -1: not entered
}

// Enter returns the open directory rel ("" is Base), opening what is
// missing of it, and false when it or a directory above it is not
// entered.
func (s *DirStack) Enter(rel string) (int, bool) {
	for len(s.open) > 0 {
		top := s.open[len(s.open)-1].rel
		if top == rel || strings.HasPrefix(rel, top+"/") {
			break
		}
		s.pop()
	}
	for {
		parent, at := s.Base, ""
		if n := len(s.open); n > 0 {
			parent, at = s.open[n-1].fd, s.open[n-1].rel
			if parent < 0 {
				return -1, false
			}
		}
		if at == rel {
			return parent, true
		}
		rest := rel
		if at != "" {
			rest = rel[len(at)+1:]
		}
		name, _, _ := strings.Cut(rest, "/")
		sub := name
		if at != "" {
			sub = at + "/" + name
		}
		s.open = append(s.open, stackDir{rel: sub, fd: s.Open(parent, sub, name)})
	}
}

func (s *DirStack) pop() {
	if fd := s.open[len(s.open)-1].fd; fd >= 0 {
		s.Close(fd)
	}
	s.open = s.open[:len(s.open)-1]
}

// CloseAll closes every directory the stack holds open.
func (s *DirStack) CloseAll() {
	for len(s.open) > 0 {
		s.pop()
	}
}
