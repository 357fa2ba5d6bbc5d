package parallel

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// testSpecs are registered once: the registry is global.
var testSpecs = func() map[string]spec.Spec {
	iso := func(serial bool, exclusive, shares []string) spec.Isolation {
		i := spec.Isolation{Serial: serial, Exclusive: exclusive, Shares: shares}
		if !i.IsZero() {
			i.Reason = "test"
		}
		return i
	}
	out := map[string]spec.Spec{}
	for name, i := range map[string]spec.Isolation{
		"ParallelTestA":       iso(false, nil, nil),
		"ParallelTestB":       iso(false, nil, nil),
		"ParallelTestC":       iso(false, nil, nil),
		"ParallelTestHolder1": iso(false, []string{spec.NodesState}, nil),
		"ParallelTestHolder2": iso(false, []string{spec.NodesState}, nil),
		"ParallelTestSharer1": iso(false, nil, []string{spec.NodesState}),
		"ParallelTestSharer2": iso(false, nil, []string{spec.NodesState}),
		"ParallelTestAlone":   iso(true, nil, nil),
		"ParallelTestAlone2":  iso(true, nil, nil),
		"ParallelTestFills1":  iso(true, []string{spec.NodesState}, nil),
		"ParallelTestFills2":  iso(true, []string{spec.NodesState}, nil),
		"ParallelTestInit":    iso(false, nil, []string{spec.InitializersState}),
	} {
		out[name] = spec.Register(spec.Spec{ShortName: name, Suite: "webhooks", Description: "d", Profile: spec.Core, Seed: "s", Isolation: i})
	}
	// Quiet windows: two measuring specs of different kinds, and specs
	// writing each kind (told by their features).
	for name, s := range map[string]spec.Spec{
		"ParallelTestQuietWebhooks": {Isolation: spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations}, Reason: "test"},
			Features: []features.Name{features.ValidatingWebhook}},
		"ParallelTestQuietPolicies": {Isolation: spec.Isolation{Quiet: []quiet.Kind{quiet.ValidatingAdmissionPolicies}, Reason: "test"},
			Features: []features.Name{features.ValidatingAdmissionPolicy}},
		"ParallelTestWritesWebhooks": {Features: []features.Name{features.MutatingWebhook}},
		"ParallelTestWritesPolicies": {Features: []features.Name{features.ValidatingAdmissionPolicy}},
	} {
		s.ShortName, s.Suite, s.Description, s.Profile, s.Seed = name, "webhooks", "d", spec.Core, "s"
		out[name] = spec.Register(s)
	}
	return out
}()

func planned(short, text string, selected bool) results.Spec {
	s := results.Spec{Suite: "webhooks", ShortName: short, Name: short + " " + text, State: results.Passed}
	if !selected {
		s.State, s.Message = results.Skipped, results.NotSelected
	}
	return s
}

func isSelected(s results.Spec) bool { return s.State == results.Passed }

func TestUnitsGroupTheSelectedCasesOfEachSpecWithTheirLastDurations(t *testing.T) {
	plan := []results.Spec{
		planned("ParallelTestA", "one", true),
		planned("ParallelTestB", "one", true),
		planned("ParallelTestA", "two", true),
		planned("ParallelTestA", "three", false),
		planned("ParallelTestC", "one", false),
		{Suite: "harness", ShortName: "BeforeSuite", Name: "BeforeSuite", State: results.Passed}, // no spec: left out
	}
	previous := &results.Results{Specs: []results.Spec{
		{ShortName: "ParallelTestA", State: results.Passed, Duration: 2},
		{ShortName: "ParallelTestA", State: results.Failed, Duration: 1.5},
		{ShortName: "ParallelTestA", State: results.Skipped, Duration: 9}, // did not run
	}}
	units := Units(plan, isSelected, previous, func(s spec.Spec) bool { return s.ShortName == "ParallelTestB" })
	if len(units) != 2 {
		t.Fatalf("units %+v", units)
	}
	a, b := units[0], units[1]
	if a.Spec.ShortName != "ParallelTestA" || !reflect.DeepEqual(a.Cases, []string{"ParallelTestA one", "ParallelTestA two"}) ||
		a.Estimate != 3500*time.Millisecond || !a.Known || a.NeedsNodes {
		t.Errorf("A: %+v", a)
	}
	if b.Spec.ShortName != "ParallelTestB" || len(b.Cases) != 1 || b.Known || b.Estimate != guessPerCase || !b.NeedsNodes {
		t.Errorf("B: %+v", b)
	}
}

func TestPriorityStartsTheLongestChainOfHoldersFirst(t *testing.T) {
	u := func(name string, d time.Duration) Unit { return Unit{Spec: testSpecs[name], Estimate: d} }
	units := []Unit{u("ParallelTestA", 5*time.Second), u("ParallelTestHolder1", 3*time.Second), u("ParallelTestHolder2", 3*time.Second), u("ParallelTestB", time.Second)}
	got := priority(units, []int{0, 1, 2, 3})
	// The holders of nodes chain 6 s of work: they go before the 5 s unit.
	if !reflect.DeepEqual(got, []int{1, 2, 0, 3}) {
		t.Errorf("priority %v", got)
	}
}

func TestHoldSharedTurnsSharingIntoHolding(t *testing.T) {
	units := []Unit{{Spec: testSpecs["ParallelTestInit"]}, {Spec: testSpecs["ParallelTestSharer1"]}}
	HoldShared(units, spec.InitializersState)
	if iso := units[0].Spec.Isolation; len(iso.Shares) != 0 || !reflect.DeepEqual(iso.Exclusive, []string{spec.InitializersState}) {
		t.Errorf("initializers: %+v", iso)
	}
	if iso := units[1].Spec.Isolation; !reflect.DeepEqual(iso.Shares, []string{spec.NodesState}) || len(iso.Exclusive) != 0 {
		t.Errorf("nodes: %+v", iso)
	}
	if got := testSpecs["ParallelTestInit"].Isolation; len(got.Shares) != 1 {
		t.Errorf("the registered spec changed: %+v", got)
	}
}

// recorder runs units as sleeps and checks, whenever one starts, that
// nothing it may not run beside is running.
type recorder struct {
	t          *testing.T
	mu         sync.Mutex
	running    map[string]Unit
	maxRunning int
	order      []string
	nodesUp    func() bool
	nodeSlots  int
}

func (r *recorder) run(u Unit) {
	r.mu.Lock()
	name := u.Spec.ShortName
	for other, o := range r.running {
		if u.Plane != o.Plane {
			continue // another control plane: nothing to keep apart
		}
		bothOnNodes := r.nodeSlots > 1 && u.Serial() && o.Serial() && holdsNode(u) && holdsNode(o) && u.NodeSlot != o.NodeSlot
		if (u.Serial() || o.Serial()) && !bothOnNodes {
			r.t.Errorf("%s started beside %s, one of them serial", name, other)
		}
		for _, s := range u.holds() {
			if s == spec.NodesState && r.nodeSlots > 1 && contains(o.holds(), s) {
				if o.NodeSlot == u.NodeSlot {
					r.t.Errorf("%s and %s hold node slot %d at once", name, other, u.NodeSlot)
				}
				continue
			}
			if contains(o.holds(), s) || contains(o.shares(), s) {
				r.t.Errorf("%s holds %s and started beside %s", name, s, other)
			}
		}
		for _, s := range u.shares() {
			if contains(o.holds(), s) {
				r.t.Errorf("%s shares %s and started beside its holder %s", name, s, other)
			}
		}
	}
	if u.NeedsNodes && r.nodesUp != nil && !r.nodesUp() {
		r.t.Errorf("%s needs nodes and started before they were up", name)
	}
	r.running[name] = u
	r.maxRunning = max(r.maxRunning, len(r.running))
	r.order = append(r.order, name)
	r.mu.Unlock()
	time.Sleep(u.Estimate)
	r.mu.Lock()
	delete(r.running, name)
	r.mu.Unlock()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func allUnits() []Unit {
	var units []Unit
	for _, name := range []string{"ParallelTestA", "ParallelTestB", "ParallelTestC", "ParallelTestHolder1", "ParallelTestHolder2",
		"ParallelTestSharer1", "ParallelTestSharer2", "ParallelTestAlone", "ParallelTestAlone2", "ParallelTestInit",
		"ParallelTestQuietWebhooks", "ParallelTestQuietPolicies", "ParallelTestWritesWebhooks", "ParallelTestWritesPolicies"} {
		units = append(units, Unit{Spec: testSpecs[name], Estimate: 20 * time.Millisecond, Cases: []string{name + " case"}})
	}
	return units
}

func TestScheduleKeepsIsolationAndTheWorkerLimit(t *testing.T) {
	units := allUnits()
	units[3].NeedsNodes, units[5].NeedsNodes = true, true
	nodes := make(chan struct{})
	var up sync.Once
	nodesUp := func() bool {
		select {
		case <-nodes:
			return true
		default:
			return false
		}
	}
	time.AfterFunc(200*time.Millisecond, func() { up.Do(func() { close(nodes) }) })
	r := &recorder{t: t, running: map[string]Unit{}, nodesUp: nodesUp}
	notStarted := Schedule(context.Background(), units, 3, 1, nodes, r.run)
	if len(notStarted) != 0 {
		t.Errorf("not started: %v", notStarted)
	}
	if len(r.order) != len(units) {
		t.Fatalf("ran %v", r.order)
	}
	if r.maxRunning != 3 {
		t.Errorf("at most %d ran at once, want the 3 workers busy", r.maxRunning)
	}
	// While the nodes start, the serial units (which need none) come
	// first.
	first := r.order[:2]
	if !(contains(first, "ParallelTestAlone") && contains(first, "ParallelTestAlone2")) {
		t.Errorf("order %v: the serial units did not run first while the nodes started", r.order)
	}
	// With the nodes up from the start, they come last.
	r = &recorder{t: t, running: map[string]Unit{}, nodesUp: nodesUp}
	Schedule(context.Background(), units, 3, 1, nil, r.run)
	last := r.order[len(r.order)-2:]
	if !(contains(last, "ParallelTestAlone") && contains(last, "ParallelTestAlone2")) {
		t.Errorf("order %v: the serial units are not last", r.order)
	}
}

func TestPlaneUnitsRunBesideTheClusterAndItsSerialUnits(t *testing.T) {
	var units []Unit
	for _, name := range []string{"ParallelTestWritesWebhooks", "ParallelTestWritesPolicies", "ParallelTestQuietWebhooks", "ParallelTestQuietPolicies", "ParallelTestAlone"} {
		u := Unit{Spec: testSpecs[name], Estimate: 20 * time.Millisecond, Cases: []string{name + " case"}}
		if len(u.Spec.Isolation.Quiet) > 0 {
			u.Plane, u.Estimate = 1, 200*time.Millisecond
		}
		units = append(units, u)
	}
	r := &recorder{t: t, running: map[string]Unit{}}
	began := time.Now()
	if notStarted := ScheduleWithPlanes(context.Background(), units, 4, 2, 1, nil, r.run); len(notStarted) != 0 {
		t.Fatalf("not started: %v", notStarted)
	}
	// The cluster's writers and its serial unit did not wait for the
	// plane's quiet windows: all three ran while the plane's ran, at once.
	if took := time.Since(began); took > 350*time.Millisecond {
		t.Errorf("the run took %s: the cluster's units waited for the plane's (200 ms)", took)
	}
	if r.maxRunning < 3 {
		t.Errorf("at most %d ran at once, want both plane units beside a cluster unit", r.maxRunning)
	}
	// The same units without a plane: the writers wait for the windows.
	for i := range units {
		units[i].Plane = 0
	}
	r = &recorder{t: t, running: map[string]Unit{}}
	ScheduleWithPlanes(context.Background(), units, 4, 2, 1, nil, r.run)
	if first := r.order[:2]; !contains(first, "ParallelTestQuietWebhooks") || !contains(first, "ParallelTestQuietPolicies") {
		t.Errorf("order %v: without a plane the quiet windows did not start first", r.order)
	}
}

func TestQuietWindowsOfTwoKindsRunTogetherAndBeforeTheirWriters(t *testing.T) {
	var units []Unit
	for _, name := range []string{"ParallelTestWritesWebhooks", "ParallelTestWritesPolicies", "ParallelTestQuietWebhooks", "ParallelTestQuietPolicies"} {
		units = append(units, Unit{Spec: testSpecs[name], Estimate: 20 * time.Millisecond, Cases: []string{name + " case"}})
	}
	r := &recorder{t: t, running: map[string]Unit{}}
	if notStarted := Schedule(context.Background(), units, 4, 1, nil, r.run); len(notStarted) != 0 {
		t.Fatalf("not started: %v", notStarted)
	}
	if first := r.order[:2]; !contains(first, "ParallelTestQuietWebhooks") || !contains(first, "ParallelTestQuietPolicies") {
		t.Errorf("order %v: the two quiet windows did not start first", r.order)
	}
	if r.maxRunning != 2 {
		t.Errorf("at most %d ran at once, want the two quiet windows together, then the two writers", r.maxRunning)
	}
}

func TestNodeHoldersShareOutTheNodesAndTheirSharersWait(t *testing.T) {
	var units []Unit
	for _, name := range []string{"ParallelTestHolder1", "ParallelTestHolder2", "ParallelTestSharer1", "ParallelTestSharer2"} {
		units = append(units, Unit{Spec: testSpecs[name], Estimate: 20 * time.Millisecond, Cases: []string{name + " case"}})
	}
	slots := map[string]int{}
	r := &recorder{t: t, running: map[string]Unit{}, nodeSlots: 2}
	if notStarted := Schedule(context.Background(), units, 4, 2, nil, func(u Unit) {
		r.mu.Lock()
		slots[u.Spec.ShortName] = u.NodeSlot
		r.mu.Unlock()
		r.run(u)
	}); len(notStarted) != 0 {
		t.Fatalf("not started: %v", notStarted)
	}
	if first := r.order[:2]; !contains(first, "ParallelTestHolder1") || !contains(first, "ParallelTestHolder2") {
		t.Errorf("order %v: the two holders of the nodes did not start first", r.order)
	}
	if slots["ParallelTestHolder1"] == slots["ParallelTestHolder2"] {
		t.Errorf("both holders got node slot %d", slots["ParallelTestHolder1"])
	}
	if r.maxRunning != 2 {
		t.Errorf("at most %d ran at once, want the two holders together, then the two sharers", r.maxRunning)
	}
	// One slot: the holders run one after the other, each on slot 0.
	r = &recorder{t: t, running: map[string]Unit{}}
	Schedule(context.Background(), units[:2], 4, 1, nil, func(u Unit) {
		if u.NodeSlot != 0 {
			t.Errorf("%s got node slot %d of 1", u.Spec.ShortName, u.NodeSlot)
		}
		r.run(u)
	})
	if r.maxRunning != 1 {
		t.Errorf("with one node slot %d holders ran at once", r.maxRunning)
	}
}

func TestScheduleStopsStartingWhenTheContextEnds(t *testing.T) {
	units := allUnits()
	ctx, cancel := context.WithCancel(context.Background())
	r := &recorder{t: t, running: map[string]Unit{}}
	started := 0
	notStarted := Schedule(ctx, units, 2, 1, nil, func(u Unit) {
		started++
		if started == 2 {
			cancel()
		}
		r.run(u)
	})
	if started+len(notStarted) != len(units) || len(notStarted) == 0 {
		t.Errorf("%d started, %d not started, of %d", started, len(notStarted), len(units))
	}
}

func TestMergeTakesEachCaseFromTheWorkerThatRanIt(t *testing.T) {
	plan := []results.Spec{planned("ParallelTestA", "one", true), planned("ParallelTestB", "one", false), planned("ParallelTestA", "two", true),
		planned("ParallelTestC", "one", true)}
	worker := results.Results{Specs: []results.Spec{
		{Suite: "webhooks", ShortName: "ParallelTestA", Name: "ParallelTestA two", State: results.Failed, Message: "boom", Duration: 1},
		{Suite: "webhooks", ShortName: "ParallelTestB", Name: "ParallelTestB one", State: results.Skipped, Message: results.NotSelected},
		{Suite: "webhooks", ShortName: "ParallelTestA", Name: "ParallelTestA one", State: results.Passed, Duration: 2,
			Measurements: []results.Measurement{{Name: "m", Value: 1}}},
		{Suite: "harness", ShortName: "AfterSuite", Name: "AfterSuite", State: results.Failed, Message: "teardown"},
	}}
	merged := Merge(plan, isSelected, Outcomes(worker), func(c results.Spec) results.Spec {
		c.State, c.Message = results.Failed, "missing"
		return c
	})
	want := []struct {
		name  string
		state results.State
		msg   string
	}{
		{"ParallelTestA one", results.Passed, ""},
		{"ParallelTestB one", results.Skipped, results.NotSelected},
		{"ParallelTestA two", results.Failed, "boom"},
		{"ParallelTestC one", results.Failed, "missing"},
		{"AfterSuite", results.Failed, "teardown"},
	}
	if len(merged) != len(want) {
		t.Fatalf("merged %+v", merged)
	}
	for i, w := range want {
		if merged[i].Name != w.name || merged[i].State != w.state || merged[i].Message != w.msg {
			t.Errorf("case %d: %+v, want %+v", i, merged[i], w)
		}
	}
	if len(merged[0].Measurements) != 1 || merged[0].Duration != 2 {
		t.Errorf("the worker's measurements and duration are lost: %+v", merged[0])
	}
}

func TestAttachFileRoundTrip(t *testing.T) {
	front := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 200, Burst: 400, Timeout: time.Minute,
		TLSClientConfig: rest.TLSClientConfig{CAFile: "/ca.crt", CertData: []byte("cert"), KeyData: []byte("key"), ServerName: "kubernetes"},
		BearerToken:     "token", Impersonate: rest.ImpersonationConfig{UserName: "u", Groups: []string{"g"}},
		ExecProvider: &clientcmdapi.ExecConfig{Command: "cred", Args: []string{"a"}, APIVersion: "client.authentication.k8s.io/v1"}}
	e, err := EndpointOf(front)
	if err != nil {
		t.Fatal(err)
	}
	a := Attach{RunID: "1a2b3c4d", Provider: "embedded", Topology: "t", KubernetesVersion: "v1.36.3", Front: e, Replicas: []Endpoint{e, e},
		Nodes:        []Node{{Name: "node-1"}, {Name: "node-0", Capabilities: []features.Name{features.NodeAdmission}}},
		Capabilities: []features.Name{features.AuditLog}, Supported: []features.Name{features.AuditLog, features.NodeAdmission},
		Bounds: bounds.Defaults(), AuditLogs: []string{"/a-0.log"}, MetricsShared: true, WebhookHost: "172.18.0.1",
		PluginHosts: map[string]PluginHost{"node-0": {ConfigDir: "/c", PluginDir: "/p", StateDir: "/s", Timeout: 3 * time.Second}},
		Routing:     &Routing{Advertise: "10.0.0.9:443", CACert: []byte("ca"), CAKey: []byte("k"), Dir: "/r"}}
	path := filepath.Join(t.TempDir(), "attach.json")
	if err := WriteAttach(path, a); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the attach file holds credentials: mode %v, %v", info.Mode(), err)
	}
	got, err := ReadAttach(path)
	if err != nil {
		t.Fatal(err)
	}
	a.APIVersion = AttachVersion
	a.Nodes = []Node{a.Nodes[1], a.Nodes[0]} // sorted by name
	if !reflect.DeepEqual(got, a) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, a)
	}
	c := got.Front.Config()
	if c.Host != front.Host || c.CAFile != "/ca.crt" || string(c.KeyData) != "key" || c.BearerToken != "token" || c.QPS != 200 ||
		c.Impersonate.UserName != "u" || c.ExecProvider == nil || c.ExecProvider.Command != "cred" || c.ServerName != "kubernetes" || c.Timeout != time.Minute {
		t.Errorf("config %+v", c)
	}
	if _, err := EndpointOf(&rest.Config{Host: "h", Dial: func(context.Context, string, string) (net.Conn, error) { return nil, nil }}); err == nil {
		t.Errorf("a config with a dialer cannot be handed to another process")
	}
	if err := os.WriteFile(path, []byte(`{"apiVersion":"other"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAttach(path); err == nil {
		t.Errorf("a file of another version is accepted")
	}
}

func TestBatchGroupsShortUnisolatedSpecsUpToTheTarget(t *testing.T) {
	unit := func(name string, est time.Duration) Unit {
		return Unit{Spec: testSpecs[name], Estimate: est, Known: true, Cases: []string{name + " case one", name + " case two"}}
	}
	units := []Unit{
		unit("ParallelTestA", time.Second),
		unit("ParallelTestHolder1", 100*time.Millisecond), // isolated: alone
		unit("ParallelTestB", 1500*time.Millisecond),
		unit("ParallelTestC", 2*time.Second), // half the target: alone
		unit("ParallelTestWritesWebhooks", time.Second),
		unit("ParallelTestWritesPolicies", time.Second),
	}
	units[5].NeedsNodes = true // needs a node: alone
	got := Batch(units, 4*time.Second)
	var names []string
	for _, u := range got {
		names = append(names, u.Name())
	}
	want := []string{"webhooks/ParallelTestA (+2 more)", "webhooks/ParallelTestHolder1", "webhooks/ParallelTestC", "webhooks/ParallelTestWritesPolicies"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("batched into %q, want %q", names, want)
	}
	b := got[0]
	if b.Estimate != 3500*time.Millisecond || len(b.Cases) != 6 {
		t.Errorf("the batch: estimate %s, %d cases; want 3.5s and 6", b.Estimate, len(b.Cases))
	}
	if f := b.LabelFilter(); f != "spec:ParallelTestA || spec:ParallelTestB || spec:ParallelTestWritesWebhooks" {
		t.Errorf("label filter %q", f)
	}
	if s := b.SpecOf("ParallelTestWritesWebhooks case two"); s.ShortName != "ParallelTestWritesWebhooks" {
		t.Errorf("the case's spec: %s", s.ShortName)
	}
	if s := b.SpecOf("ParallelTestA case one"); s.ShortName != "ParallelTestA" {
		t.Errorf("the case's spec: %s", s.ShortName)
	}
	// A batch writing webhook configurations still waits for their
	// window on one cluster.
	if !contains(b.shares(), quietState(quiet.WebhookConfigurations)) {
		t.Errorf("the batch shares %v, not the webhook configurations' window", b.shares())
	}
	if got := Batch(units[:1], 4*time.Second); len(got) != 1 || len(got[0].Also) != 0 || got[0].Name() != "webhooks/ParallelTestA" {
		t.Errorf("one short unit: %+v", got)
	}
}

func TestSerialUnitsHoldingANodeRunTogetherEachOnItsOwn(t *testing.T) {
	var units []Unit
	for _, name := range []string{"ParallelTestA", "ParallelTestFills1", "ParallelTestAlone", "ParallelTestFills2"} {
		units = append(units, Unit{Spec: testSpecs[name], Estimate: 30 * time.Millisecond, Cases: []string{name + " case"}})
	}
	r := &recorder{t: t, running: map[string]Unit{}, nodeSlots: 2}
	if notStarted := Schedule(context.Background(), units, 4, 2, nil, r.run); len(notStarted) != 0 {
		t.Fatalf("not started: %v", notStarted)
	}
	if r.maxRunning != 2 {
		t.Errorf("at most %d ran at once, want the two filling a node together", r.maxRunning)
	}
	// With one node they run one after another.
	r = &recorder{t: t, running: map[string]Unit{}, nodeSlots: 1}
	Schedule(context.Background(), units, 4, 1, nil, r.run)
	if r.maxRunning != 1 {
		t.Errorf("with one node %d ran at once", r.maxRunning)
	}
}

func TestAssignPlanesSplitsTheLongestChainOfAKind(t *testing.T) {
	policies, webhooks := testSpecs["ParallelTestQuietPolicies"], testSpecs["ParallelTestQuietWebhooks"]
	named := func(s spec.Spec, name string) spec.Spec { s.ShortName = name; return s }
	units := []Unit{
		{Spec: named(policies, "P33"), Estimate: 33 * time.Second},
		{Spec: named(policies, "P19"), Estimate: 19 * time.Second},
		{Spec: named(webhooks, "W10"), Estimate: 10 * time.Second},
		{Spec: named(webhooks, "W8"), Estimate: 8 * time.Second},
		{Spec: named(webhooks, "W5"), Estimate: 5 * time.Second},
		{Spec: testSpecs["ParallelTestA"], Estimate: time.Minute},
	}
	quietSpec := func(s spec.Spec) bool { return len(s.Isolation.Quiet) > 0 }
	AssignPlanes(units, quietSpec, 2)
	got := map[string]int{}
	for _, u := range units {
		got[u.Spec.ShortName] = u.Plane
	}
	// P33 on plane 1; P19 where no policy chain is (plane 2); W10 ties (10
	// s either way) and goes to the shorter plane (2, 19 s); W8 ends
	// sooner on 1 (8 s against 18 s); W5 on 1 (13 s) rather than 2 (15 s).
	want := map[string]int{"P33": 1, "P19": 2, "W10": 2, "W8": 1, "W5": 1, "ParallelTestA": 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("planes %v, want %v", got, want)
	}
	for i := range units {
		units[i].Plane = 0
	}
	AssignPlanes(units, quietSpec, 1)
	for _, u := range units {
		if want := map[bool]int{true: 1, false: 0}[quietSpec(u.Spec)]; u.Plane != want {
			t.Errorf("one plane: %s on %d, want %d", u.Spec.ShortName, u.Plane, want)
		}
	}
}
