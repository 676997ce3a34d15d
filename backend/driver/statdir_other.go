//go:build unix && !linux

package driver

import "golang.org/x/sys/unix"

// dirOpenFlags: without O_PATH the directory is opened for reading.
const dirOpenFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
