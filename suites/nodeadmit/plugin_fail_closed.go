package nodeadmit

import (
	"context"

	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// failure is a plugin that gives no valid answer, and how the host must
// reject the pod for it.
type failure struct {
	behaviour fakenodeplugin.Behaviour
	reason    string
	// answers says the plugin sends something (garbage) rather than nothing.
	answers bool
	// timesOut says the rejection comes only at the host's timeout.
	timesOut bool
}

// expectFailsClosed installs one failing plugin of type t and checks that
// the subject pod is rejected with the host's Reason and a message naming
// the plugin.
func expectFailsClosed(ctx context.Context, f *harness.Framework, t nodeadmission.PluginType, fail failure) {
	broken := fakePlugin("broken-"+string(t), t, fail.behaviour)
	node, installed, control := installWithControl(ctx, f, broken)
	want := rejection{reason: fail.reason, messageContains: `admission plugin "` + broken.Name + `"`, control: control}
	if fail.timesOut {
		// No earlier than the host's timeout; later by at most the slack
		// plus what getting the pod to the plugins and its status back cost
		// just before (the control pod: 0.93 s once on a loaded machine,
		// where a shell plugin's timeout case then took 3.76 s).
		want.lower, want.bound = installed.Timeout(), installed.Timeout()+f.Bounds.TimingSlack.Duration+control
	}
	pod, d := decideSubject(ctx, f, node)
	expectRejected(ctx, f, d, want)
	invs := expectAsked(installed, broken.Name, pod, 1)
	gomega.Expect(invs[0].Answered()).To(gomega.Equal(fail.answers), "whether the broken plugin sent an answer")
}
