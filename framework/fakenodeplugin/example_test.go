package fakenodeplugin_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// A fake KEP-2823 plugin is told how to answer; nodedecision.InstallPlugins
// puts it on a node's plugin host for one case.
func ExamplePlugin() {
	p := fakenodeplugin.Plugin{Name: "acme-gate", Type: nodeadmission.PluginTypeGRPC,
		Behaviour: fakenodeplugin.Behaviour{Action: fakenodeplugin.Reject, Reason: "AcmeRefused", Message: "not on this node"}}
	fmt.Println(p.Validate())
	p.Behaviour.Action = "explode"
	fmt.Println(p.Validate() != nil)
	// Output:
	// <nil>
	// true
}
