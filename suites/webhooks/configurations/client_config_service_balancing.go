package configurations

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookServiceBalancedPerRequest = spec.Spec{
	ShortName: "WebhookServiceBalancedPerRequest",
	Suite:     "webhooks",
	Description: "A webhook named by clientConfig.service with two endpoints: successive calls from one apiserver " +
		"reach both (the endpoint is picked per request, not once per connection); an endpoint removed from the " +
		"Service gets no call once its removal has reached the apiserver, within the propagation bound.",
	Features:  []features.Name{features.ValidatingWebhook, features.WebhookServiceReference, features.WebhookRoundTripLoadBalancing},
	Profile:   spec.Extended,
	Isolation: speckit.WebhookQuiet,
	Seed:      "admissionregistration.k8s.io/v1 WebhookClientConfig.service; gate WebhookRoundTripLoadBalancing (beta in 1.37)",
}

// balancedCalls is how many calls each replica makes before both endpoints
// must have had one: with the endpoint picked at random per request, one
// endpoint gets them all with probability 2^-(balancedCalls-1) (under one in
// 500,000); picked per connection, every call reuses the first.
const balancedCalls = 20

var _ = harness.Describe(webhookServiceBalancedPerRequest, func(f *harness.Framework) {
	ginkgo.It("reaches both endpoints of the Service request by request, and stops calling one removed", func(ctx ginkgo.SpecContext) {
		ip, err := fakewebhook.ExternalIPv4()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		endpoints := map[string]*fakewebhook.Forwarder{}
		for _, name := range []string{"a", "b"} {
			fw, err := f.Env.Webhooks.Forward(ip)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.DeferCleanup(fw.Close)
			endpoints[name] = fw
		}
		hook, client, err := f.Serve(fakewebhook.Validating, "balanced", fakewebhook.Behaviour{Action: fakewebhook.Allow})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		u, err := url.Parse(*client.URL)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		// One Service, one EndpointSlice per endpoint: the two endpoints are
		// this host's address at the two forwarders' ports.
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "balanced", Labels: f.Labels()}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "https", Port: servicePort, TargetPort: intstr.FromString("https")}}}}
		_, err = f.Client.CoreV1().Services(f.Namespace).Create(ctx, svc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		slices := f.Client.DiscoveryV1().EndpointSlices(f.Namespace)
		for name, fw := range endpoints {
			slice := &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Name: "balanced-" + name, Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
				Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(fw.Port())), Protocol: ptr.To(corev1.ProtocolTCP)}},
			}
			_, err = slices.Create(ctx, slice, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}

		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-balanced", Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: hook.FullName,
				ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: client.CABundle, Service: &admissionregistrationv1.ServiceReference{
					Namespace: f.Namespace, Name: svc.Name, Path: ptr.To(u.Path), Port: ptr.To[int32](servicePort)}},
				Rules:                   speckit.ConfigMapRules(),
				ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: "balanced"}},
				NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}},
				FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}
		_, err = f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete, cfg.Name)

		journal := f.Env.Webhooks.Journal()
		// reached sends one call through rc and says which endpoint got it
		// ("" if the webhook was not called, the peer if neither forwarder
		// carried the call), or the error the call got.
		reached := func(ctx context.Context, rc *rest.Config) (string, error) {
			before := journal.Len()
			if _, err := speckit.DryRunCreate(ctx, rc, f.Namespace, "balanced"); err != nil {
				return "", err
			}
			for _, c := range journal.Calls()[before:] {
				if c.Path != hook.Path {
					continue
				}
				for name, fw := range endpoints {
					if fw.Carried(c.RemoteAddr) {
						return name, nil
					}
				}
				return "a peer neither endpoint relayed, " + c.RemoteAddr, nil
			}
			return "", nil
		}
		// allowed is reached for a call that must succeed.
		allowed := func(ctx context.Context, rc *rest.Config) string {
			name, err := reached(ctx, rc)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a call the webhook allows")
			return name
		}
		for replica, rc := range f.Replicas {
			// The configuration, the Service and its two EndpointSlices reach
			// the replica through separate watches, in no set order: until the
			// configuration has, a call reaches no endpoint; until a slice
			// has, the call fails with no endpoints available.
			gomega.Eventually(ctx, func(ctx context.Context) (string, error) { return reached(ctx, rc) }).
				WithTimeout(f.Bounds.WebhookReady.Duration).WithPolling(f.Bounds.PollInterval.Duration).
				ShouldNot(gomega.BeEmpty(), "replica %d never called the webhook through the Service", replica)
			// The second slice may still be on its way: within the propagation
			// bound, one run of successive calls must reach both endpoints.
			// Picked per connection, no run ever does.
			var got map[string]int
			gomega.Eventually(ctx, func(g gomega.Gomega, ctx context.Context) {
				got = map[string]int{}
				for range balancedCalls {
					name, err := reached(ctx, rc)
					if err != nil {
						gomega.StopTrying("a call the webhook allows failed").Wrap(err).Now()
					}
					if name == "" {
						gomega.StopTrying(fmt.Sprintf("replica %d: a call reached neither endpoint", replica)).Now()
					}
					got[name]++
				}
				g.Expect(got).To(gomega.And(gomega.HaveKey("a"), gomega.HaveKey("b")))
			}).WithTimeout(f.Bounds.WebhookConfigPropagation.Duration).WithPolling(f.Bounds.PollInterval.Duration).
				Should(gomega.Succeed(), func() string {
					return fmt.Sprintf("replica %d: runs of %d successive calls reached the endpoints %v (the last run): picked once per connection, not per request",
						replica, balancedCalls, got)
				})
		}

		// Endpoint b leaves the Service: from its removal on, each replica
		// must stop calling it within the propagation bound.
		bound := f.Bounds.WebhookConfigPropagation.Duration
		removed := time.Now()
		gomega.Expect(slices.Delete(ctx, "balanced-b", metav1.DeleteOptions{})).To(gomega.Succeed())
		for replica, rc := range f.Replicas {
			var last time.Duration // the last call b got, after the removal
			settled := 0           // calls in a row that reached a since then
			for settled < balancedCalls {
				gomega.Expect(time.Since(removed)).To(gomega.BeNumerically("<=", f.Bounds.WebhookReady.Duration),
					"replica %d still calls the removed endpoint", replica)
				switch allowed(ctx, rc) {
				case "b":
					last, settled = time.Since(removed), 0
				case "a":
					settled++
				default:
					ginkgo.Fail(fmt.Sprintf("replica %d: a call reached neither endpoint", replica))
				}
			}
			up := bound.Seconds()
			f.Record(results.Measurement{Name: "removed-endpoint-last-call", Value: last.Seconds(), Unit: "s", Bound: &up,
				Labels: map[string]string{"replica": fmt.Sprint(replica)}})
			gomega.Expect(last).To(gomega.BeNumerically("<=", bound),
				"replica %d called the removed endpoint %s after its removal, bound %s", replica, last, bound)
		}
	})
})
