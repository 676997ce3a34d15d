// Package registry is fsmcp's entry in the MCP Registry: server.json, at
// the repository's root, describes the npm package and the OCI image, their
// arguments and environment, for the registry and the catalogues and hosts'
// "add server" screens that read it. Its versions are a placeholder, as
// npm/fsmcp/package.json's are, that a release replaces with the version it
// ships (Stamp; make server-json, run by make npm).
package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/fsmcp/fsmcp/internal/jsonorder"
)

// Placeholder is the version server.json holds between releases.
const Placeholder = "0.0.0"

// semver is what a release's version must look like (the Makefile's and
// npm/pack.sh's rule), a leading v allowed.
var semver = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Stamp returns server.json's data with version (a leading v dropped, as
// the npm packages and release files drop it) wherever a release names
// one: the entry's version, each npm package's version and each OCI
// image's tag. Nothing else changes, and keys keep their order.
func Stamp(data []byte, version string) ([]byte, error) {
	if !semver.MatchString(version) {
		return nil, fmt.Errorf("version %q is not semver (1.2.3)", version)
	}
	version = strings.TrimPrefix(version, "v")
	var entry map[string]any
	if err := json.Unmarshal(data, &entry); err != nil {
		return nil, fmt.Errorf("server.json: %v", err)
	}
	entry["version"] = version
	packages, _ := entry["packages"].([]any)
	for i, p := range packages {
		pkg, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("server.json: packages[%d] is not an object", i)
		}
		switch pkg["registryType"] {
		case "npm":
			pkg["version"] = version
		case "oci":
			id, _ := pkg["identifier"].(string)
			image, ok := untagged(id)
			if !ok {
				return nil, fmt.Errorf("server.json: packages[%d]: OCI identifier %q has no tag to set", i, id)
			}
			pkg["identifier"] = image + ":" + version
		default:
			return nil, fmt.Errorf("server.json: packages[%d]: registryType %v: Stamp knows npm and oci", i, pkg["registryType"])
		}
	}
	out, err := jsonorder.Marshal(entry, data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, out, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// untagged is an image reference without its tag (registry/owner/name).
func untagged(ref string) (string, bool) {
	slash := strings.LastIndexByte(ref, '/')
	colon := strings.LastIndexByte(ref, ':')
	if colon <= slash || strings.Contains(ref, "@") {
		return "", false
	}
	return ref[:colon], true
}
