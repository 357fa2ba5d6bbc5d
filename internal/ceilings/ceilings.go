// Package ceilings says how many of the harness's heavy parts (hollow
// nodes, kube-apiserver replicas, parallel workers, kind node containers,
// matrix target clients) this machine can hold, from the per-part costs
// below, measured on the project's 2-CPU machine, and this machine's free
// memory (/proc/meminfo MemAvailable) and CPUs. A count over its ceiling is
// refused before anything starts.
//
// A ceiling is the smaller of two limits:
//
//   - memory: (MemAvailable − what is kept free − what the rest of the run
//     takes) / the part's cost; what is kept free is 2 GiB, or an eighth of
//     the machine's memory on a machine under 16 GiB;
//   - CPU or start-up time, for the parts that have one: hollow nodes'
//     start-up work must fit in half the clusterStart bound (at most the
//     default's) on half the CPUs; apiserver replicas, which start one
//     after another, in half that bound, and for the whole run 4.5 per
//     CPU, counting every control plane's (a parallel run's propagation
//     planes have as many as its cluster); workers, 8 per CPU; kind
//     clusters, 1 per CPU.
//
// A ceiling never goes below the count the harness picks by default (one
// apiserver, one node, the default workers): a machine too small for those
// is left to fail at start-up, as before.
package ceilings

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
)

// Units of memory.
const (
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// The measured costs. How and when: 2026-11-26, 00:00–00:10 UTC, on the
// 2-CPU, 23.5 GiB machine type (load average 4 to 19 from other work),
// Kubernetes v1.37.2, run-conformance built from 7866c4d: short runs
// (`run --parallel 1 --nodes 1|4|20|50` on four nodeadmit specs; `run
// --parallel 1 --apiservers 1|3|13` on three ordering specs; `run --suite
// ordering` with 8 and 16 workers), each sampled every 0.5 s: VmRSS of the
// harness and of every child from /proc/<pid>/status, Pss and Anonymous from
// /proc/<pid>/smaps_rollup, CPU time from /proc/<pid>/stat. The costs are
// Pss (a child's RSS, ~116 MiB, is mostly this binary's text, shared by
// every process of a run), rounded up.
const (
	// BaseBytes is the harness process itself with the embedded control
	// plane (etcd, one kube-apiserver, scheduler, controller manager) and
	// no node: Pss 363 MiB in a serial run, 421 MiB as a parallel run's
	// parent.
	BaseBytes = 448 * MiB
	// APIServerBytes is each kube-apiserver replica past the first (they
	// run in the harness process): its Pss grew by 159 MiB per replica
	// with 3 (363 -> 695 MiB) and by 168 MiB per replica with 13 (-> 2378
	// MiB).
	APIServerBytes = 176 * MiB
	// NodeBytes is each hollow node: the node's child process (Pss 23–26
	// MiB, RSS 115–122 MiB, with 20 and 50 nodes) and what it adds to the
	// harness (its Pss grew 3.4 MiB per node with 20, 4.2 with 50).
	NodeBytes = 32 * MiB
	// WorkerBytes is each parallel worker process: Pss 25–57 MiB (RSS
	// 115–123 MiB) with 8 and 16 workers on the ordering suite.
	WorkerBytes = 64 * MiB
	// ClientBytes is a process of this binary that is only a cluster's
	// client (a matrix target's `run --in-cluster`, the matrix itself),
	// taken to cost what a worker does.
	ClientBytes = WorkerBytes
	// KindNodeBytes is each kind node container: not measured here (no
	// docker on the machine); the matrix measurement (docs/measurements.md,
	// Matrix scale; 2026-11-25, same machine type) found 1.4 GiB above
	// baseline for two single-node clusters and their clients, and 0.5–1 GB
	// per node.
	KindNodeBytes = 1 * GiB
)

// The measured start-up costs, same runs.
const (
	// NodeStartCPU is the CPU one hollow node takes to start and warm up:
	// 50 nodes took 68.6 CPU-s in their processes and 35 CPU-s in the
	// harness (ready after 74 s at load average 11; at rest a node then
	// took 0.25% of a CPU).
	NodeStartCPU = 2100 * time.Millisecond
	// ControlPlaneStart is the embedded cluster's start with one
	// apiserver: ready in 6.3–7.0 s.
	ControlPlaneStart = 7 * time.Second
	// APIServerStart is each further replica (they start one after
	// another): ready in 19.9 s with 3 (6.8 s per replica), 68.4 s with
	// 13 (5.2 s per replica, load average 19), 2.8 CPU-s each.
	APIServerStart = 6800 * time.Millisecond
	// WorkersPerCPU: workers mostly wait (webhook timeouts, propagation);
	// 16 on 2 CPUs passed the ordering suite with the harness's wake-ups no
	// later than with 8 (the default).
	WorkersPerCPU = 8
	// ReplicasPerCPU is how many kube-apiserver replicas, counting every
	// control plane of a run (a parallel run's propagation planes have as
	// many as its cluster), a full default run holds per CPU with no
	// timing case failing. Each replica serves every spec's marker
	// requests and keeps its own informers, for the whole run. Full
	// default runs, 2026-11-27 on the 2-CPU machine type, one at a time,
	// nothing beside them: 9 replicas passed as `--apiservers 3` (three
	// control planes; 83 s, 144 CPU-s, peak Pss 2.6 GiB) and as
	// `--apiservers 9 --no-propagation-plane` (161 s, 202 CPU-s, 3.1
	// GiB); 13 (`--apiservers 13 --no-propagation-plane`, 197 s) and 15
	// (`--apiservers 5`, 117 s) each failed one timing case on load
	// alone (an initializer configuration enforced 1.79 s after its
	// change, bound 1.5 s; a plugin's timeout rejection 25 ms past its
	// slack), 39 (`--apiservers 13`) failed ten.
	ReplicasPerCPU = 4.5
	// KindTargetsPerCPU: the matrix measurement (docs/measurements.md,
	// Matrix scale): two kind clusters on 2 CPUs passed, a third starved the
	// timing cases.
	KindTargetsPerCPU = 1
)

// Machine is what the ceilings are computed from.
type Machine struct {
	CPUs int
	// MemAvailable and MemTotal are /proc/meminfo's, in bytes; MemTotal 0:
	// unknown (no /proc), and then no memory ceiling.
	MemAvailable, MemTotal int64
}

// Read reads this machine: runtime.NumCPU and /proc/meminfo.
func Read() Machine {
	m := Machine{CPUs: runtime.NumCPU()}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return m
	}
	defer f.Close()
	var avail, total int64
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "MemAvailable:":
			avail = kb * 1024
		case "MemTotal:":
			total = kb * 1024
		}
	}
	if total > 0 && avail > 0 {
		m.MemAvailable, m.MemTotal = avail, total
	}
	return m
}

// KeepFree is the memory left to the rest of the machine: 2 GiB, or an
// eighth of it on a machine under 16 GiB.
func (m Machine) KeepFree() int64 { return min(2*GiB, m.MemTotal/8) }

// Load is what one command holds on this machine at once.
type Load struct {
	// ControlPlane: the embedded control plane runs in this process, with
	// APIServers replicas.
	ControlPlane bool
	APIServers   int
	// PropagationPlanes are further embedded control planes, as many
	// replicas each, in child processes (a parallel run's propagation
	// planes).
	PropagationPlanes int
	Nodes             int
	Workers           int
	// KindNodes are kind node containers on this host.
	KindNodes int
	// Clients are matrix targets' client processes.
	Clients int
	// KindTargets are kind clusters running at once (matrix).
	KindTargets int
	// ClusterStart is the clusterStart bound.
	ClusterStart time.Duration
}

// Bytes is the memory the load takes.
func (l Load) Bytes() int64 {
	b := ClientBytes // this process, a client
	if l.ControlPlane {
		b = int64(l.planes()) * (BaseBytes + int64(max(l.APIServers-1, 0))*APIServerBytes)
	}
	return b + int64(l.Nodes)*NodeBytes + int64(l.Workers)*WorkerBytes + int64(l.KindNodes)*KindNodeBytes + int64(l.Clients)*ClientBytes
}

// planes is how many embedded control planes the load runs.
func (l Load) planes() int { return 1 + l.PropagationPlanes }

// Part is a kind of count a ceiling is for.
type Part int

// The parts.
const (
	Nodes Part = iota
	APIServers
	Workers
	KindNodes
	KindTargets
	Clients
)

var parts = map[Part]struct {
	unit, each string
	bytes      int64
}{
	Nodes:       {"hollow nodes", "node", NodeBytes},
	APIServers:  {"apiserver replicas", "replica", APIServerBytes},
	Workers:     {"parallel workers", "worker", WorkerBytes},
	KindNodes:   {"kind node containers", "container", KindNodeBytes},
	KindTargets: {"kind clusters at once", "cluster", 0},
	Clients:     {"targets at once", "target client", ClientBytes},
}

// Ceiling is the most of a part this machine holds, and how that was
// worked out.
type Ceiling struct {
	Max  int
	Unit string
	How  string
}

// limit is one of the limits a ceiling is the smallest of; how starts with
// its name ("memory: ...").
type limit struct {
	max int
	how string
}

func (l limit) name() string { return strings.SplitN(l.how, ":", 2)[0] }

// Ceiling works out the ceiling of part p, the rest of l taking its share.
func (m Machine) Ceiling(p Part, l Load) Ceiling {
	info := parts[p]
	var limits []limit
	if m.MemTotal > 0 && info.bytes > 0 {
		limits = append(limits, m.memoryLimit(p, l))
	}
	// A longer clusterStart bound lets more start, but their load stays
	// for the whole run: the ceilings take the default bound at most. (A
	// full parallel run with 100 nodes and a 10-minute bound failed 29
	// timing cases, on this machine loaded by other work.)
	start := min(l.ClusterStart, bounds.Defaults().ClusterStart.Duration)
	half := start / 2
	switch p {
	case Nodes:
		limits = append(limits, limit{int(float64(m.CPUs) / 2 * half.Seconds() / NodeStartCPU.Seconds()),
			fmt.Sprintf("start-up: %.1f CPU-s per node within half the clusterStart bound (%s) on half of %d CPU(s)",
				NodeStartCPU.Seconds(), start, m.CPUs)})
	case APIServers:
		limits = append(limits, limit{1 + int(max(half-ControlPlaneStart, 0)/APIServerStart),
			fmt.Sprintf("start-up: the control plane in %.0f s, then one replica after another, %.1f s each, within half the clusterStart bound (%s)",
				ControlPlaneStart.Seconds(), APIServerStart.Seconds(), start)},
			m.replicasRunning(l))
	case Workers:
		limits = append(limits, limit{WorkersPerCPU * m.CPUs, fmt.Sprintf("CPU: %d per CPU × %d CPU(s)", WorkersPerCPU, m.CPUs)})
	case KindTargets:
		limits = append(limits, limit{KindTargetsPerCPU * m.CPUs, fmt.Sprintf("CPU: %d per CPU × %d CPU(s)", KindTargetsPerCPU, m.CPUs)})
	}
	c := Ceiling{Max: int(^uint(0) >> 1), Unit: info.unit} // nothing limits it
	if len(limits) == 0 {
		return c
	}
	// The binding limit first (the first of equals), the others as what
	// they would allow.
	slices.SortStableFunc(limits, func(a, b limit) int { return a.max - b.max })
	c.Max, c.How = limits[0].max, limits[0].how
	for _, o := range limits[1:] {
		c.How += fmt.Sprintf("; %s would allow %d", o.name(), o.max)
	}
	return c
}

// memoryLimit is how many of part p fit in this machine's free memory
// beside the rest of l.
func (m Machine) memoryLimit(p Part, l Load) limit {
	info := parts[p]
	rest := l
	switch p {
	case Nodes:
		rest.Nodes = 0
	case APIServers:
		rest.APIServers = 1
	case Workers:
		rest.Workers = 0
	case KindNodes:
		rest.KindNodes = 0
	case Clients:
		rest.Clients = 0
	}
	free := m.MemAvailable - m.KeepFree() - rest.Bytes()
	each, per := info.bytes, info.each
	if p == APIServers && l.planes() > 1 {
		each *= int64(l.planes())
		per = fmt.Sprintf("replica on each of %d control planes", l.planes())
	}
	n := int(max(free, 0) / each)
	if p == APIServers {
		n++ // the first is the rest's
	}
	return limit{n, fmt.Sprintf("memory: (%s available − %s kept free − %s for the rest) / %s per %s",
		gib(m.MemAvailable), gib(m.KeepFree()), gib(rest.Bytes()), mib(each), per)}
}

// replicasRunning is how many replicas each control plane of l may run
// for a whole run: ReplicasPerCPU on each CPU, shared by the control
// planes (a run's propagation planes have as many replicas as its
// cluster).
func (m Machine) replicasRunning(l Load) limit {
	all := int(ReplicasPerCPU * float64(m.CPUs))
	how := fmt.Sprintf("CPU: %g replicas per CPU × %d CPU(s) for the whole run", ReplicasPerCPU, m.CPUs)
	if n := l.planes(); n > 1 {
		how += fmt.Sprintf(", shared by %d control planes (the cluster and %d propagation plane(s), each with as many replicas)", n, n-1)
	}
	return limit{max(all/l.planes(), 1), how}
}

// Over returns an error when value is over the ceiling of part p: "WHAT is
// over this machine's ceiling of N UNIT (HOW)", what naming the flag and
// value. A value up to floor, the harness's own default, is never over.
func (m Machine) Over(what string, value int, p Part, l Load, floor int) error {
	if value <= floor {
		return nil
	}
	c := m.Ceiling(p, l)
	if value <= c.Max {
		return nil
	}
	if c.Max < floor {
		c.Max = floor
	}
	return fmt.Errorf("%s is over this machine's ceiling of %d %s (%s)", what, c.Max, c.Unit, c.How)
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/float64(GiB)) }
func mib(b int64) string { return fmt.Sprintf("%d MiB", b/MiB) }
