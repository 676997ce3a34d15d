package hooks

import "fmt"

// The hosts keep their hooks alike (Claude Code's settings, Codex's
// hooks.json, Gemini CLI's settings): an object "hooks" of event names,
// each a list of groups {"matcher": …, "hooks": [{"type": "command",
// "command": …}]}. fsmcp's group goes last in each event's list, so the
// user's groups keep their places (Codex trusts a hook by its place).

// addGroups appends fsmcp's group for each event, with extra fields of
// the hook (Gemini CLI's "name", a timeout) beside type and command.
func addGroups(d *doc, events []string, matcher, command string, extra map[string]any) {
	hooks, _ := object(d.v, "hooks")
	for _, ev := range events {
		groups, _ := list(hooks, ev)
		h := map[string]any{"type": "command", "command": command}
		for k, v := range extra {
			h[k] = v
		}
		hooks[ev] = append(groups, map[string]any{"matcher": matcher, "hooks": []any{h}})
	}
}

// stripGroups takes the hook commands ours matches out of d's hooks (a
// group left with none goes, and an event left with no group); it
// reports whether there were any, and, per event, where each group that
// stays was before and is now (Codex's trust follows them).
func stripGroups(d *doc, events []string, ours func(string) bool) (bool, map[string][][2]int, error) {
	moved := map[string][][2]int{}
	if d.v["hooks"] == nil {
		return false, moved, nil
	}
	hooks, ok := object(d.v, "hooks")
	if !ok {
		return false, nil, fmt.Errorf("its \"hooks\" is not an object")
	}
	found := false
	for _, ev := range events {
		groups, ok := list(hooks, ev)
		if !ok {
			return false, nil, fmt.Errorf("its \"hooks\".%q is not a list", ev)
		}
		if groups == nil {
			continue
		}
		var kept []any
		for i, g := range groups {
			gm, ok := g.(map[string]any)
			if !ok {
				kept = append(kept, g)
				continue
			}
			hs, _ := gm["hooks"].([]any)
			var left []any
			for _, h := range hs {
				if hm, ok := h.(map[string]any); ok {
					if cmd, _ := hm["command"].(string); ours(cmd) {
						found = true
						continue
					}
				}
				left = append(left, h)
			}
			if len(left) == len(hs) {
				kept = append(kept, g)
			} else if len(left) > 0 {
				gm["hooks"] = left
				kept = append(kept, gm)
			} else {
				continue
			}
			if i != len(kept)-1 {
				moved[ev] = append(moved[ev], [2]int{i, len(kept) - 1})
			}
		}
		if len(kept) == 0 {
			delete(hooks, ev)
		} else {
			hooks[ev] = kept
		}
	}
	if len(hooks) == 0 {
		delete(d.v, "hooks")
	}
	return found, moved, nil
}

// groupIndex is where the group holding ours is in event ev's list, or
// -1.
func groupIndex(d *doc, ev string, ours func(string) bool) int {
	hooks, _ := d.v["hooks"].(map[string]any)
	groups, _ := hooks[ev].([]any)
	for i, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			if hm, ok := h.(map[string]any); ok {
				if cmd, _ := hm["command"].(string); ours(cmd) {
					return i
				}
			}
		}
	}
	return -1
}

// ourCommand is the command of fsmcp's hook for event ev, or "".
func ourCommand(d *doc, ev string, ours func(string) bool) string {
	hooks, _ := d.v["hooks"].(map[string]any)
	groups, _ := hooks[ev].([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			if hm, ok := h.(map[string]any); ok {
				if cmd, _ := hm["command"].(string); ours(cmd) {
					return cmd
				}
			}
		}
	}
	return ""
}
