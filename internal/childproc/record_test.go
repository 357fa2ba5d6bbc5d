package childproc

import (
	"slices"
	"testing"
)

// TestKillAllKillsWhatWasStartedAndForgetsWhatWasReaped: the record holds
// every running child, roles and subcommands in their own process groups
// alike; KillAll kills them all (a stubborn one that ignores SIGTERM too),
// and a reaped child leaves the record.
func TestKillAllKillsWhatWasStartedAndForgetsWhatWasReaped(t *testing.T) {
	stubborn, _ := startUntil(t, Start, Spec{Name: "stubborn", Role: "stubborn", Prefix: "stubborn: "}, "stubborn: stubborn child up")
	s := subcommandSpec("until-parent-gone")
	s.OwnGroup, s.EndWithParent = true, true
	log := newSyncBuffer()
	s.Log = log
	var g Group
	grouped, err := g.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the grouped child up", func() bool { return log.String() == "up\n" })

	killed := KillAll()
	for _, p := range []*Process{stubborn, grouped} {
		if !slices.Contains(killed, p.Pid()) {
			t.Errorf("KillAll killed %v, not %s (%d)", killed, p.name, p.Pid())
		}
		if exit := p.Wait(); !exit.Killed {
			t.Errorf("%s ended %s, want killed", p.name, exit.Status)
		}
	}
	if left := KillAll(); len(left) != 0 {
		t.Errorf("reaped children still recorded: %v", left)
	}
}
