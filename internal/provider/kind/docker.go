package kind

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kind/pkg/exec"
)

// CheckDocker says whether a Docker engine answers (kind's node provider
// drives it through the docker CLI).
func CheckDocker(ctx context.Context) error {
	out, err := exec.Output(exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}"))
	if err != nil {
		return fmt.Errorf("no Docker engine answers (%s): start one (offline hosts: hack/kind/docker-up.sh)", firstLine(err))
	}
	if strings.TrimSpace(string(out)) == "" {
		return errors.New("no Docker engine answers: start one (offline hosts: hack/kind/docker-up.sh)")
	}
	return nil
}

// CheckImage says whether the node image is present locally: no registry
// may be reachable, and kind would otherwise try to pull it.
func CheckImage(ctx context.Context, image string) error {
	if _, err := exec.Output(exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", image)); err != nil {
		return fmt.Errorf("node image %s is not in the local Docker engine (%s): build it with `make kind-image` or pull it", image, firstLine(err))
	}
	return nil
}

// runErrorOutput returns the output of a failed command inside err (kind's
// exec.RunError), so errors carry what the command said.
func runErrorOutput(err error) error {
	if re := exec.RunErrorForError(err); re != nil && len(re.Output) > 0 {
		return fmt.Errorf("command %s said: %s", re.Command, strings.TrimSpace(string(re.Output)))
	}
	return nil
}

func firstLine(err error) string {
	msg := err.Error()
	if re := exec.RunErrorForError(err); re != nil && len(re.Output) > 0 {
		msg = strings.TrimSpace(string(re.Output))
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
