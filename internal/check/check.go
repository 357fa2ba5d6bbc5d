// Package check checks user input before anything is started or created,
// so that bad input is one line and exit 2, never a cluster started for
// nothing.
package check

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/distribution/reference"
	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
)

var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// LabelFilter parses a label filter with Ginkgo's own parser, as the
// run would once the cluster is up.
func LabelFilter(flag, filter string) error {
	if _, err := types.ParseLabelFilter(filter); err != nil {
		reason := err.Error()
		var ge types.GinkgoError
		if errors.As(err, &ge) {
			// The message is the filter with the bad spot highlighted, then
			// what is wrong: keep the latter.
			lines := strings.Split(strings.TrimSpace(ansiCodes.ReplaceAllString(ge.Message, "")), "\n")
			reason = lines[len(lines)-1]
		}
		return exitcode.Usagef("%s %q is not a label filter: %s (syntax: labels joined by &&, ||, ! and parentheses, e.g. 'suite:ordering && !profile:extended'; see 'run-conformance list' for the labels)",
			flag, filter, strings.TrimSpace(reason))
	}
	return nil
}

// Regexps compiles the --focus and --skip expressions as Ginkgo would.
func Regexps(flag string, exprs []string) error {
	for _, e := range exprs {
		if _, err := regexp.Compile(e); err != nil {
			return exitcode.Usagef("%s %q is not a regular expression: %v", flag, e, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	}
	return nil
}

// OutputDir checks that dir is a directory or can be created as one:
// it is not a file, and its nearest existing parent is a directory.
func OutputDir(flag, dir string) error {
	if dir == "" {
		return exitcode.Usagef("%s must not be empty", flag)
	}
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err == nil {
			if !info.IsDir() {
				if p == filepath.Clean(dir) {
					return exitcode.Usagef("%s %s is a file, not a directory: give a directory", flag, dir)
				}
				return exitcode.Usagef("%s %s cannot be created: %s is a file", flag, dir, p)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return exitcode.Usagef("%s %s: %v", flag, dir, err)
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

// HistoryDir checks a history dir: a directory to be, or one whose
// kept runs read.
func HistoryDir(flag, dir string) error {
	if err := OutputDir(flag, dir); err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil // created when the run is kept
	}
	if _, err := history.Runs(dir); err != nil {
		return exitcode.Usagef("%s %s holds a run that does not read: %v (give another dir, or remove that run)", flag, dir, err)
	}
	return nil
}

// ImageRef parses an image reference as container runtimes do;
// tagged requires a tag and no digest.
func ImageRef(flag, ref string, tagged bool) error {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return exitcode.Usagef("%s %q is not an image reference: %v (e.g. registry.example/name:tag)", flag, ref, err)
	}
	if tagged {
		_, hasTag := named.(reference.Tagged)
		_, hasDigest := named.(reference.Digested)
		if !hasTag || hasDigest {
			return exitcode.Usagef("%s %q needs a tag and no digest (e.g. registry.example/name:v1)", flag, ref)
		}
	}
	return nil
}

// kindClusterName is what kind accepts as a cluster name.
var kindClusterName = regexp.MustCompile(`^[a-z0-9.-]+$`)

// KindClusterName checks --kind-cluster.
func KindClusterName(name string) error {
	if name != "" && !kindClusterName.MatchString(name) {
		return exitcode.Usagef("--kind-cluster %q is not a kind cluster name: use lowercase letters, digits, '.' and '-'", name)
	}
	return nil
}

// RunID checks cleanup's --run: a run ID is a label value.
func RunID(id string) error {
	if errs := validation.IsValidLabelValue(id); id == "" || len(errs) > 0 {
		return exitcode.Usagef("--run %q is not a run ID (the value of the %s label on what a run created, e.g. 1a2b3c4d)", id, harness.RunLabel)
	}
	return nil
}
