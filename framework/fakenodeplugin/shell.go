package fakenodeplugin

import (
	"encoding/json"
	"io"
	"os"
)

// runShell is one admission by a shell plugin: the pod on stdin, the answer
// on stdout.
func runShell(c childConfig) error {
	pod, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	inv, err := received(c, pod)
	if err != nil {
		return err
	}
	b := c.Plugin.Behaviour.For(pod)
	pause(b.Delay.Duration, nil)
	switch b.Action {
	case Crash, Exit:
		die(b)
	case Garbage:
		if _, err := os.Stdout.Write(garbage); err != nil {
			return err
		}
	default:
		if err := json.NewEncoder(os.Stdout).Encode(b.answer()); err != nil {
			return err
		}
	}
	return answered(c, inv)
}
