package static

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// staticSeed is the seed clause every static-manifest spec checks: static
// configuration is how an admin guarantees what an apiserver enforces from
// its first request, without the API.
const staticSeed = "002 Goals: as a fallback, admin can always restart an apiserver and guarantee it sees the latest config"

// staticShares lets static-manifest specs run beside each other but never
// beside one that makes the directories invalid or hashes them.
var staticShares = spec.Isolation{Shares: []string{spec.StaticManifestsState},
	Reason: "writes scoped files into the apiservers' static manifest directories, which an invalid file would stop loading"}

// staticDirs returns the cluster's static manifest directories, one set per
// replica.
func staticDirs(f *harness.Framework) []map[cluster.StaticPlugin]string {
	s, ok := f.Env.Cluster.(cluster.StaticManifests)
	gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "the cluster declares StaticAdmissionManifests but has no static manifest directories")
	dirs := s.StaticManifestDirs()
	gomega.ExpectWithOffset(1, dirs).To(gomega.HaveLen(len(f.Replicas)), "one set of static manifest directories per apiserver replica")
	return dirs
}

// staticName is a static configuration's name, unique to the case.
func staticName(f *harness.Framework, short string) string {
	return short + "." + f.Namespace + staticmanifest.Suffix
}

// staticFile is the case's file called short in a plugin's directory.
func staticFile(f *harness.Framework, short string) string {
	return f.Namespace + "-" + short + ".yaml"
}

// writeStatic writes objs as file short into plugin's directory on every
// replica and removes it after the case.
func writeStatic(f *harness.Framework, plugin cluster.StaticPlugin, short string, objs ...runtime.Object) {
	dirs := staticDirs(f)
	name := staticFile(f, short)
	gomega.ExpectWithOffset(1, staticmanifest.Write(dirs, plugin, name, objs...)).To(gomega.Succeed())
	ginkgo.DeferCleanup(staticmanifest.Remove, dirs, plugin, name)
}

// staticDenyPolicy is a static ValidatingAdmissionPolicy and binding that
// deny creating ConfigMaps in the case's namespace labelled speckit.ProbeLabel=value,
// with message.
func staticDenyPolicy(f *harness.Framework, short, value, message string) []runtime.Object {
	name := staticName(f, short)
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: namespaceSelector(f),
				ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: speckit.ConfigMapRules()[0],
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: staticName(f, short+"-binding")},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return []runtime.Object{policy, binding}
}

// namespaceSelector selects the case's namespace alone.
func namespaceSelector(f *harness.Framework) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": f.Namespace}}
}

// deniedProbe is enforced when a dry-run ConfigMap labelled value is denied
// with message.
func deniedProbe(f *harness.Framework, value, message string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		_, err := speckit.DryRunCreate(ctx, rc, f.Namespace, value)
		denied, err := denial(err, message)
		if err != nil {
			return false, fmt.Errorf("probe %s: %w", value, err)
		}
		return denied, nil
	}
}

// allowedProbe is enforced when a dry-run ConfigMap labelled value is
// allowed; a denial with message means not yet, any other error fails.
func allowedProbe(f *harness.Framework, value, message string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		_, err := speckit.DryRunCreate(ctx, rc, f.Namespace, value)
		denied, err := denial(err, message)
		if err != nil {
			return false, fmt.Errorf("probe %s: %w", value, err)
		}
		return !denied, nil
	}
}

// denial tells a request's outcome apart: allowed (false, nil), denied with
// message (true, nil), or anything else (the error).
func denial(err error, message string) (bool, error) {
	switch {
	case err == nil:
		return false, nil
	case speckit.DeniedWith(err, message):
		return true, nil
	default:
		return false, err
	}
}

// awaitStatic waits until probe holds on every replica, within the reload
// bound.
func awaitStatic(ctx context.Context, f *harness.Framework, probe enforce.Probe) {
	_, err := enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, f.Bounds.StaticManifestReload.Duration, f.Bounds.PollInterval.Duration, probe)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "the static manifest must be enforced on every replica")
}

// asList wraps objects (their apiVersion and kind set, as staticmanifest
// writes them) in a v1 List.
func asList(objs ...runtime.Object) []byte {
	var items []json.RawMessage
	for _, o := range objs {
		doc, err := staticmanifest.Encode(o)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		j, err := yaml.YAMLToJSON(doc[len("---\n"):])
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		items = append(items, j)
	}
	data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return data
}

// writeStaticFile writes data as file name into plugin's directory on every
// replica and removes it after the case.
func writeStaticFile(f *harness.Framework, plugin cluster.StaticPlugin, name string, data []byte) {
	dirs := staticDirs(f)
	gomega.ExpectWithOffset(1, staticmanifest.WriteRaw(dirs, plugin, name, data)).To(gomega.Succeed())
	ginkgo.DeferCleanup(staticmanifest.Remove, dirs, plugin, name)
}

// invalidCase is a file that fails one of the loader's checks.
type invalidCase struct {
	name   string
	plugin cluster.StaticPlugin
	objs   func(f *harness.Framework) []runtime.Object
	// raw, when set, is the file's content instead of objs.
	raw func(f *harness.Framework) []byte
	// write, when set, puts in place what no file content can express (a
	// file that cannot be read) on every replica, removed after the case;
	// content, however malformed, is raw's.
	write func(f *harness.Framework, plugin cluster.StaticPlugin)
}

var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// dryRunCreateObject sends a dry-run create of cm through config, and
// returns the object as admission left it, or the error.
func dryRunCreateObject(ctx context.Context, config *rest.Config, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}
