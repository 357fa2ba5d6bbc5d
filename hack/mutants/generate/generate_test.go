package generate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// target has one site of every operator whose mutation changes what main
// prints, and constructs the generator must leave alone (constants Go needs
// at compile time, logging, panics).
const target = `package target

import (
	"errors"
	"fmt"
	"log"
	"time"
)

const limit = 3 + 1

type Named int

var table = [2]int{1, 2}

func Check(n int) (string, error) {
	if n > limit {
		return "", errors.New("too big")
	}
	ok := n >= 2 && n != 3
	log.Print("checked")
	record(n)
	wait := time.Duration(5) * time.Millisecond
	var named Named = 7
	switch {
	case n == 0:
		panic("zero")
	}
	return fmt.Sprint(ok, wait, named, table[0], even(n), recorded), nil
}

var recorded []int

func record(n int) { recorded = append(recorded, n) }

func even(n int) bool {
	return n%2 == 0
}
`

const program = `package main

import (
	"fmt"

	"example.com/m/target"
)

func main() {
	for _, n := range []int{1, 2, 4, 5} {
		s, err := target.Check(n)
		fmt.Println(n, s, err)
	}
}
`

func TestSchemataCompileAndSwitchEachMutantAlone(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.24\n")
	write("target/target.go", target)
	write("main.go", program)

	everything := Covered{"example.com/m/target/target.go": {{StartLine: 1, StartCol: 1, EndLine: 1000, EndCol: 1}}}
	sites, files, err := Sites(dir, []string{"./target"}, everything)
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[Operator][]string{}
	for _, s := range sites {
		byOp[s.Operator] = append(byOp[s.Operator], s.Original)
	}
	for _, op := range Operators {
		if len(byOp[op]) == 0 {
			t.Errorf("no %s site found; sites: %v", op, byOp)
		}
	}
	for _, s := range sites {
		switch {
		case s.Operator == DropCall && strings.Contains(s.Original, "log."):
			t.Errorf("a logging call was offered: %s", s.Original)
		case s.Operator == DropCall && strings.HasPrefix(s.Original, "panic"):
			t.Errorf("panic was offered: %s", s.Original)
		case s.Operator == Constant && (s.Line == 10 || s.Line == 14):
			t.Errorf("a constant Go needs at compile time was offered: %s (line %d)", s.Original, s.Line)
		}
	}

	// Every site compiled into one build, each switched on alone.
	ms := make([]Mutant, 0, len(sites))
	for _, s := range Sample(sites, len(sites), 1) {
		ms = append(ms, Mutant{ID: len(ms) + 1, Site: s})
	}
	src, err := os.ReadFile(files["example.com/m/target/target.go"].Path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Rewrite(src, ms)
	if err != nil {
		t.Fatal(err)
	}
	write("target/target.go", string(out))
	write("target/"+RuntimeFileName, string(RuntimeFile("target")))
	bin := filepath.Join(dir, "prog")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the schemata do not compile: %v\n%s\n%s", err, b, out)
	}
	runWith := func(id int) string {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), MutantEnv+"="+strconv.Itoa(id))
		b, _ := cmd.CombinedOutput()
		return string(b)
	}
	pristine := runWith(0)
	if !strings.Contains(pristine, "4 true 5ms 7 1 true [1 2 4]") {
		t.Fatalf("with no mutant active the program should behave as written, got:\n%s", pristine)
	}
	changed := 0
	for _, m := range ms {
		if got := runWith(m.ID); got != pristine {
			changed++
		} else {
			t.Logf("mutant %d (%s %q -> %q) prints the same", m.ID, m.Operator, m.Original, m.Mutated)
		}
	}
	// Sample drops sites that overlap a taken one; most of the rest change
	// the output (a few are equivalent here, e.g. >= on a value never 2).
	if changed < len(ms)*2/3 {
		t.Errorf("only %d of %d mutants changed the program's output", changed, len(ms))
	}
}

func TestSampleIsSeededAndNeverOverlaps(t *testing.T) {
	var sites []Site
	for i := 0; i < 50; i++ {
		sites = append(sites, Site{File: "f.go", start: i * 10, end: i*10 + 15, Operator: Comparison, Line: i})
	}
	a, b := Sample(sites, 20, 7), Sample(sites, 20, 7)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("samples of one seed differ in size: %d, %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Line != b[i].Line {
			t.Fatalf("samples of one seed differ at %d", i)
		}
		for j := range a {
			if i != j && a[i].start < a[j].end && a[j].start < a[i].end {
				t.Fatalf("sites %d and %d overlap", a[i].Line, a[j].Line)
			}
		}
	}
}
