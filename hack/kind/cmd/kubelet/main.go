//go:build admissionconformance_kubelet

// Command kubelet is the kind node image's kubelet: upstream's kubelet of
// the pinned release with the project's reference KEP-2823 plugin host
// (reference/nodeadmission) first in its admit chain, as the hollow
// kubelets host it. It builds only against a copy of k8s.io/kubernetes whose
// cmd/kubelet/app has the WrapContainerManager seam (hack/kind/build-binaries.sh
// adds it), hence the build tag.
//
// The host reads nodeadmission.HostConfigDir's host.json for every pod, so
// whoever mounted that directory (the kind provider) configures it and can
// change it without a restart; without the file the node admits as upstream
// does. At start the kubelet writes kubelet.json there, naming its node.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/version"
	"k8s.io/kubernetes/cmd/kubelet/app"
	"k8s.io/kubernetes/pkg/kubelet/cm"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

func main() {
	if err := announce(nodeadmission.HostConfigDir); err != nil {
		fmt.Fprintf(os.Stderr, "node admission host: %v (plugins are still asked if host.json appears)\n", err)
	}
	app.WrapContainerManager = func(m cm.ContainerManager) cm.ContainerManager {
		return &kubecompat.ContainerManager{ContainerManager: m, First: hollow.PluginAdmitHandler(admit)}
	}
	os.Exit(cli.Run(app.NewKubeletCommand(context.Background())))
}

// announce writes kubelet.json when the directory is mounted.
func announce(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	node, err := os.Hostname()
	if err != nil {
		return err
	}
	data, err := nodeadmission.EncodeReady(nodeadmission.Ready{Node: node, Version: version.Get().GitVersion})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, nodeadmission.ReadyFile), data, 0o644)
}

// admit asks the plugins host.json configures, as that file says now.
func admit(ctx context.Context, pod *corev1.Pod) nodeadmission.AdmitResult {
	c, err := nodeadmission.ReadHostConfig(nodeadmission.HostConfigDir)
	if errors.Is(err, nodeadmission.ErrNoHostConfig) {
		return nodeadmission.AdmitResult{Admit: true}
	}
	if err == nil {
		var host *nodeadmission.Host
		if host, err = c.Host(); err == nil {
			return host.Admit(ctx, pod)
		}
	}
	// A host that cannot read its own configuration fails closed, as it does
	// for an invalid plugin configuration.
	return nodeadmission.AdmitResult{Reason: nodeadmission.ReasonConfigInvalid, Message: "node admission host configuration: " + err.Error()}
}
