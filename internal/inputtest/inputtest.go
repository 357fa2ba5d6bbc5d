// Package inputtest helps the fuzz targets of the parsers of user input
// (options files, matrix files, flags, results.json), wherever the parser
// lives: the files they must not read, what bad input must look like
// (exit 2, one line), options that must read back the same, and seeds.
package inputtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// Env keeps the kubeconfig loader off this machine's own kubeconfig:
// a fuzzed options file with provider kubeconfig and no path reads
// $KUBECONFIG, which then names a file that does not exist.
func Env(f *testing.F) {
	home := f.TempDir()
	f.Setenv("HOME", home)
	f.Setenv("KUBECONFIG", filepath.Join(home, "no-kubeconfig"))
}

// UnsafePath reports whether a fuzzed file names a path whose reading
// could hang or exhaust memory (a device, a FIFO, /proc): every string it
// holds, decoded as the harness decodes YAML, is checked. A file that does
// not decode is checked as it is, and one with escapes is left out.
func UnsafePath(data []byte) bool {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return bytes.ContainsRune(data, '\\') || UnsafeString(string(data))
	}
	unsafe := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			unsafe = unsafe || UnsafeString(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				unsafe = unsafe || UnsafeString(k)
				walk(e)
			}
		}
	}
	walk(doc)
	return unsafe
}

// UnsafeString reports whether s names a device, /proc or /sys.
func UnsafeString(s string) bool {
	for _, p := range []string{"/dev", "/proc", "/sys"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// CheckUsageError fails unless err is nil or bad input as the CLI reports
// it: exit 2, one line.
func CheckUsageError(t *testing.T, what string, input any, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.Usage {
		t.Fatalf("%s %q: error is not bad input (exit 2): %T %v", what, input, err, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("%s %q: error is not one line: %q", what, input, err.Error())
	}
}

// WriteFile writes data into a new temp dir and returns the path.
func WriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// renderedOptions is an options file as the matrix writes one for each
// target (every field), for `run --options`.
func renderedOptions(t *testing.T, o runconfig.Config) []byte {
	t.Helper()
	data, err := runconfig.Encode(o) // as a parent writes its child's
	if err != nil {
		t.Fatalf("options do not render: %v\n%+v", err, o)
	}
	return data
}

// RoundTrip checks that options, rendered as the matrix renders them
// and read back by `run --options`, load, and then render and read back
// the same (the first reading may fill in defaults, such as the kind
// topology of a kubeconfig target).
func RoundTrip(t *testing.T, o runconfig.Config) {
	t.Helper()
	reload := func(data []byte) []byte {
		t.Helper()
		file := WriteFile(t, "rendered.yaml", data)
		back, err := runconfig.ReadFile(file)
		if err == nil {
			err = back.Validate()
		}
		if err != nil {
			t.Fatalf("rendered options do not load: %v\n%s", err, data)
		}
		return renderedOptions(t, back)
	}
	first := renderedOptions(t, o)
	second := reload(first)
	if third := reload(second); !bytes.Equal(second, third) {
		t.Fatalf("options change when rendered and read back:\n%s\nthen\n%s\nthen\n%s", first, second, third)
	}
}

// KubeconfigDir is a new temp dir holding Kubeconfig, and the
// kubeconfig's path: fuzzed input names it for KUBECONFIG.
func KubeconfigDir(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(Kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// Kubeconfig is a kubeconfig of a cluster that is never there.
const Kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

// ResultsSeeds are results.json files: reporttest's synthetic run (a case
// in every state, measurements, a journal, field use), one whose failed
// case is a spec this harness has, and broken ones.
func ResultsSeeds(t0 time.Time) [][]byte {
	var seeds [][]byte
	add := func(r results.Results) {
		data, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, data)
	}
	full := reporttest.Results(t0, 1)
	full.Summarize(fields.Cover)
	add(full)
	real := results.Results{APIVersion: results.APIVersion, Kind: results.Kind, StartedAt: t0, FinishedAt: t0.Add(time.Minute),
		Specs: []results.Spec{
			{Suite: "ordering", ShortName: "MutatingBeforeValidating", Name: "MutatingBeforeValidating calls every mutating webhook first", State: results.Failed, Profile: "core", Message: "boom"},
			{Suite: "ordering", ShortName: "MutatingBeforeValidating", Name: "MutatingBeforeValidating on update", State: results.Passed, Profile: "core"},
		}}
	real.Summarize(fields.Cover)
	add(real)
	outside := real
	outside.Specs = []results.Spec{{Suite: "ordering", Name: "[BeforeSuite]", State: results.Failed}}
	add(outside)
	unknown := real
	unknown.Specs = []results.Spec{{Suite: "ordering", ShortName: "NoSuchSpec", Name: "NoSuchSpec", State: results.Failed, Profile: "core"}}
	add(unknown)
	passed := real
	passed.Specs = []results.Spec{{Suite: "ordering", ShortName: "MutatingBeforeValidating", State: results.Passed, Profile: "core"}}
	add(passed)
	for _, s := range []string{
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results"}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":null,"coverage":{}}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":[{"state":"failed","measurements":[{"name":"m","value":1e308,"unit":"s","bound":-1e308,"lower":0}]}]}`,
		`{"apiVersion":"v0","kind":"Results"}`,
		`{"kind":"Results"`,
		`[]`,
		`null`,
		``,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// T0 is when the seeds' runs started.
var T0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
