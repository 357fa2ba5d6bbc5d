package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/incluster"
	inclusterrun "github.com/admission-conformance/admission-conformance/internal/engine/incluster"
)

// TestPodRunArgsCarryTheClientsChoices: the flags the client writes for
// its pod parse, in the pod's `run`, to the client's own choices; a
// --rerun-failed becomes the label filter it stands for; default bounds
// are not repeated.
func TestPodRunArgsCarryTheClientsChoices(t *testing.T) {
	o := defaultRunOptions()
	o.Suites = []string{"ordering", "webhooks"}
	o.Profiles = []string{"core"}
	o.SupportedFeatures = []string{"AuditLog"}
	o.LabelFilter = "!feature:Scheduler"
	o.RerunFilter = "spec:A || spec:B"
	o.Focus = []string{"Mutating", "a b"}
	o.Skip = []string{"Slow"}
	o.Parallel = 3
	o.NodeAdmissionNodes = []string{"node-a", "node-b"}
	o.ReferenceInitializers = false
	o.Implementation.Project, o.Implementation.Contact = "p", []string{"a@example.test", "@b"}
	if err := o.Bounds.Set("webhookReady=45s"); err != nil {
		t.Fatal(err)
	}
	args := inclusterrun.PodRunArgs(o.Config, []string{"MutatingAdmissionPolicy", "AuditLog"})

	pod := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	pod.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("the pod cannot parse %q: %v", args, err)
	}
	for _, b := range pod.boundFlags {
		if err := pod.Bounds.Set(b); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(pod.Suites, o.Suites) || !slices.Equal(pod.Profiles, o.Profiles) || !slices.Equal(pod.Focus, o.Focus) || !slices.Equal(pod.Skip, o.Skip) {
		t.Errorf("selection: %v %v %v %v", pod.Suites, pod.Profiles, pod.Focus, pod.Skip)
	}
	if want := "(!feature:Scheduler) && (spec:A || spec:B)"; pod.LabelFilter != want {
		t.Errorf("label filter %q, want %q", pod.LabelFilter, want)
	}
	if !slices.Equal(pod.SupportedFeatures, []string{"AuditLog", "MutatingAdmissionPolicy"}) {
		t.Errorf("features %v", pod.SupportedFeatures)
	}
	if pod.Parallel != 3 || pod.ReferenceInitializers || pod.Implementation.Project != "p" || !slices.Equal(pod.Implementation.Contact, o.Implementation.Contact) {
		t.Errorf("parallel %d, initializers %v, implementation %+v", pod.Parallel, pod.ReferenceInitializers, pod.Implementation)
	}
	if !slices.Equal(pod.NodeAdmissionNodes, o.NodeAdmissionNodes) {
		t.Errorf("node admission nodes %v", pod.NodeAdmissionNodes)
	}
	if pod.Bounds != o.Bounds {
		t.Errorf("bounds differ: %+v", pod.Bounds)
	}
	if got := strings.Count(strings.Join(args, " "), "--bound "); got != 1 {
		t.Errorf("%d --bound flags, want only the changed one: %v", got, args)
	}
	def := defaultRunOptions()
	if args := inclusterrun.PodRunArgs(def.Config, nil); len(args) != 0 {
		t.Errorf("defaults forwarded: %v", args)
	}
}

// TestPodCommandLineIsAValidRun: the whole command line the Job runs
// parses and validates as the pod's `run` (pod flags included), bar the
// kubeconfig, which only a pod has.
func TestPodCommandLineIsAValidRun(t *testing.T) {
	o := defaultRunOptions()
	o.Suites = []string{"ordering"}
	r, err := incluster.New("1a2b3c4d", "x:1", incluster.WithRunArgs(inclusterrun.PodRunArgs(o.Config, nil)...))
	if err != nil {
		t.Fatal(err)
	}
	args := r.PodArgs("10.96.0.10")
	if args[0] != "run" {
		t.Fatalf("not a run: %v", args)
	}
	pod := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	pod.addFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		t.Fatal(err)
	}
	if err := pod.ValidatePodFlags(); err != nil {
		t.Fatalf("the pod's flags do not validate: %v", err)
	}
	if pod.Provider != "kubeconfig" || pod.RunID != "1a2b3c4d" || pod.WebhookAdvertise != "10.96.0.10:443" ||
		pod.PublishResults != r.NamespaceName() || len(pod.WebhookNames) != 3 || pod.ReportDir != incluster.ReportDir {
		t.Errorf("pod options %+v", pod.InClusterOptions)
	}
}
