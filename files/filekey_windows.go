package files

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/fsmcp/fsmcp/sandbox"
)

// fileKey identifies the file by volume and file index, so a symlink or
// another spelling shares the key; by its resolved name if that fails.
func fileKey(f *os.File, _ fs.FileInfo, t *sandbox.Path) any {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err == nil {
		return [3]uint32{info.VolumeSerialNumber, info.FileIndexHigh, info.FileIndexLow}
	}
	return t.Root.Path + "/" + t.Rel
}
