package install

import (
	"context"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
	"github.com/admission-conformance/admission-conformance/reference/initializers/policy"
	"github.com/admission-conformance/admission-conformance/reference/initializers/webhook"
)

const (
	pollerUser     = v1alpha1.PollerUser
	controllerUser = v1alpha1.ControllerUser
)

// as is admin impersonating user.
func as(admin *rest.Config, user string) *rest.Config {
	c := rest.CopyConfig(admin)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	return c
}

// track notes an object for Close to delete.
func (in *Instance) track(what string, del func(context.Context, string, metav1.DeleteOptions) error, name string) {
	in.created = append(in.created, deletion{what: what, del: func(ctx context.Context) error {
		if err := del(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}})
}

// alreadyInstalled turns AlreadyExists into an error that says what to do.
func alreadyInstalled(what string, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("reference initializers: %s exists: the implementation is already installed on this cluster (one instance per cluster): %w", what, err)
	}
	return fmt.Errorf("reference initializers: create %s: %w", what, err)
}

func (in *Instance) createNamespaceAndRBAC(ctx context.Context) error {
	labels := in.opts.Labels
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.Namespace, Labels: labels}}
	if _, err := in.admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return alreadyInstalled("namespace "+ns.Name, err)
	}
	in.track("namespace", in.admin.CoreV1().Namespaces().Delete, ns.Name)
	rbac := in.admin.RbacV1()
	for _, r := range roles(labels) {
		if _, err := rbac.ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			return alreadyInstalled("cluster role "+r.Name, err)
		}
		in.track("cluster role "+r.Name, rbac.ClusterRoles().Delete, r.Name)
	}
	for _, b := range bindings(labels) {
		if _, err := rbac.ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return alreadyInstalled("cluster role binding "+b.Name, err)
		}
		in.track("cluster role binding "+b.Name, rbac.ClusterRoleBindings().Delete, b.Name)
	}
	return nil
}

func (in *Instance) createCRD(ctx context.Context) error {
	crd, err := v1alpha1.CRD()
	if err != nil {
		return err
	}
	crd.Labels = in.opts.Labels
	api := in.crds.ApiextensionsV1().CustomResourceDefinitions()
	if _, err := api.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return alreadyInstalled("CRD "+crd.Name, err)
	}
	in.track("CRD", api.Delete, crd.Name)
	return in.poll(ctx, "the CRD to be established", func(ctx context.Context) (bool, error) {
		got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// createPolicy creates the fail-open policy and waits until it denies a
// dry-run creation of a Fail configuration.
func (in *Instance) createPolicy(ctx context.Context, admin dynamic.Interface) error {
	ar := in.admin.AdmissionregistrationV1()
	p := policy.Policy(in.opts.Labels)
	if _, err := ar.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return alreadyInstalled("validating admission policy "+p.Name, err)
	}
	in.track("validating admission policy", ar.ValidatingAdmissionPolicies().Delete, p.Name)
	b := policy.Binding(in.opts.Labels)
	if _, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return alreadyInstalled("validating admission policy binding "+b.Name, err)
	}
	in.track("validating admission policy binding", ar.ValidatingAdmissionPolicyBindings().Delete, b.Name)
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.Group + "/" + v1alpha1.Version, "kind": v1alpha1.Kind,
		"metadata":     map[string]any{"generateName": "policy-probe-"},
		"initializers": []any{map[string]any{"name": "probe." + v1alpha1.Group + "/fail", "failurePolicy": string(v1alpha1.Fail)}},
	}}
	return in.poll(ctx, "the fail-open policy to be in force", func(ctx context.Context) (bool, error) {
		_, err := admin.Resource(v1alpha1.GroupVersionResource).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return false, nil // not in force, or the CRD not served yet
		case apierrors.IsForbidden(err) && strings.Contains(err.Error(), policy.Message):
			return true, nil
		default:
			return false, err
		}
	})
}

// registerWebhook creates the webhook configuration and waits until the
// apiservers call it (a probe ConfigMap in the implementation's namespace
// is denied by the probe webhook).
func (in *Instance) registerWebhook(ctx context.Context, base string, caBundle []byte) error {
	o := in.opts
	common := func(name, path string) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name:                    name,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(base + path), CABundle: caBundle},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](5),
			AdmissionReviewVersions: []string{"v1"},
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
		}
	}
	pods := common(v1alpha1.WebhookName, webhook.PodsPath)
	pods.Rules = createRule("pods")
	pods.NamespaceSelector = o.NamespaceSelector
	probe := common(v1alpha1.ProbeWebhookName, webhook.ProbePath)
	probe.Rules = createRule("configmaps")
	probe.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": v1alpha1.Namespace}}
	probe.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: v1alpha1.ProbeLabel, Operator: metav1.LabelSelectorOpExists}}}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.WebhookConfigurationName, Labels: o.Labels},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{pods, probe},
	}
	api := in.admin.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := api.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return alreadyInstalled("mutating webhook configuration "+cfg.Name, err)
	}
	in.unregister = func(ctx context.Context) error {
		if err := api.Delete(ctx, cfg.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Labels: map[string]string{v1alpha1.ProbeLabel: "true"}}}
	return in.poll(ctx, "the webhook to be called", func(ctx context.Context) (bool, error) {
		_, err := in.admin.CoreV1().ConfigMaps(v1alpha1.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return false, nil
		case strings.Contains(err.Error(), webhook.ProbeMessage):
			return true, nil
		default:
			return false, err
		}
	})
}

func createRule(resource string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{resource},
			Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// poll waits for cond within ReadyTimeout.
func (in *Instance) poll(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, in.opts.Poll, in.opts.ReadyTimeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, err
	})
	if err != nil {
		if last != nil && !errors.Is(err, last) {
			err = fmt.Errorf("%w (last: %v)", err, last)
		}
		return fmt.Errorf("reference initializers: waiting for %s: %w", what, err)
	}
	return nil
}

// waitAllowed waits until an identity's RBAC is in force: until call
// stops being Forbidden.
func (in *Instance) waitAllowed(ctx context.Context, what string, call func(context.Context) error) error {
	return in.poll(ctx, what, func(ctx context.Context) (bool, error) {
		err := call(ctx)
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
}

func listConfigurations(ctx context.Context, c dynamic.Interface) error {
	_, err := c.Resource(v1alpha1.GroupVersionResource).List(ctx, metav1.ListOptions{Limit: 1})
	return err
}

func listPods(ctx context.Context, c kubernetes.Interface) error {
	_, err := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: v1alpha1.InitializingLabel})
	return err
}
