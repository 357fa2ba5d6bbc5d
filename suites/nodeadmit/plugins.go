package nodeadmit

import (
	"time"

	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// pluginNode is the node plugin cases use.
func pluginNode(f *harness.Framework) string {
	node, err := nodedecision.NodeWith(f, features.NodeAdmissionPlugins)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return node
}

// fakePlugin is a plugin of type t that behaves as b towards subject pods
// and admits every other pod (control pods among them).
func fakePlugin(name string, t nodeadmission.PluginType, b fakenodeplugin.Behaviour) fakenodeplugin.Plugin {
	b.Match = subjectLabel
	return fakenodeplugin.Plugin{Name: name, Type: t, Behaviour: b}
}

// forEachType declares one case per plugin type: every contract holds for
// shell, grpc and socket plugins alike.
func forEachType(text string, body func(ctx context.Context, t nodeadmission.PluginType)) {
	for _, t := range nodeadmission.PluginTypes {
		ginkgo.It(text+" ("+string(t)+" plugin)", func(ctx ginkgo.SpecContext) { body(ctx, t) })
	}
}

// installWithControl installs plugins on the plugin node and shows that a
// control pod passes them: the host works and asks every plugin about it.
func installWithControl(ctx context.Context, f *harness.Framework, plugins ...fakenodeplugin.Plugin) (string, *nodedecision.Plugins, time.Duration) {
	node, installed, control := installWithControlDecision(ctx, f, plugins...)
	return node, installed, control.Latency
}

// installWithControlDecision is installWithControl returning the control
// pod's decision too: its latency is what asking the plugins costs on this
// machine now, before any Behaviour delay (fakePlugin's behaviours apply to
// the subject alone).
func installWithControlDecision(ctx context.Context, f *harness.Framework, plugins ...fakenodeplugin.Plugin) (string, *nodedecision.Plugins, nodes.Decision) {
	node := pluginNode(f)
	installed, err := nodedecision.InstallPlugins(ctx, f, node, plugins...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	control := nodedecision.Pod(f, node, "control")
	d, err := nodedecision.Decide(ctx, f, control)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(d.Admitted).To(gomega.BeTrue(), "control pod rejected (%s: %s)", d.Pod.Status.Reason, d.Pod.Status.Message)
	for _, p := range plugins {
		expectAsked(installed, p.Name, d.Pod, 1)
	}
	return node, installed, d
}

// expectAsked checks that plugin was asked about pod n times.
func expectAsked(plugins *nodedecision.Plugins, plugin string, pod *corev1.Pod, n int) []nodedecision.Invocation {
	invs, err := plugins.Invocations(plugin, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(invs).To(gomega.HaveLen(n), "plugin %s was asked about pod %s %d time(s)", plugin, pod.Name, len(invs))
	return invs
}

// decideSubject creates the case's subject pod on node.
func decideSubject(ctx context.Context, f *harness.Framework, node string) (*corev1.Pod, nodes.Decision) {
	d, err := nodedecision.Decide(ctx, f, subject(f, node, "subject"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return d.Pod, d
}
