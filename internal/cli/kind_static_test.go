package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// TestKindStaticReloadFailsOnANodeThatNeverReloads runs the static reload
// spec on kind ha clusters: with the kind-static-never-reloads fault (the
// second control plane's node has a copy of its static dir, so nothing the
// harness writes reaches its apiserver) every case fails naming replica 1,
// while StaticEnforcedAtStart, whose boot hooks the copy holds, passes; on
// the intact provider both pass, on all three replicas.
func TestKindStaticReloadFailsOnANodeThatNeverReloads(t *testing.T) {
	image := kindImage(t)
	filter := "spec:StaticManifestReload || spec:StaticEnforcedAtStart"
	run := func(t *testing.T, env []string) (cliResult, results.Results) {
		reports := t.TempDir()
		started := time.Now()
		r := runCLIIn(t, t.TempDir(), t.TempDir(), env, "run", "--provider", "kind", "--kind-topology", "ha",
			"--kind-image", image, "--report-dir", reports, "--label-filter", filter, "--bound", "clusterStart=10m")
		t.Logf("kind ha: %.0fs, exit %d\n%s", time.Since(started).Seconds(), r.code, tail(r.stdout, 12))
		if left, _ := kind.Leftovers(kind.DefaultLedgerDir()); len(left) > 0 {
			t.Errorf("kind clusters left behind: %v", left)
		}
		return r, readResults(t, reports)
	}
	t.Run("broken", func(t *testing.T) {
		r, res := run(t, []string{testhook.FaultEnv + "=" + testhook.KindStaticNeverReloads})
		r.mustExit(t, 1)
		reload := 0
		for _, s := range res.Specs {
			switch s.ShortName {
			case "StaticManifestReload":
				reload++
				t.Logf("%s: %s: %s", s.Name, s.State, firstLineOf(s.Message))
				if s.State != results.Failed || !strings.Contains(s.Message, "apiserver replica 1") {
					t.Errorf("%s: %s, want failed naming apiserver replica 1: %s", s.Name, s.State, s.Message)
				}
			case "StaticEnforcedAtStart":
				if s.State != results.Passed {
					t.Errorf("%s: %s, want passed (the copy holds the boot hooks): %s", s.Name, s.State, s.Message)
				}
			}
		}
		if reload != 2 {
			t.Errorf("%d StaticManifestReload cases, want 2", reload)
		}
	})
	t.Run("intact", func(t *testing.T) {
		r, res := run(t, nil)
		r.mustExit(t, 0)
		replicas := map[string]bool{}
		for _, s := range res.Specs {
			if s.ShortName != "StaticManifestReload" && s.ShortName != "StaticEnforcedAtStart" {
				continue
			}
			if s.State != results.Passed {
				t.Errorf("%s: %s: %s", s.Name, s.State, s.Message)
			}
			for _, m := range s.Measurements {
				if m.Name == "static-manifest-reload" {
					replicas[m.Labels["replica"]] = true
				}
			}
		}
		if len(replicas) != 3 {
			t.Errorf("reload measured on replicas %v, want 3", replicas)
		}
	})
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
