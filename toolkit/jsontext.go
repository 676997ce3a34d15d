package toolkit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// IndentedJSON is JavaScript's JSON.stringify(v, null, 2), which several
// originals answer with: two-space indent, no HTML escaping, no final
// newline.
func IndentedJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
