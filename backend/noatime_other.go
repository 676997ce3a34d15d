//go:build !linux

package backend

// ONoAtime: no such flag here (see noatime_linux.go); 0 asks nothing.
const ONoAtime = 0
