package runconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// podChild is a valid in-cluster pod's options.
func podChild() Config {
	c := Default()
	c.Provider = "kubeconfig"
	c.Child = &Child{Pod: &PodRole{RunID: "1a2b3c4d", WebhookListen: ":8443", WebhookAdvertise: "10.96.0.10:443",
		WebhookNames: []string{"webhooks.ns.svc"}, PublishResults: clusterrun.NamePrefix + "1a2b3c4d"}}
	return c
}

// TestChildFileRoundTrip: what WriteChild writes reads back whole, the
// child section included.
func TestChildFileRoundTrip(t *testing.T) {
	worker := Default()
	worker.LabelFilter, worker.Focus, worker.Skip, worker.ReportDir = "spec:A", []string{"^x$"}, []string{"Slow"}, t.TempDir()
	worker.Bounds.Spec.Duration *= 2
	worker.Child = &Child{Worker: &WorkerRole{ParentPID: 42, Attach: "/run/attach.json", NodeSlot: 2, Repetition: 3}}
	plane := Default()
	plane.Nodes, plane.ReferenceInitializers, plane.APIServerArgs = 0, false, []string{"--v=2"}
	plane.Child = &Child{Plane: &PlaneRole{ParentPID: 42, Attach: "/run/plane/attach.json", SharedDir: "/run/plane/shared"}}
	for _, c := range []Config{worker, podChild(), plane} {
		path := filepath.Join(t.TempDir(), "options.yaml")
		if err := WriteChild(path, c); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("written %v, %v: want 0600", info, err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("read back\n%+v\nwant\n%+v", got, c)
		}
	}
}

// TestChildSectionHasOneWholeRole: a child section names one role with
// what it needs.
func TestChildSectionHasOneWholeRole(t *testing.T) {
	for name, c := range map[string]func(*Config){
		"empty":         func(c *Config) { c.Child = &Child{} },
		"both":          func(c *Config) { c.Child.Worker = &WorkerRole{Attach: "a"} },
		"worker attach": func(c *Config) { c.Provider, c.Child = "embedded", &Child{Worker: &WorkerRole{}} },
		"worker slot": func(c *Config) {
			c.Provider, c.Child = "embedded", &Child{Worker: &WorkerRole{Attach: "a", NodeSlot: -1}}
		},
		"pod with embedded":  func(c *Config) { c.Provider = "embedded" },
		"pod in-cluster":     func(c *Config) { c.InCluster, c.Image = true, "x:1" },
		"pod run ID":         func(c *Config) { c.Child.Pod.RunID = "UPPER" },
		"pod listen alone":   func(c *Config) { c.Child.Pod.WebhookAdvertise = "" },
		"pod advertise":      func(c *Config) { c.Child.Pod.WebhookAdvertise = "webhooks:443" },
		"pod webhook name":   func(c *Config) { c.Child.Pod.WebhookNames = []string{"Not_A_Name"} },
		"pod publish":        func(c *Config) { c.Child.Pod.PublishResults = "" },
		"pod webhook host":   func(c *Config) { c.WebhookHost = "10.0.0.1" },
		"pod with no listen": func(c *Config) { c.Child.Pod.WebhookListen = "8443" },
		"pod and plane":      func(c *Config) { c.Child.Plane = &PlaneRole{Attach: "a", SharedDir: "s"} },
		"plane attach": func(c *Config) {
			c.Provider, c.Child = "embedded", &Child{Plane: &PlaneRole{SharedDir: "s"}}
		},
		"plane shared dir": func(c *Config) {
			c.Provider, c.Child = "embedded", &Child{Plane: &PlaneRole{Attach: "a"}}
		},
		"plane not embedded": func(c *Config) { c.Child = &Child{Plane: &PlaneRole{Attach: "a", SharedDir: "s"}} },
	} {
		o := podChild()
		c(&o)
		err := o.validateChild()
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Usage || !strings.HasPrefix(err.Error(), ChildSection) {
			t.Errorf("%s: %v", name, err)
		}
	}
	o := podChild()
	if err := o.validateChild(); err != nil {
		t.Errorf("a valid pod: %v", err)
	}
	o = Default()
	o.Child = &Child{Plane: &PlaneRole{Attach: "a", SharedDir: "s"}}
	if err := o.validateChild(); err != nil {
		t.Errorf("a valid plane: %v", err)
	}
}

// TestChildSectionOnlyFromItsParent: a child section is refused beside
// flags, in a worker that the writer did not start, in a pod outside the
// run's namespace.
func TestChildSectionOnlyFromItsParent(t *testing.T) {
	worker := Default()
	worker.Child = &Child{Worker: &WorkerRole{ParentPID: os.Getppid(), Attach: "a"}}
	if err := worker.CheckFromParent(false); err != nil {
		t.Errorf("a worker its parent started: %v", err)
	}
	if err := worker.CheckFromParent(true); err == nil || !strings.Contains(err.Error(), "give no flag with it") {
		t.Errorf("with flags: %v", err)
	}
	worker.Child.Worker.ParentPID = os.Getpid()
	if err := worker.CheckFromParent(false); err == nil || !strings.Contains(err.Error(), "worker's own") {
		t.Errorf("not started by its writer: %v", err)
	}

	nsFile := filepath.Join(t.TempDir(), "namespace")
	pod := podChild()
	if err := pod.checkFromParent(false, nsFile); err == nil || !strings.Contains(err.Error(), "in-cluster pod's own") {
		t.Errorf("outside a pod: %v", err)
	}
	if err := os.WriteFile(nsFile, []byte("default"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := pod.checkFromParent(false, nsFile); err == nil {
		t.Error("a pod in another namespace accepted")
	}
	if err := os.WriteFile(nsFile, []byte(clusterrun.NamePrefix+"1a2b3c4d"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := pod.checkFromParent(false, nsFile); err != nil {
		t.Errorf("the run's pod: %v", err)
	}
	plane := Default()
	plane.Child = &Child{Plane: &PlaneRole{ParentPID: os.Getpid(), Attach: "a", SharedDir: "s"}}
	if err := plane.CheckFromParent(false); err == nil || !strings.Contains(err.Error(), "propagation plane's own") {
		t.Errorf("a plane not started by its writer: %v", err)
	}
	plane.Child.Plane.ParentPID = os.Getppid()
	if err := plane.CheckFromParent(false); err != nil {
		t.Errorf("a plane its parent started: %v", err)
	}
	plain := Default()
	if err := plain.CheckFromParent(true); err != nil {
		t.Errorf("no child section: %v", err)
	}
}

// YAML refuses DEL, the C1 controls and a byte order mark raw; a --focus
// holding one must still reach a worker unchanged.
func TestEncodeCarriesCharactersYAMLCannotHoldRaw(t *testing.T) {
	for _, s := range []string{"\x7f", "a\u0085b\u0086", "\ufeffx", "\u2028", "\x01", "ordering/.*Order$"} {
		c := Default()
		c.Focus = []string{s}
		data, err := Encode(c)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		back, err := Decode(data)
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, data)
		}
		if len(back.Focus) != 1 || back.Focus[0] != s {
			t.Fatalf("%q came back as %q", s, back.Focus)
		}
	}
}
