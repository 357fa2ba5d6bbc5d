package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestRemoveLeftoversRemovesOnlyDeadRunsDirs: a dir goes when its owner is
// gone (no such pid, or the pid now belongs to a process started at another
// time), or when it names no owner and is old; a live owner's dir, a fresh
// dir without owner file and anything not a run dir stay.
func TestRemoveLeftoversRemovesOnlyDeadRunsDirs(t *testing.T) {
	base := t.TempDir()
	_, start, ok := procStat(os.Getpid())
	if !ok {
		t.Skip("no /proc")
	}
	self := strconv.Itoa(os.Getpid())
	dirs := map[string]string{ // name -> owner file ("-": none)
		"live":          self + " " + start,
		"live-old-form": self,
		"dead":          "4194305 12345",
		"recycled-pid":  self + " 1",
		"garbage-owner": "not a pid",
		"no-owner":      "-",
		"no-owner-old":  "-",
	}
	for name, owner := range dirs {
		dir := filepath.Join(base, EmbeddedPrefix+name)
		if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "-" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := time.Now().Add(-2 * ownerGrace)
	for _, name := range []string{"garbage-owner", "no-owner-old"} {
		if err := os.Chtimes(filepath.Join(base, EmbeddedPrefix+name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, EmbeddedPrefix+"a-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "someone-elses"), 0o755); err != nil {
		t.Fatal(err)
	}

	removed, err := RemoveLeftovers(base)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range removed {
		got = append(got, filepath.Base(l.Dir))
	}
	slices.Sort(got)
	want := []string{EmbeddedPrefix + "dead", EmbeddedPrefix + "garbage-owner", EmbeddedPrefix + "no-owner-old", EmbeddedPrefix + "recycled-pid"}
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(base)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	wantLeft := []string{EmbeddedPrefix + "a-file", EmbeddedPrefix + "live", EmbeddedPrefix + "live-old-form", EmbeddedPrefix + "no-owner", "someone-elses"}
	if !slices.Equal(left, wantLeft) {
		t.Errorf("left %v, want %v", left, wantLeft)
	}
	// What this process owns goes with RemoveOwn.
	own := RemoveOwn(base)
	if len(own) != 2 {
		t.Errorf("RemoveOwn removed %v, want the two live dirs", own)
	}
}

// TestCreateOwnsEveryPrefixAndSweepsIt: each owner's dir (the parallel
// workers' included) is created with an owner file and swept once that
// owner is gone; a prefix the sweep would not know is refused.
func TestCreateOwnsEveryPrefixAndSweepsIt(t *testing.T) {
	base := t.TempDir()
	for _, p := range Prefixes {
		dir, err := Create(base, p)
		if err != nil {
			t.Fatal(err)
		}
		// Hand the dir to a process that is gone.
		if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte("4194305 12345\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Create(base, "someone-elses-"); err == nil {
		t.Error("Create accepted a prefix the sweep does not know")
	}
	removed, err := RemoveLeftovers(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != len(Prefixes) {
		t.Errorf("removed %v, want one dir per prefix %v", removed, Prefixes)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("left %d entries", len(left))
	}
}

// A third signal while an apiserver starts finds the embedded cluster's
// dir: the cluster points TMPDIR into its own dir then, and RemoveOwn
// looked there (a forced exit during cluster start left the dir behind).
func TestRemoveOwnFindsRunDirsWhileTMPDIRPointsIntoOne(t *testing.T) {
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	dir, err := Create("", EmbeddedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	if removed := RemoveOwn(""); len(removed) != 1 || removed[0] != dir {
		t.Fatalf("RemoveOwn removed %v, want [%s]", removed, dir)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("left in the temp dir: %v", entries)
	}
}

// A dir whose removal stopped part-way (its process exited) still names
// its owner under a prefix the sweeps know.
func TestARemovalStoppedPartWayIsStillOwned(t *testing.T) {
	base := t.TempDir()
	dir, err := Create(base, ParallelPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "output.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What Remove leaves when its process exits after the rename: the
	// owner file goes last.
	if err := os.Rename(dir, dir+removingSuffix); err != nil {
		t.Fatal(err)
	}
	if removed := RemoveOwn(base); len(removed) != 1 || removed[0] != dir+removingSuffix {
		t.Fatalf("RemoveOwn removed %v, want [%s]", removed, dir+removingSuffix)
	}
	dir, err = Create(base, ParallelPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("Remove left %v", entries)
	}
}
