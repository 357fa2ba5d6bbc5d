package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/internal/ceilings"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// ceilingLine is the ceiling and how it was worked out.
var ceilingLine = regexp.MustCompile(`ceiling of \d+ [a-z ]+ \((memory|start-up|CPU): .+\); pass`)

// TestCountsOverTheMachinesCeilingExitTwoAtOnce: a count this machine
// cannot hold is refused in under a second, before anything starts: exit
// 2, one line naming the flag, its value, the ceiling and how it was worked
// out, and the override; nothing on stdout; TMPDIR (with a dead run's dir,
// which a run would remove) and the working dir exactly as they were.
func TestCountsOverTheMachinesCeilingExitTwoAtOnce(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"+
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for i := range max(runtime.NumCPU()+1, 3) {
		kinds = append(kinds, "--target", fmt.Sprintf("name=k%d,kind=single", i))
	}
	// The planes of a default run (2) have as many replicas as its cluster:
	// one more replica than the three control planes hold is refused with
	// the way to one control plane.
	planes := replicasBesidePlanes()
	overPlanes := fmt.Sprint(planes.Max + 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--apiservers", overPlanes}, "--apiservers " + overPlanes + " is over this machine's ceiling of " + fmt.Sprint(planes.Max) +
			" apiserver replicas (CPU: 4.5 replicas per CPU × " + fmt.Sprint(runtime.NumCPU()) + " CPU(s) for the whole run, shared by 3 control planes"},
		{[]string{"run", "--nodes", "100000"}, "--nodes 100000 is over this machine's ceiling of "},
		{[]string{"run", "--apiservers", "1000"}, "--apiservers 1000 is over this machine's ceiling of "},
		{[]string{"run", "--parallel", "10000"}, "--parallel 10000 is over this machine's ceiling of "},
		{[]string{"run", "--provider", "kubeconfig", "--kubeconfig", kubeconfig, "--parallel", "10000"}, "--parallel 10000 is over"},
		{[]string{"run", "--suite", "ordering", "--nodes", "100000", "--parallel", "1"}, "--nodes 100000 is over"},
		{append([]string{"matrix", "--parallel", "100"}, kinds...), "kind cluster(s) at once) is over this machine's ceiling of "},
	} {
		t.Run(strings.Join(c.args[:min(len(c.args), 4)], " "), func(t *testing.T) {
			tmp, work := t.TempDir(), t.TempDir()
			writeRunDirs(t, tmp)
			tmpBefore, workBefore := snapshot(t, tmp), snapshot(t, work)
			started := time.Now()
			r := runCLIIn(t, tmp, work, nil, c.args...)
			took := time.Since(started)
			r.mustExit(t, exitcode.Usage)
			line := strings.TrimSpace(r.stderr)
			if strings.Contains(line, "\n") || !strings.Contains(line, c.want) || !strings.Contains(line, "--no-ceilings to run it anyway") ||
				!ceilingLine.MatchString(line) {
				t.Errorf("stderr is not one line naming the flag, value, ceiling, how and override:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %q", r.stdout)
			}
			if took > time.Second {
				t.Errorf("refused after %s, want under a second", took)
			}
			if d := diffSnapshots(tmpBefore, snapshot(t, tmp)); len(d) > 0 {
				t.Errorf("TMPDIR changed: %v", d)
			}
			if d := diffSnapshots(workBefore, snapshot(t, work)); len(d) > 0 {
				t.Errorf("working dir changed: %v", d)
			}
			t.Logf("%s: %s", took.Round(time.Millisecond), line)
		})
	}
}

// TestNoCeilingsSkipsTheCheck: --no-ceilings (or noCeilings in the options
// file) lets the count through to the next check (here a report dir that
// is a file, so that nothing starts).
func TestNoCeilingsSkipsTheCheck(t *testing.T) {
	in := t.TempDir()
	notADir := filepath.Join(in, "file")
	options := filepath.Join(in, "options.yaml")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(options, []byte("noCeilings: true\nnodes: 100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planes := replicasBesidePlanes()
	for _, args := range [][]string{
		{"run", "--nodes", "100000", "--apiservers", "1000", "--parallel", "10000", "--no-ceilings", "--report-dir", notADir},
		// One replica over what three control planes hold is within what
		// one holds.
		{"run", "--apiservers", fmt.Sprint(planes.Max + 1), "--no-propagation-plane", "--report-dir", notADir},
		{"run", "--options", options, "--report-dir", notADir},
	} {
		r := runCLI(t, args...)
		r.mustExit(t, exitcode.Usage)
		if !strings.Contains(r.stderr, "is a file, not a directory") || strings.Contains(r.stderr, "ceiling") {
			t.Errorf("%v: want the report dir refused, not the counts:\n%s", args, r.stderr)
		}
	}
	// Without it, the options file's count is refused.
	if err := os.WriteFile(options, []byte("nodes: 100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "run", "--options", options, "--report-dir", notADir)
	r.mustExit(t, exitcode.Usage)
	if !strings.Contains(r.stderr, "--nodes 100000 is over this machine's ceiling") {
		t.Errorf("options file's nodes: 100000 not refused:\n%s", r.stderr)
	}
}

// replicasBesidePlanes is this machine's apiservers ceiling for a default
// run, whose two propagation planes have as many replicas as its cluster.
func replicasBesidePlanes() ceilings.Ceiling {
	return ceilings.Read().Ceiling(ceilings.APIServers, ceilings.Load{ControlPlane: true, APIServers: 1, PropagationPlanes: 2,
		Nodes: runconfig.Default().Nodes, Workers: runconfig.DefaultWorkers(), ClusterStart: bounds.Defaults().ClusterStart.Duration})
}
