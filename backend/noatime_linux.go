package backend

import "golang.org/x/sys/unix"

// ONoAtime is the open flag that leaves a file's or directory's access
// time as it was when fsmcp reads it for its own upkeep (the index's
// walks and reads), where the system has one: Linux's O_NOATIME. The
// kernel grants it to the file's owner (or CAP_FOWNER) only, so a caller
// opens again without it on EPERM.
const ONoAtime = unix.O_NOATIME
