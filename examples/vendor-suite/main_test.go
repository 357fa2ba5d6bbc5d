package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/conformance"
	"github.com/admission-conformance/admission-conformance/framework/results"

	"example.com/acme-conformance/acme"
)

// asMain makes the test binary, re-executed by the tests, the command line:
// a run starts copies of its own binary (workers, nodes), which must be the
// command line too, so the variable is passed on to them.
const asMain = "ACME_CONFORMANCE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(conformance.Main(os.Args[1:]))
	}
	conformance.TestMain(m)
}

// acmeCLI runs the command line with args in a fresh working dir and TMPDIR,
// and returns its exit code and output.
func acmeCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("acme-conformance %s:\n%s", strings.Join(args, " "), out.String())
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		}
		t.Fatal(err)
	}
	return 0, out.String()
}

var acmeSpecs = []string{"AcmeAnnotatesConfigMaps", "AcmeDenialEnforcedWithinBound", "AcmeDeniesForbiddenConfigMaps"}

// TestListShowsTheAcmeSuiteOnly: the binary's specs are those it imports.
func TestListShowsTheAcmeSuiteOnly(t *testing.T) {
	code, out := acmeCLI(t, "list", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range acmeSpecs {
		if !strings.Contains(out, `"`+name+`"`) {
			t.Errorf("list does not show %s", name)
		}
	}
	if strings.Contains(out, "MutatingBeforeValidating") {
		t.Errorf("list shows the project's own specs, which this binary does not import")
	}
}

// TestCertifyTheAcmeSuiteOnTheEmbeddedCluster runs the acme suite on the
// embedded cluster through certify (a run, its reports and a signed bundle
// of them) and checks the bundle with verify.
func TestCertifyTheAcmeSuiteOnTheEmbeddedCluster(t *testing.T) {
	keys, reports := t.TempDir(), t.TempDir()
	key := filepath.Join(keys, "acme.key")
	if code, _ := acmeCLI(t, "certify", "keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	if code, _ := acmeCLI(t, "certify", "--suite", "acme", "--sign-key", key, "--report-dir", reports); code != 0 {
		t.Fatalf("certify: exit %d", code)
	}
	res, err := results.Read(filepath.Join(reports, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var passed []string
	for _, s := range res.Specs {
		if s.Suite == "acme" && s.State == results.Passed {
			passed = append(passed, s.ShortName)
		}
	}
	slices.Sort(passed)
	if !slices.Equal(passed, acmeSpecs) || res.Summary.Failed != 0 {
		t.Errorf("passed %v (want %v), summary %+v", passed, acmeSpecs, res.Summary)
	}
	for _, f := range []string{"report.yaml", "junit.xml", "report.html", "certification.tar.gz"} {
		if _, err := os.Stat(filepath.Join(reports, f)); err != nil {
			t.Error(err)
		}
	}
	if code, _ := acmeCLI(t, "verify", filepath.Join(reports, "certification.tar.gz"), "--key", key+".pub"); code != 0 {
		t.Errorf("verify: exit %d", code)
	}
}

// TestAcmeSuiteUnderGoTest runs the suite without the command line: in this
// test's process, on an embedded cluster of its own.
func TestAcmeSuiteUnderGoTest(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ADMISSION_CONFORMANCE_REPORT_DIR", dir)
	conformance.RunTest(t, acme.Suite)
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Passed != len(acmeSpecs) || res.Summary.Total != len(acmeSpecs) {
		t.Errorf("summary %+v, want %d passed", res.Summary, len(acmeSpecs))
	}
}
