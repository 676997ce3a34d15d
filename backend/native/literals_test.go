package native

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// needlesOf returns the prefilter of src as the matcher builds it:
// "lit:X", "set:[...]" (f marks a case-folded needle), "nonascii" or
// "none"; "!" marks a complete set (a needle found is a match).
func needlesOf(t *testing.T, src string, fold bool) string {
	t.Helper()
	p, err := pattern.Compile(backend.GrepQuery{Pattern: src, IgnoreCase: fold})
	if err != nil {
		t.Fatal(err)
	}
	m := newMatcher(p, backend.GrepQuery{})
	bang := ""
	if m.complete {
		bang = "!"
	}
	switch {
	case m.lit != nil:
		return "lit:" + string(m.lit) + bang
	case m.multi != nil:
		var s []string
		for _, n := range m.multi.needles {
			f := ""
			if n.Fold {
				f = "f"
			}
			s = append(s, n.Text+f)
		}
		sort.Strings(s)
		return fmt.Sprintf("set:%v%s", s, bang)
	case m.nonASCII:
		return "nonascii"
	}
	return "none"
}

func TestExtractNeedles(t *testing.T) {
	for _, c := range []struct {
		pat  string
		fold bool
		want string
	}{
		{"PM_RESUME", false, "lit:PM_RESUME!"},
		{"PM_RESUME", true, "set:[pm_resumef pm_reſumef]!"},
		{"ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", false, "set:[CFG_BME_EVT ERR_SYS LINK_REQ_RST PME_TURN_OFF]!"},
		{"ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", true, "set:[cfg_bme_evtf err_sysf err_syſf err_ſysf err_ſyſf link_req_rstf link_req_rſtf lin\u212a_req_rstf lin\u212a_req_rſtf pme_turn_offf]!"},
		{`\bPM_RESUME\b`, false, "lit:PM_RESUME"},
		{`[A-Z]+_SUSPEND`, false, "lit:_SUSPEND"},
		{`\p{Greek}`, false, "nonascii"},
		{`\w+\s+\w+_ops\b`, false, "lit:_ops"},
		{`abc|abd`, false, "set:[abc abd]!"},
		{`foo(bar|baz)qux`, false, "set:[foobarqux foobazqux]!"},
		{`x+y`, false, "lit:xy"},
		{`(?i)hello`, false, "set:[hellof]!"},
		{`(?i)kelvin`, false, "set:[kelvinf \u212aelvinf]!"},
		{`(?i)sk`, false, "set:[skf s\u212af ſkf ſ\u212a]!"},
		{`a.*b`, false, "lit:b"},
		{`a?b`, false, "lit:b"},
		{`a|b.*`, false, "set:[a b]"},
		{`a|.*`, false, "none"},
		{`\w+`, false, "none"},
		{`é|ü`, false, "set:[é ü]!"},
		{`[α-ω]+x`, false, "lit:x"},
		{`[α-ω]+`, false, "nonascii"},
		{`(?i)é`, false, "set:[É é]!"},
		{`(?i)ſ`, false, "set:[sf ſ]!"},
		{`^$`, false, "none"},
		{``, false, "none"},
	} {
		if got := needlesOf(t, c.pat, c.fold); got != c.want {
			t.Errorf("%q fold=%v: %s, want %s", c.pat, c.fold, got, c.want)
		}
	}
}

func TestFoldProductOverflow(t *testing.T) {
	// 2^9 spellings of "sssssssss": the first six letters' 64 are kept.
	got := needlesOf(t, "sssssssss", true)
	if strings.Count(got, " ")+1 != 64 || strings.HasSuffix(got, "!") {
		t.Errorf("needles %s", got)
	}
}
