package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
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
// deny creating ConfigMaps in the case's namespace labelled probeLabel=value,
// with message.
func staticDenyPolicy(f *harness.Framework, short, value, message string) []runtime.Object {
	name := staticName(f, short)
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: namespaceSelector(f),
				ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{probeLabel: value}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: configMapRules()[0],
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
		_, err := dryRunCreate(ctx, rc, f.Namespace, value)
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
		_, err := dryRunCreate(ctx, rc, f.Namespace, value)
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
	case deniedWith(err, message):
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
