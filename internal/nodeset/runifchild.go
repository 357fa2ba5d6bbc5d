package nodeset

import (
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
)

// The child roles this binary can play.
const (
	// RoleHollowNode is a hollow kubelet.
	RoleHollowNode = "hollow-node"
	// RoleNodePlugin is a fake node admission plugin.
	RoleNodePlugin = fakenodeplugin.Role
)

// RunIfChild runs the child role this process was started for and exits;
// it returns at once in a process that is not a child. Call it first thing
// in main and in TestMain.
func RunIfChild() {
	role, config, ok := childproc.Take()
	if !ok {
		return
	}
	if err := RunChild(role, config); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// RunChild runs a child role in this process until its parent goes away.
// The CLI's hidden hollow-node command calls it too, so a node can be
// started by hand.
func RunChild(role, config string) error {
	switch role {
	case RoleHollowNode:
		c, err := hollow.ReadConfig(config)
		if err != nil {
			return err
		}
		setKlogVerbosity(c.Verbosity)
		return hollow.Run(childproc.ParentGone(), c)
	case fakenodeplugin.Role:
		return fakenodeplugin.RunChild(childproc.ParentGone(), config)
	}
	return fmt.Errorf("unknown child role %q", role)
}

// The fake node plugins' servers are children of this binary too: Install
// starts them through StartServer.
func init() {
	fakenodeplugin.StartServer = func(s fakenodeplugin.ServerSpec) (fakenodeplugin.Server, error) {
		p, err := childproc.Start(childproc.Spec{Name: s.Name, Role: fakenodeplugin.Role, Config: s.Config, Log: s.Log,
			Prefix: s.Name + ": ", Elsewhere: s.Elsewhere})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}
