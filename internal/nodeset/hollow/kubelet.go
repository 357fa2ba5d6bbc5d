package hollow

import (
	"context"
	"fmt"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	fakeremote "k8s.io/cri-client/pkg/fake"
	kubeletapp "k8s.io/kubernetes/cmd/kubelet/app"
	"k8s.io/kubernetes/cmd/kubelet/app/options"
	cadvisortest "k8s.io/kubernetes/pkg/kubelet/cadvisor/testing"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubemark"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Run starts the kubelet described by c and returns when ctx ends. The
// kubelet cannot be stopped: the caller ends the process after Run returns.
func Run(ctx context.Context, c Config) error {
	if err := os.Chdir(c.Dir); err != nil {
		return fmt.Errorf("node %s: %w", c.Name, err)
	}
	flags, config, err := kubeletConfig(c)
	if err != nil {
		return fmt.Errorf("node %s: kubelet configuration: %w", c.Name, err)
	}
	// As the kubelet's own run() does before anything consults a gate
	// (RunKubelet, which the hollow kubelet enters by, does not).
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(config.FeatureGates); err != nil {
		return fmt.Errorf("node %s: feature gates: %w", c.Name, err)
	}
	client, heartbeat, err := clients(c, config.NodeStatusUpdateFrequency.Duration, time.Duration(config.NodeLeaseDurationSeconds)*time.Second)
	if err != nil {
		return fmt.Errorf("node %s: %w", c.Name, err)
	}
	containerManager, err := containerManager(c)
	if err != nil {
		return fmt.Errorf("node %s: %w", c.Name, err)
	}

	runtime := fakeremote.NewFakeRemoteRuntime()
	if err := runtime.Start(criEndpoint); err != nil {
		return fmt.Errorf("node %s: start fake container runtime: %w", c.Name, err)
	}
	defer runtime.Stop()
	runtimeService, err := kubecompat.NewRuntimeService(ctx, criEndpoint, 15*time.Second)
	if err != nil {
		return fmt.Errorf("node %s: connect to fake container runtime: %w", c.Name, err)
	}

	hollow := kubemark.NewHollowKubelet(flags, config, client, heartbeat,
		&cadvisortest.Fake{NodeName: c.Name}, runtime.ImageService, runtimeService, containerManager)
	deps := hollow.KubeletDeps
	// kubemark drops every event (record.FakeRecorder). A nil recorder makes
	// RunKubelet build the real one, which sends events to the apiserver: a
	// rejected pod's Warning event is part of the contract. (The real
	// recorder also starts the kernel OOM watcher, which reads /dev/kmsg.)
	deps.Recorder = nil
	deps.EventClient = client.CoreV1()
	broken, err := brokenOption(c.Broken)
	if err != nil {
		return err
	}
	if broken != nil {
		deps.Options = append(deps.Options, broken)
	}
	server := &options.KubeletServer{KubeletFlags: *flags, KubeletConfiguration: *config}
	if err := kubeletapp.RunKubelet(ctx, server, deps); err != nil {
		return fmt.Errorf("node %s: run kubelet: %w", c.Name, err)
	}
	<-ctx.Done()
	return nil
}

// clients are the kubelet's main client and its heartbeat client, whose
// timeout is the shorter of status update period and lease duration, as in
// kubemark.
func clients(c Config, statusPeriod, lease time.Duration) (*clientset.Clientset, *clientset.Clientset, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig: %w", err)
	}
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.QPS, rc.Burst = c.QPS, c.Burst
	rc.UserAgent = "hollow-kubelet/" + c.Name
	client, err := clientset.NewForConfig(rc)
	if err != nil {
		return nil, nil, err
	}
	hb := *rc
	hb.Timeout = min(statusPeriod, lease)
	hb.QPS = -1
	heartbeat, err := clientset.NewForConfig(&hb)
	if err != nil {
		return nil, nil, err
	}
	return client, heartbeat, nil
}

// containerManager is kubemark's stub, advertising the extended resources,
// with the plugin host in front of its admit handler when configured.
func containerManager(c Config) (cm.ContainerManager, error) {
	extended := v1.ResourceList{}
	for name, q := range c.ExtendedResources {
		quantity, err := resource.ParseQuantity(q)
		if err != nil {
			return nil, fmt.Errorf("extended resource %s: %w", name, err)
		}
		extended[v1.ResourceName(name)] = quantity
	}
	stub := cm.NewStubContainerManagerWithDevicePluginResource(extended)
	if c.Plugins == nil {
		return stub, nil
	}
	host := &nodeadmission.Host{ConfigDir: c.Plugins.ConfigDir, PluginDir: c.Plugins.PluginDir,
		Timeout: c.Plugins.Timeout.Duration, FailOpen: c.Plugins.FailOpen, RejectLate: c.Plugins.RejectLate,
		IgnoreRejections: c.Plugins.IgnoreRejections}
	return &kubecompat.ContainerManager{ContainerManager: stub, First: PluginAdmitHandler(host.Admit)}, nil
}
