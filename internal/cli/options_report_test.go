package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func loadOptions(t *testing.T, file string, args ...string) (runOptions, error) {
	t.Helper()
	o := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse(append([]string{"--options", file}, args...)); err != nil {
		t.Fatal(err)
	}
	return o, o.load(fs)
}

func TestImplementationAndHistoryFromTheOptionsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "options.yaml")
	if err := os.WriteFile(file, []byte(`
history: runs
implementation:
  organization: Example Org
  project: example-admission
  url: https://example.com
  version: v1.0.0
  contact: ["@example"]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := loadOptions(t, file, "--implementation-version", "v1.0.1")
	if err != nil {
		t.Fatal(err)
	}
	impl := o.Implementation
	if o.History != "runs" || impl.Organization != "Example Org" || impl.Version != "v1.0.1" || !reflect.DeepEqual(impl.Contact, []string{"@example"}) {
		t.Errorf("options %+v", o)
	}

	if err := os.WriteFile(file, []byte("implementation:\n  project: only-a-project\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadOptions(t, file); err == nil || !strings.Contains(err.Error(), "organization, url, version missing") {
		t.Errorf("an incomplete implementation in the file: %v", err)
	}
}
