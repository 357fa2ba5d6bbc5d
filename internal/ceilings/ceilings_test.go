package ceilings

import (
	"strings"
	"testing"
	"time"
)

// machine2 is the project's machine type: 2 CPUs, 23.5 GiB, 20 GiB free.
var machine2 = Machine{CPUs: 2, MemAvailable: 20 * GiB, MemTotal: 23*GiB + GiB/2}

var embeddedRun = Load{ControlPlane: true, APIServers: 1, Nodes: 1, Workers: 8, ClusterStart: 3 * time.Minute}

func TestCeilingsOfTheProjectMachine(t *testing.T) {
	for _, c := range []struct {
		part Part
		want int
		how  string
	}{
		// 2 CPUs / 2 × 90 s / 2.1 CPU-s.
		{Nodes, 42, "start-up: 2.1 CPU-s per node"},
		// 4.5 × 2 CPUs for the whole run (start-up would allow 1 + (90 s −
		// 7 s) / 6.8 s = 13).
		{APIServers, 9, "CPU: 4.5 replicas per CPU × 2 CPU(s) for the whole run; start-up would allow 13"},
		{Workers, 16, "CPU: 8 per CPU × 2 CPU(s)"},
		// (20 GiB − 2 GiB − 448 MiB − 1 × 32 MiB − 8 × 64 MiB) / 1 GiB.
		{KindNodes, 17, "memory: (20.0 GiB available − 2.0 GiB kept free − 1.0 GiB for the rest) / 1024 MiB per container"},
		{KindTargets, 2, "CPU: 1 per CPU"},
	} {
		got := machine2.Ceiling(c.part, embeddedRun)
		if got.Max != c.want || !strings.Contains(got.How, c.how) {
			t.Errorf("part %d: ceiling %d (%s), want %d (%s)", c.part, got.Max, got.How, c.want, c.how)
		}
	}
}

// TestMemoryBindsOnASmallMachine: with little free memory the memory limit
// binds, and the line says how it was worked out, naming the CPU limit
// too.
func TestMemoryBindsOnASmallMachine(t *testing.T) {
	small := Machine{CPUs: 8, MemAvailable: 3 * GiB, MemTotal: 4 * GiB}
	c := small.Ceiling(Nodes, embeddedRun)
	// (3 GiB − 0.5 GiB kept free − 448 MiB − 8 × 64 MiB) / 32 MiB = 50.
	if c.Max != 50 {
		t.Errorf("nodes ceiling %d (%s), want 50", c.Max, c.How)
	}
	for _, want := range []string{"memory: (3.0 GiB available − 0.5 GiB kept free − 0.9 GiB for the rest) / 32 MiB per node", "start-up would allow 171"} {
		if !strings.Contains(c.How, want) {
			t.Errorf("how %q lacks %q", c.How, want)
		}
	}
	if a := small.Ceiling(APIServers, embeddedRun); a.Max != 9 { // 1 + (2.5 GiB − 992 MiB) / 176 MiB
		t.Errorf("apiservers ceiling %d (%s), want 9", a.Max, a.How)
	}
}

func TestOverNamesValueCeilingAndHow(t *testing.T) {
	err := machine2.Over("--nodes 100000", 100000, Nodes, embeddedRun, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "--nodes 100000 is over this machine's ceiling of 42 hollow nodes (start-up:") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v", err)
	}
	if err := machine2.Over("--nodes 42", 42, Nodes, embeddedRun, 1); err != nil {
		t.Errorf("the ceiling itself refused: %v", err)
	}
}

// TestDefaultsAreNeverOver: a machine too small for the defaults is left to
// fail at start-up; what the user did not raise is not refused.
func TestDefaultsAreNeverOver(t *testing.T) {
	tiny := Machine{CPUs: 1, MemAvailable: GiB / 2, MemTotal: GiB}
	if err := tiny.Over("--parallel 0", 0, Workers, embeddedRun, 8); err != nil {
		t.Errorf("default workers refused: %v", err)
	}
	if err := tiny.Over("--parallel 8", 8, Workers, embeddedRun, 8); err != nil {
		t.Errorf("default workers refused: %v", err)
	}
	if err := tiny.Over("--nodes 1", 1, Nodes, embeddedRun, 1); err != nil {
		t.Errorf("one node refused: %v", err)
	}
	if err := tiny.Over("--nodes 2", 2, Nodes, embeddedRun, 1); err == nil || !strings.Contains(err.Error(), "ceiling of 1 hollow nodes") {
		t.Errorf("two nodes on a tiny machine: %v", err)
	}
}

// TestLongerClusterStartDoesNotRaiseCeilings: a longer bound lets more
// start, not run; a shorter one lowers the start-up limits.
func TestLongerClusterStartDoesNotRaiseCeilings(t *testing.T) {
	long, short := embeddedRun, embeddedRun
	long.ClusterStart, short.ClusterStart = 10*time.Minute, 30*time.Second
	if c := machine2.Ceiling(Nodes, long); c.Max != 42 {
		t.Errorf("10m bound: nodes ceiling %d, want 42", c.Max)
	}
	if c := machine2.Ceiling(APIServers, short); c.Max != 2 { // 1 + (15 s − 7 s) / 6.8 s
		t.Errorf("30s bound: apiservers ceiling %d (%s), want 2", c.Max, c.How)
	}
}

// TestPropagationPlanesShareTheReplicas: a run's propagation planes have
// as many replicas as its cluster, so each control plane gets its share of
// what the CPUs hold, and memory counts every plane.
func TestPropagationPlanesShareTheReplicas(t *testing.T) {
	withPlanes := embeddedRun
	withPlanes.PropagationPlanes = 2
	c := machine2.Ceiling(APIServers, withPlanes)
	// Memory: 1 + (20 GiB − 2 GiB − 3 × 448 MiB − 32 MiB − 8 × 64 MiB) / (3 × 176 MiB).
	if c.Max != 3 || !strings.HasPrefix(c.How, "CPU: 4.5 replicas per CPU × 2 CPU(s) for the whole run, shared by 3 control planes") ||
		!strings.HasSuffix(c.How, "; start-up would allow 13; memory would allow 32") {
		t.Errorf("apiservers ceiling with two planes %d (%s), want 3", c.Max, c.How)
	}
	withPlanes.PropagationPlanes = 1
	if c := machine2.Ceiling(APIServers, withPlanes); c.Max != 4 {
		t.Errorf("apiservers ceiling with one plane %d (%s), want 4", c.Max, c.How)
	}
	if err := machine2.Over("--apiservers 4", 4, APIServers, Load{ControlPlane: true, APIServers: 4, Workers: 8, PropagationPlanes: 2, ClusterStart: time.Minute}, 1); err == nil {
		t.Error("4 replicas on each of 3 control planes not refused")
	}
}

func TestNoMemoryInformationLeavesTheCPULimits(t *testing.T) {
	m := Machine{CPUs: 4}
	if c := m.Ceiling(Workers, embeddedRun); c.Max != 32 || strings.Contains(c.How, "memory") {
		t.Errorf("workers %d (%s)", c.Max, c.How)
	}
	if c := m.Ceiling(Clients, Load{}); c.Max < 1<<30 {
		t.Errorf("clients without memory information: %d", c.Max)
	}
}

func TestReadThisMachine(t *testing.T) {
	m := Read()
	if m.CPUs < 1 {
		t.Fatalf("%+v", m)
	}
	if m.MemTotal > 0 && (m.MemAvailable <= 0 || m.MemAvailable > m.MemTotal) {
		t.Errorf("meminfo read as %+v", m)
	}
}
