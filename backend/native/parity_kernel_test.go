package native

import (
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// kernelQueries are issue 14's queries (ripgrep's benchmark kinds on the
// Linux source), with the spellings their prefilters must not miss.
var kernelQueries = []backend.GrepQuery{
	{Pattern: "PM_RESUME"},
	{Pattern: "PM_RESUME", IgnoreCase: true},
	{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"},
	{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", IgnoreCase: true},
	{Pattern: `\bPM_RESUME\b`},
	{Pattern: `[A-Z]+_SUSPEND`},
	{Pattern: `\p{Greek}`},
	{Pattern: `\w+\s+\w+_ops\b`},
	{Pattern: `(?i)\p{Greek}+ω`},
	{Pattern: `é|ü|Ω`, IgnoreCase: true},
	{Pattern: `sk|ks`, IgnoreCase: true},
}

// kernelFixture is a small tree holding each query's hard cases: every
// case spelling, ſ (long s) and K (Kelvin sign), which fold to s and k;
// word boundaries; Greek letters, the Ohm sign (Greek) and invalid UTF-8.
func kernelFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"pm.c": "case PM_RESUME:\n\tpm_resume(dev);\nPm_ReSuMe\nPM_REſUME\nxPM_RESUMEy\n PM_RESUME_X\n" +
			"#define FOO_SUSPEND 1\nfoo_suspend\n_SUSPEND\nA_SUSPEND B_SUSPEND\n",
		"pcie.h": "ERR_SYS\terr_sys err_syſ\nPME_TURN_OFF pme_turn_off\nLINK_REQ_RST lin\u212a_req_rſt\n" +
			"CFG_BME_EVT\nERR_SY\nLINK_REQ_RS T\nnothing here\n",
		"ops.c": "static const struct file_operations foo_ops = {\nstruct  net_device_ops\tx_ops;\n" +
			"struct file_operations_ops\nconst struct seq_operations\tops;\nfoo _ops\n",
		"greek.txt": "plain ascii\nαβγ\nthe Ω ohm sign\nΩmega ω\nčešće ü é É\nSK sK ſk \u212as\n" +
			strings.Repeat("ascii filler line\n", 500) + "λ at the end",
		"latin1.txt": "caf\xe9 \xce\xb1 \xe9\xce\nPM_RESUME \xff\n",
	})
	return dir
}

func TestParityKernelQueries(t *testing.T) {
	var table []parityQuery
	for _, q := range kernelQueries {
		for _, mode := range []backend.Mode{backend.Count, backend.Content, backend.FilesWithMatches} {
			q.Mode = mode
			table = append(table, parityQuery{name: q.Pattern + " " + mode.String(), q: q})
		}
	}
	runParity(t, kernelFixture(t), table, 0)
}
