package cli

import (
	"reflect"
	"slices"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	inclusterrun "github.com/admission-conformance/admission-conformance/internal/engine/incluster"
	"github.com/admission-conformance/admission-conformance/internal/inputtest"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// podConfig is the options file the client writes for its pod (with the
// Service at 10.96.0.10), as the pod decodes and validates it; a
// kubeconfig in $KUBECONFIG stands for the pod's in-cluster credentials,
// which the kubeconfig provider's default loading rules find.
func podConfig(t *testing.T, o runconfig.Config, claims []string) (runconfig.Config, *clusterrun.Run) {
	t.Helper()
	_, credentials := inputtest.KubeconfigDir(t)
	t.Setenv("KUBECONFIG", credentials)
	r, err := clusterrun.New("1a2b3c4d", "x:1", clusterrun.WithOptions(inclusterrun.PodOptions(o, claims)))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := r.Options("10.96.0.10")
	if err != nil {
		t.Fatal(err)
	}
	pod, err := runconfig.Decode([]byte(cm.Data[clusterrun.OptionsKey]))
	if err != nil {
		t.Fatalf("the pod cannot read its options file: %v\n%s", err, cm.Data[clusterrun.OptionsKey])
	}
	if err := pod.Validate(); err != nil {
		t.Fatalf("the pod's options do not validate: %v\n%s", err, cm.Data[clusterrun.OptionsKey])
	}
	return pod, r
}

// TestPodOptionsCarryTheClientsChoices: the options file the client
// writes for its pod decodes, in the pod, to the client's own choices; a
// --rerun-failed becomes the label filter it stands for; the client's
// own settings (its cluster, image, report dir) stay with it.
func TestPodOptionsCarryTheClientsChoices(t *testing.T) {
	o := defaultRunOptions()
	o.Provider, o.InCluster, o.Image, o.Kubeconfig, o.ReportDir = "kubeconfig", true, "x:1", "/home/u/.kube/config", "/tmp/client-reports"
	o.Suites = []string{"ordering", "webhooks"}
	o.Profiles = []string{"core"}
	o.SupportedFeatures = []string{"AuditLog"}
	o.LabelFilter = "!feature:Scheduler"
	o.RerunFilter = "spec:MutatingBeforeValidating || spec:A"
	o.Focus = []string{"Mutating", "a b"}
	o.Skip = []string{"Slow"}
	o.Parallel = 3
	o.Repeat, o.RepeatOnlyMeasured, o.NoCeilings = 150, true, true
	o.NodeAdmissionNodes = []string{"node-a", "node-b"}
	o.ReferenceInitializers = false
	o.Implementation.Organization, o.Implementation.Project, o.Implementation.URL, o.Implementation.Version = "o", "p", "https://example.test/p", "v1.2.3"
	o.Implementation.Contact = []string{"a@example.test", "@b"}
	if err := o.Bounds.Set("webhookReady=45s"); err != nil {
		t.Fatal(err)
	}
	if o.Bounds == bounds.Defaults() {
		t.Fatal("the bound set is its default")
	}
	pod, _ := podConfig(t, o.Config, []string{"MutatingAdmissionPolicy", "AuditLog"})

	if !slices.Equal(pod.Suites, o.Suites) || !slices.Equal(pod.Profiles, o.Profiles) || !slices.Equal(pod.Focus, o.Focus) || !slices.Equal(pod.Skip, o.Skip) {
		t.Errorf("selection: %v %v %v %v", pod.Suites, pod.Profiles, pod.Focus, pod.Skip)
	}
	if want := "(!feature:Scheduler) && (spec:MutatingBeforeValidating || spec:A)"; pod.LabelFilter != want || pod.RerunFailed != "" {
		t.Errorf("label filter %q (rerun %q), want %q", pod.LabelFilter, pod.RerunFailed, want)
	}
	if !slices.Equal(pod.SupportedFeatures, []string{"AuditLog", "MutatingAdmissionPolicy"}) {
		t.Errorf("features %v", pod.SupportedFeatures)
	}
	if pod.Parallel != 3 || pod.ReferenceInitializers || !reflect.DeepEqual(pod.Implementation, o.Implementation) {
		t.Errorf("parallel %d, initializers %v, implementation %+v", pod.Parallel, pod.ReferenceInitializers, pod.Implementation)
	}
	if pod.Repeat != 150 || !pod.RepeatOnlyMeasured || !pod.NoCeilings {
		t.Errorf("repeat %d, only measured %v, no ceilings %v", pod.Repeat, pod.RepeatOnlyMeasured, pod.NoCeilings)
	}
	if !slices.Equal(pod.NodeAdmissionNodes, o.NodeAdmissionNodes) {
		t.Errorf("node admission nodes %v", pod.NodeAdmissionNodes)
	}
	if pod.Bounds != o.Bounds {
		t.Errorf("bounds differ: %+v", pod.Bounds)
	}
	if pod.Kubeconfig != "" || pod.InCluster || pod.Image != "" || pod.ReportDir != clusterrun.ReportDir {
		t.Errorf("the client's own settings went to the pod: kubeconfig %q, in-cluster %v, image %q, report dir %q", pod.Kubeconfig, pod.InCluster, pod.Image, pod.ReportDir)
	}

	// A client's defaults give the pod the defaults, in its role.
	def, _ := podConfig(t, runconfig.Default(), nil)
	want := runconfig.Default()
	want.Provider, want.ReportDir, want.Child = "kubeconfig", clusterrun.ReportDir, def.Child
	if !reflect.DeepEqual(def, want) {
		t.Errorf("a default client's pod:\n%+v\nwant\n%+v", def, want)
	}
}

// TestPodOptionsFileIsAValidRun: the Job's command line is a run of its
// options file, which gives the pod its role.
func TestPodOptionsFileIsAValidRun(t *testing.T) {
	o := defaultRunOptions()
	o.Suites = []string{"ordering"}
	pod, r := podConfig(t, o.Config, nil)
	if args := r.PodArgs(); !slices.Equal(args, []string{"run", "--options", clusterrun.OptionsPath}) {
		t.Fatalf("the pod's command line %v", args)
	}
	role := pod.Pod()
	if pod.Provider != "kubeconfig" || pod.Worker() != nil || role == nil || role.RunID != "1a2b3c4d" || role.WebhookListen != ":8443" ||
		role.WebhookAdvertise != "10.96.0.10:443" || role.PublishResults != r.NamespaceName() || !slices.Equal(role.WebhookNames, r.WebhookNames()) ||
		pod.ReportDir != clusterrun.ReportDir || pod.RunID() != r.ID {
		t.Errorf("pod options %+v, role %+v", pod, role)
	}
	if len(pod.ServedWebhooks()) != 1 {
		t.Error("the pod does not serve its webhooks")
	}
}
