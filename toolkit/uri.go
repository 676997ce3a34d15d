package toolkit

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/fsmcp/fsmcp/sandbox"
)

// URIError refuses a resource URI by the file URI rule (ResolveURI);
// its text names the URI and why.
type URIError struct {
	URI    string
	Reason string // ": only file:// URIs are supported", " is malformed: ..."
}

func (e *URIError) Error() string { return fmt.Sprintf("resource URI %q%s", e.URI, e.Reason) }

// ResolveURI contains a resource's file:// URI in sb: the path rule for
// URIs, beside PathRule for tool arguments. It refuses (a *URIError)
// other schemes, a host, a relative path, a query or fragment, a NUL
// byte and traversal (encoded or not); the sandbox refuses the rest
// (outside the roots) with its own errors.
func ResolveURI(sb *sandbox.Sandbox, uri string) (*sandbox.Path, error) {
	u, err := url.Parse(uri)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &URIError{uri, fmt.Sprintf(" is malformed: %v", err)}
	}
	switch {
	case u.Scheme != "file":
		return nil, &URIError{uri, ": only file:// URIs are supported"}
	case u.Host != "":
		return nil, &URIError{uri, ": a file URI must have an empty host and an absolute path (file:///path)"}
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return nil, &URIError{uri, ": the path must be absolute (file:///path)"}
	case u.RawQuery != "" || u.Fragment != "":
		return nil, &URIError{uri, ": a query or fragment is not allowed"}
	case strings.ContainsRune(u.Path, 0):
		return nil, &URIError{uri, ": the path contains a NUL byte"}
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == ".." || seg == "." {
			return nil, &URIError{uri, fmt.Sprintf(": path traversal (%q) is not allowed", seg)}
		}
	}
	return sb.Resolve(u.Path)
}
