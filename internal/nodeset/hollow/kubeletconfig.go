package hollow

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/cmd/kubelet/app/options"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// inDir is how the kubelet names its files: through the node's working
// directory (the child changes into Config.Dir first). Paths stay short
// however deep the run's temp dir is, which matters for the Unix sockets the
// kubelet creates (a socket path holds at most 107 bytes).
const inDir = "/proc/self/cwd/"

// criEndpoint is the fake container runtime's socket.
const criEndpoint = "unix://" + inDir + "cri.sock"

// kubeletConfig is kubemark's GetHollowKubeletConfig without its temp dirs
// under /tmp, and without any server port: nothing calls the kubelet.
func kubeletConfig(c Config) (*options.KubeletFlags, *kubeletconfig.KubeletConfiguration, error) {
	f := options.NewKubeletFlags()
	f.RootDirectory = inDir + "root"
	f.CertDirectory = inDir + "pki"
	f.HostnameOverride = c.Name
	f.MinimumGCAge = metav1.Duration{Duration: time.Minute}
	f.MaxContainerCount = 100
	f.MaxPerPodContainerCount = 2
	f.NodeLabels = map[string]string{}
	for k, v := range c.Labels {
		f.NodeLabels[k] = v
	}
	f.NodeLabels[AppArmorLabel] = appArmorLabelValue()
	f.NodeLabels[HollowLabel] = "true"
	if err := options.ValidateKubeletFlags(f); err != nil {
		return nil, nil, err
	}

	k, err := options.NewKubeletConfiguration()
	if err != nil {
		return nil, nil, fmt.Errorf("default kubelet configuration: %w", err)
	}
	k.ContainerRuntimeEndpoint = criEndpoint
	k.ImageServiceEndpoint = criEndpoint
	k.StaticPodURL = ""
	k.StaticPodPath = ""
	k.EnableServer = false
	k.Port = 0
	k.ReadOnlyPort = 0
	k.HealthzPort = 0
	k.Address = "127.0.0.1"
	k.FileCheckFrequency.Duration = 20 * time.Second
	k.HTTPCheckFrequency.Duration = 20 * time.Second
	k.NodeStatusUpdateFrequency.Duration = 10 * time.Second
	k.NodeStatusReportFrequency.Duration = 5 * time.Minute
	k.SyncFrequency.Duration = 10 * time.Second
	k.EvictionPressureTransitionPeriod.Duration = 5 * time.Minute
	k.MaxPods = c.MaxPods
	k.PodsPerCore = 0
	k.ClusterDNS = []string{}
	k.ImageGCHighThresholdPercent = 90
	k.ImageGCLowThresholdPercent = 80
	k.ProviderID = "admission-conformance://" + c.Name
	k.VolumeStatsAggPeriod.Duration = time.Minute
	k.CgroupRoot = ""
	k.CPUCFSQuota = true
	k.EnableControllerAttachDetach = false
	k.EnableDebuggingHandlers = false
	k.CgroupsPerQOS = false
	k.HairpinMode = kubeletconfig.HairpinVeth
	k.MaxOpenFiles = 1024
	k.RegistryBurst = 10
	k.RegistryPullQPS = 5.0
	k.ResolverConfig = kubetypes.ResolvConfDefault
	k.KubeletCgroups = "/kubelet"
	k.SerializeImagePulls = true
	k.SystemCgroups = ""
	k.ProtectKernelDefaults = false
	k.RegisterNode = true
	k.LocalStorageCapacityIsolation = true
	k.PodLogsDir = inDir + "logs"
	k.KubeAPIQPS = int32(c.QPS)
	k.KubeAPIBurst = int32(c.Burst)
	k.FeatureGates = map[string]bool{}
	for name, on := range c.FeatureGates {
		k.FeatureGates[name] = on
	}
	return f, k, nil
}
