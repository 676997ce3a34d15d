//go:build linux && !amd64 && !arm64

package shell

// Other architectures have no trap table: commands run untraced there,
// and the journal says their changes are not kept.
const (
	auditArch = 0
	x32Bit    = 0
)

var (
	traps      map[uintptr]trap
	refused    []uintptr
	setIDCalls []modeCall
)
