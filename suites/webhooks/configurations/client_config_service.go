package configurations

import (
	"fmt"
	"net/url"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookServiceReference = spec.Spec{
	ShortName: "WebhookServiceReference",
	Suite:     "webhooks",
	Description: "A webhook named by clientConfig.service is called at the Service's port, on the path given, " +
		"with TLS verified for <service>.<namespace>.svc; a live change of the service's path reaches the other " +
		"endpoint, and a port the Service lacks, or a Service or namespace that does not exist, fails the call.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.WebhookServiceReference},
	Profile:   spec.Extended,
	Isolation: speckit.WebhookQuiet,
	Seed:      "admissionregistration.k8s.io/v1 WebhookClientConfig.service (namespace, name, path, port)",
}

// servicePort is the Service's port the webhooks name; the Service sends it
// to the forwarder's port.
const servicePort = 8443

var _ = harness.Describe(webhookServiceReference, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("%s webhook reached through a Service, its service fields changed live", phase), func(ctx ginkgo.SpecContext) {
			ip, err := fakewebhook.ExternalIPv4()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			fw, err := f.Env.Webhooks.Forward(ip)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.DeferCleanup(fw.Close)

			messages := map[string]string{"a": "through the service, path a " + f.Namespace, "b": "through the service, path b " + f.Namespace}
			paths := map[string]string{}
			var caBundle []byte
			for k, msg := range messages {
				_, client, err := f.Serve(phase, "service-"+k, fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: msg})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				u, err := url.Parse(*client.URL)
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				paths[k], caBundle = u.Path, client.CABundle
			}

			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Labels: f.Labels()}, Spec: corev1.ServiceSpec{
				Ports: []corev1.ServicePort{{Name: "https", Port: servicePort, TargetPort: intstr.FromInt32(int32(fw.Port()))}}}}
			_, err = f.Client.CoreV1().Services(f.Namespace).Create(ctx, svc, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			slice := &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Name: "hooks-host", Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
				Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(fw.Port())), Protocol: ptr.To(corev1.ProtocolTCP)}},
			}
			_, err = f.Client.DiscoveryV1().EndpointSlices(f.Namespace).Create(ctx, slice, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			hook := admissionregistrationv1.ValidatingWebhook{
				Name: "service." + f.Namespace + ".admission-conformance.io",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: caBundle, Service: &admissionregistrationv1.ServiceReference{
					Namespace: f.Namespace, Name: svc.Name, Path: ptr.To(paths["a"]), Port: ptr.To[int32](servicePort)}},
				Rules:          speckit.ConfigMapRules(),
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: "gated"}},
			}
			cfg := propagationConfig{name: fmt.Sprintf("%s-service-%s", f.Namespace, phase), labels: f.Labels(), namespace: f.Namespace, gate: hook,
				// broken matches nothing the case sends: the configuration's second hook.
				broken: admissionregistrationv1.ValidatingWebhook{Name: "unused." + hook.Name, ClientConfig: hook.ClientConfig, Rules: speckit.ConfigMapRules(),
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: "never"}}}}
			gomega.Expect(cfg.create(ctx, f, phase)).To(gomega.Succeed())

			bound := f.Bounds.WebhookConfigPropagation.Duration
			stats := speckit.NewLatencies("webhook-service-change-propagation", bound)
			await := func(what string, p enforce.Probe) {
				perReplica, err := enforce.OnEveryReplicaSeen(ctx, time.Now(), f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration, p)
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of a %s webhook reached through a Service", what, phase)
				stats.Add(f, map[string]string{"phase": string(phase), "change": what}, perReplica)
				speckit.ExpectEachWithin(perReplica, bound, fmt.Sprintf("%s of a live %s webhook's service", what, phase))
			}
			denied := func(msg string) enforce.Probe {
				return probe(f, "gated", func(err error) bool { return speckit.DeniedWith(err, msg) })
			}
			failed := probe(f, "gated", apierrors.IsInternalError)
			await("create", denied(messages["a"]))
			for _, c := range []struct {
				field    string
				change   func(*admissionregistrationv1.ServiceReference)
				enforced enforce.Probe
			}{
				{"service.path", func(s *admissionregistrationv1.ServiceReference) { s.Path = ptr.To(paths["b"]) }, denied(messages["b"])},
				{"service.port", func(s *admissionregistrationv1.ServiceReference) { s.Port = ptr.To[int32](servicePort + 1) }, failed},
				{"service.name", func(s *admissionregistrationv1.ServiceReference) { s.Name = "absent" }, failed},
				{"service.namespace", func(s *admissionregistrationv1.ServiceReference) { s.Namespace = f.Namespace + "-absent" }, failed},
			} {
				saved := cfg.clone()
				ref := cfg.gate.ClientConfig.Service.DeepCopy()
				c.change(ref)
				cfg.gate.ClientConfig.Service = ref
				gomega.Expect(cfg.update(ctx, f, phase)).To(gomega.Succeed(), "change %s", c.field)
				await(c.field, c.enforced)
				cfg = saved
				gomega.Expect(cfg.update(ctx, f, phase)).To(gomega.Succeed(), "change %s back", c.field)
				await(c.field+" back", denied(messages["a"]))
			}
			stats.Summarize(f)
		})
	}
})
