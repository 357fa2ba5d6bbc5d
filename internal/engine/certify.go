package engine

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// Certify is `certify` once its configuration is loaded and valid and its
// key read: it runs like `run`, reading the cluster's fingerprint before
// tear-down, then writes the signed bundle to bundle (default: into the
// report dir).
func Certify(out io.Writer, o runconfig.Config, key ed25519.PrivateKey, bundle string) error {
	if o.InCluster || o.Child != nil {
		return exitcode.Usagef("certify runs from this machine: --in-cluster (and worker) runs cannot be certified")
	}
	if bundle == "" {
		bundle = filepath.Join(o.ReportDir, certify.DefaultName)
	}
	if err := check.OutputDir("--bundle", filepath.Dir(bundle)); err != nil {
		return err
	}
	var fp *certify.Fingerprint
	o.BeforeStop = func(env *harness.Env) {
		f := certify.Collect(context.Background(), env.Cluster)
		fp = &f
	}
	runErr := runHere(out, o)
	var ee *exitcode.Error
	if runErr != nil && (!errors.As(runErr, &ee) || ee.Code != exitcode.Failed) {
		return runErr // no results of this run to certify
	}
	if fp == nil {
		if runErr != nil {
			return runErr
		}
		return exitcode.Usagef("no bundle: the run ran no spec against a cluster")
	}
	size, err := WriteBundle(bundle, o.ReportDir, *fp, key, o.Version)
	if err != nil {
		return exitcode.Usagef("cannot write the certification bundle: %v", err)
	}
	fmt.Fprintf(out, "certification bundle %s (%d bytes), signed by key %s; check it with 'run-conformance verify %s --key PUBLIC_KEY'\n",
		bundle, size, certify.KeyID(key.Public().(ed25519.PublicKey)), bundle)
	return runErr // a failed case still fails the command, as with run
}

// WriteBundle packs the report dir's reports and run log with the
// fingerprint and harness.json.
func WriteBundle(path, dir string, fp certify.Fingerprint, key ed25519.PrivateKey, version string) (int64, error) {
	files := map[string][]byte{}
	for _, name := range []string{results.FileName, report.FileName, junit.FileName, htmlreport.FileName, reports.RunLogName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		files[name] = data
	}
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		return 0, err
	}
	h, err := thisHarness(res, version)
	if err != nil {
		return 0, err
	}
	for name, v := range map[string]any{certify.FingerprintName: fp, certify.HarnessName: h} {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return 0, err
		}
		files[name] = append(data, '\n')
	}
	mtime := res.FinishedAt
	if mtime.IsZero() {
		mtime = res.StartedAt
	}
	return certify.Write(path, files, key, mtime)
}

// thisHarness is harness.json of this binary (of version) for res.
func thisHarness(res results.Results, version string) (certify.Harness, error) {
	goVersion := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
	}
	return certify.NewHarness(version, certify.VCSCommit(), KubernetesModuleVersion(), goVersion, res)
}

// KubernetesModuleVersion is the k8s.io/kubernetes version the embedded
// control plane was built from.
func KubernetesModuleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/kubernetes" {
			return dep.Version
		}
	}
	return "unknown"
}
