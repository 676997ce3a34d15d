package fsmcp

import "github.com/fsmcp/fsmcp/toolkit"

// budget is what a tool's entries may take: the call's answer budget
// (--max-output, or the client's own limit: toolkit.Call.Output) less the
// room for its closing note (toolkit.AnswerBudget.Entries); Max 0 means no
// limit.
func budget(c *toolkit.Call) toolkit.AnswerBudget { return c.Output.Entries() }
