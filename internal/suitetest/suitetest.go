// Package suitetest is the go test entry of every suite package: it boots an
// environment (an embedded cluster, or the cluster a kubeconfig names), runs
// that suite's specs through the runner, and tears everything down.
//
// Environment variables (go test has no room for the CLI's flags):
//
//	ADMISSION_CONFORMANCE_KUBECONFIG   run against this cluster instead of an embedded one
//	ADMISSION_CONFORMANCE_APISERVERS   embedded apiserver replicas (default 1)
//	ADMISSION_CONFORMANCE_NODES        embedded hollow nodes (default 1 for nodeadmit and initializers, else 0);
//	                                   a suite with nodes calls nodeset.RunIfChild in its TestMain
//	ADMISSION_CONFORMANCE_REFERENCE_INITIALIZERS  0 to not install the reference initializers
//	                                   (installed for the initializers suite by default)
//	ADMISSION_CONFORMANCE_REPORT_DIR   write results.json and components.log here
package suitetest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/engineparts"
	"github.com/admission-conformance/admission-conformance/internal/logs"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// Run runs the named suite.
func Run(t *testing.T, suite string) {
	reportDir := os.Getenv("ADMISSION_CONFORMANCE_REPORT_DIR")
	componentLog := io.Discard
	if reportDir != "" {
		if err := os.MkdirAll(reportDir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(reportDir, "components.log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		componentLog = f
	}
	logs.RedirectComponents(componentLog)

	b := bounds.Defaults()
	provider, err := providerFromEnv(suite, componentLog, b)
	if err != nil {
		t.Fatal(err)
	}
	env, err := harness.Boot(context.Background(), harness.Config{Provider: provider, Bounds: b,
		ReferenceInitializers: harness.ReferenceInitializers{
			Install: suite == harness.InitializersSuite && os.Getenv("ADMISSION_CONFORMANCE_REFERENCE_INITIALIZERS") != "0"},
		Engine: engineparts.Run()})
	if err != nil {
		t.Fatalf("boot %s cluster: %v", provider.Name(), err)
	}
	t.Cleanup(func() {
		if err := env.Close(context.Background()); err != nil {
			t.Errorf("tear down: %v", err)
		}
	})
	res := runner.Run(t, env, runner.Options{
		Selection: runner.Selection{Suites: []string{suite}},
		Progress:  os.Stdout,
		Version:   "go-test",
	})
	if reportDir != "" {
		if _, err := results.Write(reportDir, res); err != nil {
			t.Error(err)
		}
	}
	if res.Summary.Total == 0 {
		t.Errorf("suite %s ran no spec", suite)
	}
}

func providerFromEnv(suite string, componentLog io.Writer, b bounds.Bounds) (cluster.Provider, error) {
	if path := os.Getenv("ADMISSION_CONFORMANCE_KUBECONFIG"); path != "" {
		return kubeconfig.New(kubeconfig.WithPath(path)), nil
	}
	replicas := 1
	if v := os.Getenv("ADMISSION_CONFORMANCE_APISERVERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, err
		}
		replicas = n
	}
	nodeCount := 0
	if suite == "nodeadmit" || suite == harness.InitializersSuite {
		nodeCount = 1
	}
	if v := os.Getenv("ADMISSION_CONFORMANCE_NODES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, err
		}
		nodeCount = n
	}
	return embedded.New(embedded.WithAPIServers(replicas), embedded.WithComponentLog(componentLog),
		embedded.WithStartTimeout(b.ClusterStart.Duration), embedded.WithPollInterval(b.PollInterval.Duration),
		embedded.WithNodes(nodeCount, nodeset.DefaultSpec())), nil
}
