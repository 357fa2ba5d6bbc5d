package observability_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"sigs.k8s.io/yaml"

	// The packages whose metrics register when they are linked in (their
	// package variables call legacyregistry.MustRegister), as in an
	// apiserver. The manifest metrics register only when a manifest source
	// is built (manifest/metrics.RegisterMetrics, from v0.36 on), so they
	// are checked against the sources alone.
	_ "k8s.io/apiserver/pkg/admission/metrics"
	_ "k8s.io/apiserver/pkg/admission/plugin/policy/mutating/metrics"
	_ "k8s.io/apiserver/pkg/admission/plugin/policy/validating/metrics"
	_ "k8s.io/apiserver/pkg/util/webhook"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/internal/contract"
	"github.com/admission-conformance/admission-conformance/internal/contract/observability"
	"github.com/admission-conformance/admission-conformance/internal/contract/observability/derive"
)

// registeredAtLink are the files declaring the metrics the imports above
// register.
var registeredAtLink = []string{
	"pkg/admission/metrics/metrics.go",
	"pkg/admission/plugin/policy/mutating/metrics/metrics.go",
	"pkg/admission/plugin/policy/validating/metrics/metrics.go",
	"pkg/util/webhook/metrics.go",
}

// TestGeneratedIsUpToDate re-derives from the pinned sources in the module
// cache and compares with zz_generated_pinned.go, so moving the pin without
// `go generate ./internal/contract/observability` fails.
func TestGeneratedIsUpToDate(t *testing.T) {
	inv, err := derive.Derive(".")
	if err != nil {
		t.Fatal(err)
	}
	want, err := derive.GoSource(inv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(observability.GeneratedFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale for %s: run `go generate ./internal/contract/observability`", observability.GeneratedFile, inv.Module)
	}
}

// TestEveryEntryIsDecided is the guard: an audit annotation key, metric or
// forwarder of the pinned sources the table does not decide, or a decision
// naming one the pinned sources no longer have, fails until someone decides.
func TestEveryEntryIsDecided(t *testing.T) {
	inv := observability.Pinned()
	if len(inv.Annotations) < 5 || len(inv.Metrics) < 10 {
		t.Fatalf("the inventory has %d annotation keys and %d metrics: the derivation lost most of them", len(inv.Annotations), len(inv.Metrics))
	}
	if err := observability.Check(inv, observability.Table); err != nil {
		t.Fatal(err)
	}
	s := observability.Summarize()
	if s.Unmapped != 0 || s.Mapped+s.OnlyGap+s.OutOfScope != s.Annotations+s.Metrics+s.Forwarders {
		t.Errorf("summary does not add up: %+v", s)
	}
	t.Log(s.Line())
}

// TestCheckFailsOnUndecidedAndStale shows the guard failing both ways.
func TestCheckFailsOnUndecidedAndStale(t *testing.T) {
	inv := observability.Inventory{Module: "k8s.io/apiserver v9.9.9",
		Annotations: []observability.Annotation{{Key: "new.admission.k8s.io/key", Level: "Metadata"}},
		Metrics:     []observability.Metric{{Name: "apiserver_admission_new_total", Type: "counter"}},
	}
	table := map[string]observability.Decision{
		"metric apiserver_admission_new_total": {Clauses: []string{"observability.metrics.webhook-calls"}},
		"metric apiserver_admission_gone":      {OutOfScope: "gone"},
		"annotation bad":                       {},
	}
	err := observability.Check(inv, table)
	if err == nil {
		t.Fatal("Check accepted an undecided key, a stale metric and an empty decision")
	}
	for _, want := range []string{
		"annotation new.admission.k8s.io/key is not decided",
		"metric apiserver_admission_gone is decided but k8s.io/apiserver v9.9.9 has no such entry",
		"annotation bad: a decision needs Clauses, a Gap or OutOfScope",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

func TestDecisionsNameRegisteredClauses(t *testing.T) {
	for id, d := range observability.Table {
		for _, c := range d.Clauses {
			if _, ok := contract.Lookup(c); !ok {
				t.Errorf("%s names clause %s, which the contract does not have", id, c)
			}
		}
	}
}

// TestRegistryAgrees checks the derivation against the metrics registry
// the linked packages registered into, as kube-apiserver's: every metric
// the sources declare in them is registered under its full name, with the
// same labels and the help text the registry carries ("[LEVEL] help"). The
// registry refuses a second collector of a registered name: registering a
// probe of the same description is refused as already registered, one with
// other labels or help as inconsistent, and an unknown name is accepted.
func TestRegistryAgrees(t *testing.T) {
	reg := legacyregistry.Registerer()
	checked := 0
	for _, m := range observability.Pinned().Metrics {
		if !slices.Contains(registeredAtLink, m.Site) {
			t.Logf("%s (%s): registered when a manifest source is built, checked against the sources only", m.Name, m.Site)
			continue
		}
		checked++
		p := probe{prometheus.NewDesc(m.Name, "["+m.Stability+"] "+m.Help, m.Labels, nil)}
		err := reg.Register(p)
		var already prometheus.AlreadyRegisteredError
		switch {
		case errors.As(err, &already):
		case err == nil:
			reg.Unregister(p)
			t.Errorf("%s is not registered by the package declaring it (%s)", m.Name, m.Site)
		default:
			t.Errorf("%s is registered with other labels or help than the sources say (%v, help %q): %v", m.Name, m.Labels, m.Help, err)
		}
	}
	if checked < 10 {
		t.Errorf("only %d metrics checked against the registry", checked)
	}
	// The probe itself works: another label set is refused as inconsistent.
	m, _ := observability.Pinned().Metric("apiserver_admission_webhook_rejection_count")
	err := reg.Register(probe{prometheus.NewDesc(m.Name, "["+m.Stability+"] "+m.Help, []string{"name"}, nil)})
	if err == nil || errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		t.Errorf("a probe with other labels was not refused as inconsistent: %v", err)
	}
}

// TestRegistryHoldsNothingElse reads the collectors the registry holds
// (prometheus.Registry keeps them in an unexported map: reading it is the
// one way to list them) and requires every admission metric among them to
// be in the inventory, so a metric registered some way the derivation does
// not recognise fails here.
func TestRegistryHoldsNothingElse(t *testing.T) {
	v := reflect.ValueOf(legacyregistry.Registerer())
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		t.Fatalf("the legacy registry's registerer is a %s, not a *prometheus.Registry: update this test", v.Type())
	}
	f := v.Elem().FieldByName("collectorsByID")
	if !f.IsValid() || f.Kind() != reflect.Map {
		t.Fatal("prometheus.Registry has no collectorsByID map: update this test")
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	inventoried := map[string]bool{}
	for _, m := range observability.Pinned().Metrics {
		inventoried[m.Name] = true
	}
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	admission := regexp.MustCompile(`^apiserver_(admission|validating_admission_policy|mutating_admission_policy|manifest_admission|webhooks)_`)
	seen := 0
	for _, k := range f.MapKeys() {
		c, ok := f.MapIndex(k).Interface().(prometheus.Collector)
		if !ok {
			continue
		}
		ch := make(chan *prometheus.Desc, 16)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil || !admission.MatchString(m[1]) {
				continue
			}
			seen++
			if !inventoried[m[1]] {
				t.Errorf("the registry holds admission metric %s, which the derivation did not find", m[1])
			}
		}
	}
	if seen < 10 {
		t.Errorf("the registry holds only %d admission metrics: reading it is broken", seen)
	}
}

type probe struct{ d *prometheus.Desc }

func (p probe) Describe(ch chan<- *prometheus.Desc) { ch <- p.d }
func (p probe) Collect(chan<- prometheus.Metric)    {}

// TestAuditPolicyLogsPatchAnnotations ties the inventory's Request-level
// annotations to the harness's audit policy: MutationAuditAnnotations reads
// them from requests naming audit.RequestLevelName, which the policy must
// log at Request level, and other requests at Metadata.
func TestAuditPolicyLogsPatchAnnotations(t *testing.T) {
	var requestLevel []string
	for _, a := range observability.Pinned().Annotations {
		if a.Level == "Request" {
			requestLevel = append(requestLevel, a.Key)
		} else if a.Level != "Metadata" {
			t.Errorf("annotation %s is added at level %s: decide how specs can read it", a.Key, a.Level)
		}
	}
	if len(requestLevel) != 1 || !strings.HasPrefix(requestLevel[0], "patch.webhook.admission.k8s.io/") {
		t.Errorf("Request-level annotations %v: only the webhook patches were expected", requestLevel)
	}
	var p auditv1.Policy
	if err := yaml.UnmarshalStrict([]byte(audit.Policy), &p); err != nil {
		t.Fatal(err)
	}
	var levels []auditv1.Level
	for _, r := range p.Rules {
		for _, gr := range r.Resources {
			if gr.Group == "" && slices.Contains(gr.Resources, "configmaps") && slices.Contains(gr.ResourceNames, audit.RequestLevelName) {
				levels = append(levels, r.Level)
			}
		}
	}
	if len(levels) == 0 || levels[0] != auditv1.LevelRequest {
		t.Errorf("the harness's audit policy must log configmaps named %s at level Request first, has %v", audit.RequestLevelName, levels)
	}
	if last := p.Rules[len(p.Rules)-1]; last.Level != auditv1.LevelMetadata || len(last.Resources) > 0 {
		t.Errorf("the harness's audit policy must log everything else at Metadata, its last rule is %+v", last)
	}
}
