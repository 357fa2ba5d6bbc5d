package identity

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// impersonates finds code that sets up impersonation itself.
var impersonates = regexp.MustCompile(`\.Impersonate\s*=|ImpersonationConfig\{`)

// allowed are the places that may: the one helper specs use
// (Framework.Impersonate, which takes a registered identity), the transport
// of a whole client config to workers, and the reference initializers'
// installer, which runs only where the harness built the cluster or the
// apiservers reach this host, and creates the ClusterRoles and bindings of
// the users it impersonates.
var allowed = map[string]bool{
	"framework/harness/impersonate.go":          true,
	"internal/parallel/endpoint.go":             true,
	"reference/initializers/install/objects.go": true,
}

// TestSpecsImpersonateRegisteredIdentitiesOnly: the rights the harness
// asks for are derived from this registry, so code that impersonates
// anyone another way would be refused by a cluster that grants exactly
// those rights.
func TestSpecsImpersonateRegisteredIdentitiesOnly(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"suites", "framework", "reference", "internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if impersonates.Match(b) && !allowed[rel] {
				t.Errorf("%s impersonates without harness.Framework.Impersonate (framework/identity)", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestRegistryIsComplete(t *testing.T) {
	for _, id := range All() {
		if id.User == "" || id.Why == "" {
			t.Errorf("%s: a user and a reason are required", id.Name)
		}
		if _, err := Lookup(id.Name); err != nil {
			t.Error(err)
		}
	}
}
