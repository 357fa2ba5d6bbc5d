// Package childproc starts every child process of the harness's own
// binary, so that process groups, the parent-death pipe, output routing,
// exit codes and signal forwarding are done in one place:
//
//   - roles of this binary: hollow kubelets (one process each, since a
//     kubelet can neither share a process nor be stopped) and fake node
//     admission plugins, which the parent stops itself (Stop);
//   - subcommands of this binary (Spec.Args): a parallel run's workers and
//     a matrix's targets (`run --options FILE`, the file their parent
//     wrote), which end on their own and get the parent's signals passed on once
//     (Group).
//
// A role is started with two environment variables:
//
//	ADMISSION_CONFORMANCE_CHILD         the role, e.g. "hollow-node"
//	ADMISSION_CONFORMANCE_CHILD_CONFIG  a file with the role's configuration
//
// so every binary that can start children must, first thing in main (and in
// TestMain for test binaries), call nodeset.RunIfChild (conformance.Main does), which runs the role and
// exits when these are set and returns otherwise.
//
// A long-lived child gets a pipe on stdin that the parent never writes: when
// the parent dies, however it dies, the pipe reaches EOF and the child ends
// (see ParentGone and UntilParentGone).
//
// It is internal: spec authors start no processes; the framework's nodes
// and fake plugins and the engine do.
package childproc

import (
	"errors"
	"os"
)

// The environment that makes a process a child.
const (
	RoleEnv   = "ADMISSION_CONFORMANCE_CHILD"
	ConfigEnv = "ADMISSION_CONFORMANCE_CHILD_CONFIG"
)

// Take returns the role and config path if this process is a child, and
// removes both variables from the environment so that the child's own
// children (a plugin a kubelet runs) do not inherit the role.
func Take() (role, config string, ok bool) {
	role, config = os.Getenv(RoleEnv), os.Getenv(ConfigEnv)
	if role == "" {
		return "", "", false
	}
	_ = os.Unsetenv(RoleEnv)
	_ = os.Unsetenv(ConfigEnv)
	return role, config, true
}

// errIsChild refuses to start children from a child whose binary did not
// call RunIfChild: such a child would run the harness again, and start
// children of its own.
var errIsChild = errors.New("this process is a harness child whose binary does not call nodeset.RunIfChild() first in main/TestMain")

// checkNotChild fails in a process that was started as a child but is not
// running its role.
func checkNotChild() error {
	if os.Getenv(RoleEnv) != "" {
		return errIsChild
	}
	return nil
}
