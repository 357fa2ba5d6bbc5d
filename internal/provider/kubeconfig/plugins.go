package kubeconfig

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// The in-cluster relay's objects.
const (
	relayName       = "webhook-relay"
	relayListenPort = 8443
	relayTunnelPort = 9000
	relayHealthPort = 9001
	// routeGrace is how long the relay's Service is given, once its
	// EndpointSlice lists the pod, for every node's kube-proxy to route the
	// cluster IP (minSyncPeriod is 1 s by default); until then the
	// apiservers' calls are refused.
	routeGrace = 3 * time.Second
	// RunLabel is harness.RunLabel (the harness imports this package's
	// users, not the other way round): `cleanup` finds a killed run's relay
	// namespace by it.
	RunLabel = "admission-conformance.io/run"
	// RelayCommand is the hidden subcommand the relay pod runs.
	RelayCommand = "webhook-relay"
)

// WithPluginImage runs the harness's fake webhooks behind a relay pod in
// the cluster, from image (this binary, written by `run-conformance image`
// and pushed where the cluster pulls from), for apiservers that cannot reach
// this host.
func WithPluginImage(image string) Option {
	return optionFunc(func(p *Provider) { p.pluginImage = image })
}

// relayed is an existing cluster whose apiservers call the webhook server
// through the relay.
type relayed struct {
	*existing
	client    kubernetes.Interface
	namespace string
	listen    string // the webhook server's address on this host
	advertise string // the relay Service's ClusterIP:443
	stopFwd   chan struct{}
	tunnels   *tunnels
}

// WebhookEndpoint implements cluster.WebhookEndpoint.
func (c *relayed) WebhookEndpoint() (string, string) { return c.listen, c.advertise }

// Capabilities adds HostWebhooksReachable: the apiservers reach the
// harness's webhook server (through the relay).
func (c *relayed) Capabilities() features.Set {
	return c.existing.Capabilities().Union(features.NewSet(features.HostWebhooksReachable))
}

func (c *relayed) Topology() string {
	return c.existing.Topology() + ", webhooks relayed by pod " + c.namespace + "/" + relayName
}

// Stop ends the tunnels and the port-forward and deletes the relay's
// namespace.
func (c *relayed) Stop(ctx context.Context) error {
	if c.tunnels != nil {
		c.tunnels.close()
		c.tunnels = nil
	}
	if c.stopFwd != nil {
		close(c.stopFwd)
		c.stopFwd = nil
	}
	if c.namespace == "" {
		return nil
	}
	err := c.client.CoreV1().Namespaces().Delete(ctx, c.namespace, metav1.DeleteOptions{})
	c.namespace = ""
	if err != nil {
		return fmt.Errorf("delete the relay namespace: %w", err)
	}
	return nil
}

var _ cluster.WebhookEndpoint = (*relayed)(nil)

// startRelay creates the relay (namespace, pod, service), waits for it,
// forwards a local port to its tunnel port and starts the tunnels. On error
// it removes what it created.
func (p *Provider) startRelay(ctx context.Context, cfg *rest.Config, base *existing) (_ *relayed, err error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := hex.EncodeToString(suffix)
	c := &relayed{existing: base, client: client}
	defer func() {
		if err != nil {
			_ = c.Stop(context.Background())
		}
	}()
	labels := map[string]string{RunLabel: "relay-" + id}
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "admission-conformance-relay-" + id, Labels: labels,
	}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("relay: create namespace: %w", err)
	}
	c.namespace = ns.Name
	if _, err := client.CoreV1().Pods(c.namespace).Create(ctx, relayPod(p.pluginImage, labels), metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("relay: create pod: %w", err)
	}
	svc, err := client.CoreV1().Services(c.namespace).Create(ctx, relayService(labels), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("relay: create service: %w", err)
	}
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return nil, fmt.Errorf("relay: service %s/%s got no cluster IP", c.namespace, relayName)
	}
	c.advertise = net.JoinHostPort(svc.Spec.ClusterIP, "443")
	p.logger.Info("relay: waiting for pod", "namespace", c.namespace, "image", p.pluginImage)
	if err := waitPodReady(ctx, client, c.namespace, relayName); err != nil {
		return nil, err
	}
	if err := waitRouted(ctx, client, c.namespace, relayName); err != nil {
		return nil, err
	}
	if c.listen, err = freeLocalAddress(); err != nil {
		return nil, err
	}
	c.stopFwd = make(chan struct{})
	local, err := forward(ctx, cfg, c.namespace, relayName, relayTunnelPort, c.stopFwd, p.logger)
	if err != nil {
		return nil, err
	}
	c.tunnels = startTunnels(local, c.listen, 8, p.logger)
	p.logger.Info("relay: ready", "service", c.advertise, "webhook server", c.listen)
	return c, nil
}

func relayPod(image string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: relayName, Labels: labels},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			EnableServiceLinks:           ptr.To(false),
			Containers: []corev1.Container{{
				Name:  "relay",
				Image: image,
				Args: []string{RelayCommand, "--listen", ":" + strconv.Itoa(relayListenPort),
					"--tunnel", ":" + strconv.Itoa(relayTunnelPort), "--health", ":" + strconv.Itoa(relayHealthPort)},
				Ports: []corev1.ContainerPort{{Name: "webhooks", ContainerPort: relayListenPort}, {Name: "tunnel", ContainerPort: relayTunnelPort},
					{Name: "health", ContainerPort: relayHealthPort}},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(relayHealthPort)}},
					PeriodSeconds: 1,
				},
				SecurityContext: &corev1.SecurityContext{
					RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), AllowPrivilegeEscalation: ptr.To(false),
					ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities:           &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile:         &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
			}},
		},
	}
}

func relayService(labels map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: relayName, Labels: labels},
		Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "webhooks", Port: 443, TargetPort: intstr.FromInt32(relayListenPort)}},
		},
	}
}

func waitPodReady(ctx context.Context, client kubernetes.Interface, ns, name string) error {
	var last string
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pod, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = string(pod.Status.Phase)
		for _, s := range pod.Status.ContainerStatuses {
			if s.State.Waiting != nil {
				last += ": " + s.State.Waiting.Reason + " " + s.State.Waiting.Message
			}
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("relay pod %s/%s not ready (%s): %w", ns, name, last, err)
	}
	return nil
}

// waitRouted waits until the Service's EndpointSlice lists a ready
// endpoint, then routeGrace for kube-proxy to program it.
func waitRouted(ctx context.Context, client kubernetes.Interface, ns, svc string) error {
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		slices, err := client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
		if err != nil {
			return false, nil
		}
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("relay service %s/%s has no ready endpoint: %w", ns, svc, err)
	}
	select {
	case <-time.After(routeGrace):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// freeLocalAddress picks a loopback port for the webhook server.
func freeLocalAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// forward port-forwards a loopback port to the pod's port until stop is
// closed and returns the local address.
func forward(ctx context.Context, cfg *rest.Config, ns, pod string, port int, stop chan struct{}, logger logr.Logger) (string, error) {
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return "", err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	url := client.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	ready := make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, logWriter{logger})
	if err != nil {
		return "", err
	}
	failed := make(chan error, 1)
	go func() { failed <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-failed:
		return "", fmt.Errorf("relay: port-forward to %s/%s: %w", ns, pod, err)
	case <-ctx.Done():
		return "", ctx.Err()
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		return "", errors.Join(errors.New("relay: port-forward has no local port"), err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local))), nil
}

type logWriter struct{ l logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.V(1).Info("relay port-forward: " + string(p))
	return len(p), nil
}
