package runconfig_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/inputtest"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// The fuzz targets of the run configuration's own parsers; the options
// file and the flags are fuzzed where `run` reads them
// (internal/cli).

// validated is c validated as `run` validates its configuration once the
// flags and the options file are read.
func validated(c runconfig.Config) (runconfig.Config, error) {
	err := c.Validate()
	return c, err
}

// FuzzEtcdDelay: `run --etcd-delay REPLICA=DURATION`, with --apiservers N.
func FuzzEtcdDelay(f *testing.F) {
	for _, seed := range []struct {
		delay      string
		apiservers int
	}{
		{"1=1500ms", 3}, {"0=2s", 1}, {"1=2s", 1}, {"foo", 1}, {"=1s", 3}, {"1=", 3}, {"-1=1s", 3},
		{"1=-1s", 3}, {"1=0s", 3}, {"2=1h", 3}, {"01=1.5s", 3}, {"1=1s=2s", 3}, {"+1=1µs", 2},
		{"9223372036854775808=1s", 3}, {"1=9223372036854775807ns", 2}, {"0=1s", 0},
	} {
		f.Add(seed.delay, seed.apiservers)
	}
	f.Fuzz(func(t *testing.T, delay string, apiservers int) {
		args := []string{"--etcd-delay=" + delay, fmt.Sprintf("--apiservers=%d", apiservers)}
		c := runconfig.Default()
		c.EtcdDelays, c.APIServers = []string{delay}, apiservers
		o, err := validated(c)
		inputtest.CheckUsageError(t, "--etcd-delay", args, err)
		if err != nil {
			return
		}
		opts, err := o.EtcdDelayOptions()
		if err != nil || len(opts) != 1 {
			t.Fatalf("--etcd-delay %q loaded but gives %d options, %v", delay, len(opts), err)
		}
		replica, d, _ := strings.Cut(delay, "=")
		if parsed, _ := time.ParseDuration(d); parsed <= 0 || replica == "" {
			t.Fatalf("--etcd-delay %q accepted", delay)
		}
		inputtest.RoundTrip(t, o)
	})
}

// FuzzLabelFilter: `run --label-filter`, parsed as Ginkgo parses it, then
// matched against every spec's labels to see that it selects something.
func FuzzLabelFilter(f *testing.F) {
	for _, seed := range []string{
		"suite:ordering && !profile:extended", "feature:MutatingWebhook && !profile:extended", "spec:MutatingBeforeValidating",
		"(((", "suite:ordering &&", "/[/", "spec:A ||| spec:B", "spec:NoSuchSpec", "/ordering|webhooks/", "!suite:nodeadmit",
		"suite:{ordering,webhooks}", "feature: consists-of NodeAdmission", "feature: containsAny {AuditLog}", "key: isEmpty",
		"(suite:ordering || suite:webhooks) && (profile:core, profile:reference)", "", " ", "&&", "!", "{", "a: ", ":",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, filter string) {
		_, parseErr := types.ParseLabelFilter(filter)
		err := check.LabelFilter("--label-filter", filter)
		inputtest.CheckUsageError(t, "--label-filter", filter, err)
		if (err == nil) != (parseErr == nil) {
			t.Fatalf("--label-filter %q: Ginkgo says %v, the check %v", filter, parseErr, err)
		}
		c := runconfig.Default()
		c.LabelFilter = filter
		o, err := validated(c)
		inputtest.CheckUsageError(t, "--label-filter", filter, err)
		if err == nil {
			if parseErr != nil {
				t.Fatalf("--label-filter %q loaded though Ginkgo rejects it: %v", filter, parseErr)
			}
			inputtest.RoundTrip(t, o)
		}
	})
}

// FuzzRerunFailed: `run --rerun-failed RESULTS`: the label filter of the
// specs that failed, then the options it selects validated.
func FuzzRerunFailed(f *testing.F) {
	for _, seed := range inputtest.ResultsSeeds(inputtest.T0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := inputtest.WriteFile(t, results.FileName, data)
		filter, err := runconfig.FailedFilter(file)
		inputtest.CheckUsageError(t, "--rerun-failed", string(data), err)
		if err == nil && filter != "" {
			if _, perr := types.ParseLabelFilter(filter); perr != nil {
				t.Fatalf("--rerun-failed %q: the filter %q does not parse: %v", data, filter, perr)
			}
		}
		c := runconfig.Default()
		c.RerunFailed, c.ReportDir = file, filepath.Join(t.TempDir(), "out")
		o, lerr := validated(c)
		inputtest.CheckUsageError(t, "--rerun-failed", string(data), lerr)
		if (err == nil) != (lerr == nil) && !strings.Contains(fmt.Sprint(lerr), "no spec matches") {
			t.Fatalf("--rerun-failed %q: the filter says %v, loading %v", data, err, lerr)
		}
		if lerr == nil && o.RerunFilter != filter {
			t.Fatalf("--rerun-failed %q: filter %q, loaded %q", data, filter, o.RerunFilter)
		}
	})
}
