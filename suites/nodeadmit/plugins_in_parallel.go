package nodeadmit

import (
	"context"
	"time"

	"github.com/onsi/gomega"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginsRunInParallel = spec.Spec{
	ShortName: "NodePluginsRunInParallel",
	Suite:     "nodeadmit",
	Description: "Two node admission plugins that each take 1 s to admit a pod are asked at the same time: the pod is " +
		"admitted in about 1 s, not 2 s.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedParallel,
	Isolation: installsPlugins,
}

// slowAnswer is how long each plugin takes.
const slowAnswer = time.Second

var _ = describe(pluginsRunInParallel, func(f *harness.Framework) {
	forEachType("admits a pod two slow plugins admit in the time of one", func(ctx context.Context, t nodeadmission.PluginType) {
		slow := fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit, Delay: bounds.D(slowAnswer)}
		a, b := fakePlugin("slow-a", t, slow), fakePlugin("slow-b", t, slow)
		node, installed, control := installWithControlDecision(ctx, f, a, b)
		pod, d := decideSubject(ctx, f, node)
		gomega.Expect(d.Admitted).To(gomega.BeTrue(), "rejected (%s: %s)", pod.Status.Reason, pod.Status.Message)

		// Called one after the other, the two plugins add at least 2 s to
		// what asking them costs without a delay (the control pod's
		// latency, taken just before on the same plugins: starting a shell
		// plugin is a process of this large binary, up to a second or more
		// on a loaded 2-core machine); together, 1 s. The bound lies
		// halfway, so the measurement holds on a starved machine and a
		// serial host still fails it.
		bound := control.Latency + 3*slowAnswer/2
		m := results.Measurement{Name: "admission-latency-two-slow-plugins", Value: ms(d.Latency), Unit: "ms",
			Lower: ptr.To(ms(slowAnswer)), Bound: ptr.To(ms(bound)),
			Labels: map[string]string{"type": string(t), "controlLatency": control.Latency.String()}}
		f.Record(m)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "admission took %s, want within [%s, %s] (the control pod, without the delays, took %s)",
			d.Latency, slowAnswer, bound, control.Latency)

		// The journals show it directly: each plugin got the pod before
		// the other answered.
		ia, ib := expectAsked(installed, a.Name, pod, 1)[0], expectAsked(installed, b.Name, pod, 1)[0]
		gomega.Expect(ia.Answered() && ib.Answered()).To(gomega.BeTrue(), "both plugins answered")
		gomega.Expect(ia.ReceivedNanos).To(gomega.BeNumerically("<", ib.AnsweredNanos), "slow-a was asked only after slow-b answered")
		gomega.Expect(ib.ReceivedNanos).To(gomega.BeNumerically("<", ia.AnsweredNanos), "slow-b was asked only after slow-a answered")
	})
})
