package driver

import "golang.org/x/sys/unix"

// dirOpenFlags: an O_PATH handle is enough for fstatat and needs no read
// permission on the directory.
const dirOpenFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC
